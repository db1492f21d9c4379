import { signInRedirectFor } from '@aoc/http-edge';
import { LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Catch, HttpException, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { InvalidReportParamError } from '../reports/report-period';
import { DashboardParamError } from './dashboard-params';
import { renderErrorPage, type ErrorPage } from './error-page.view';

/** The part of the HTTP response the filter uses (express underneath, whose types are not a dependency). */
interface HtmlResponse {
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
  send(body: string): unknown;
}

const TITLES: Record<number, string> = { 400: 'Bad request', 404: 'Not found', 503: 'Unavailable' };

/** Maps what a dashboard handler threw to the page the browser gets; internals never reach it. */
export function toErrorPage(exception: unknown): ErrorPage {
  if (exception instanceof DashboardParamError) {
    return { status: 400, title: 'Bad request', message: `Invalid parameter${exception.issues.length === 1 ? '' : 's'}: ${exception.issues.map((i) => i.field).join(', ')}.`, issues: exception.issues };
  }
  // The reports reader checks its own parameters too; its refusal is the caller's error.
  if (exception instanceof InvalidReportParamError) {
    return { status: 400, title: 'Bad request', message: `Invalid parameter: ${exception.field}.`, issues: [{ field: exception.field, message: exception.message.replace(`${exception.field}: `, '') }] };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message = typeof response === 'object' && response !== null && 'message' in response && typeof response.message === 'string' ? response.message : exception.message;
    return { status, title: TITLES[status] ?? 'Error', message };
  }
  return { status: 500, title: 'Internal error', message: 'The page could not be rendered. The error has been logged.' };
}

@Catch()
export class DashboardErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const page = toErrorPage(exception);
    if (page.status >= 500) this.logger.error('dashboard page failed', { error: exception instanceof Error ? exception.message : String(exception) });
    const response = host.switchToHttp().getResponse<HtmlResponse>();
    const redirect = signInRedirectFor(host.switchToHttp().getRequest(), page.status);
    if (redirect) {
      response.status(303);
      response.setHeader('location', redirect);
      response.send('Sign in first.');
      return;
    }
    response.status(page.status);
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('cache-control', 'no-store');
    response.send(renderErrorPage(page));
  }
}
