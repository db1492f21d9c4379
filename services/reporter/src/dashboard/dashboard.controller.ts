import { Controller, Get, Header } from '@nestjs/common';

/** Web dashboard served by the reporter (server-rendered HTML). */
@Controller()
export class DashboardController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  index(): string {
    return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Auto-oncall</title></head><body><h1>Auto-oncall</h1></body></html>';
  }
}
