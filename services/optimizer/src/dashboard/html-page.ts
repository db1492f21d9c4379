import { applyDecorators, Header } from '@nestjs/common';

/** An HTML page of the optimizer: no sniffing, never cached. */
export const HtmlPage = (): MethodDecorator => applyDecorators(Header('content-type', 'text/html; charset=utf-8'), Header('x-content-type-options', 'nosniff'), Header('cache-control', 'no-store'));
