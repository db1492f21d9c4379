import { Access, CurrentPrincipal, TENANCY, requireEveryTenant, type Principal, type Tenancy } from '@aoc/auth';
import { BadRequestException, Body, Controller, HttpCode, Inject, Post, UnprocessableEntityException } from '@nestjs/common';
import { ZodError } from 'zod';
import { TimelineCollector, type CollectResult } from './timeline-collector.service';

/**
 * POST /v1/timelines/collect: one collector pass now (the CLI's backfill): `{limit<=500, all?,
 * ticketKeys?}`. 400 names a bad field; 422 when no ticket source is configured (as intake answers it: a
 * refusal of this deployment's setup, not an outage). A pass reads every tenant's tickets, so it
 * needs a credential that sees every tenant.
 */
@Controller('v1/timelines')
@Access('operator')
export class TimelinesController {
  constructor(
    private readonly collector: TimelineCollector,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  @Post('collect')
  @HttpCode(200)
  async collect(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<CollectResult> {
    requireEveryTenant(this.tenancy, principal);
    if (!this.collector.configured) throw new UnprocessableEntityException({ code: 'TICKET_SOURCE.NOT_CONFIGURED', message: 'no ticket source is configured (AOC_TICKET_SOURCE); there is nothing to collect from' });
    try {
      return await this.collector.collect((body ?? {}) as never);
    } catch (error) {
      if (error instanceof ZodError) throw new BadRequestException({ code: 'TIMELINE.REQUEST_INVALID', issues: error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
      throw error;
    }
  }
}
