import { Access, type EdgeResponse } from '@aoc/auth';
import { Controller, Get, Res } from '@nestjs/common';
import { PROMETHEUS_CONTENT_TYPE, renderMetrics } from '@aoc/telemetry';

/**
 * The process's metrics on a role's HTTP API (router, reporter, optimizer), where its probes
 * are: public like them (a scraper carries no credential), and like them free of customer data
 * (series labels are topic names, codes, package names and roles only).
 */
@Controller()
export class MetricsController {
  @Get('metrics')
  @Access('public')
  async metrics(@Res() response: EdgeResponse): Promise<void> {
    const text = await renderMetrics();
    response.setHeader('cache-control', 'no-store');
    response.setHeader('content-type', PROMETHEUS_CONTENT_TYPE);
    response.status(200).send(text);
  }
}
