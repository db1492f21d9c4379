import { Access, CurrentPrincipal, TENANCY, seesTenant, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { Controller, Get, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import { RunSummaryQuery, type RunSummary } from './run-summary.query';

@Controller('v1/runs')
@Access('viewer')
export class RunSummaryController {
  constructor(
    private readonly runs: RunSummaryQuery,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query('limit') limit?: string): ReturnType<RunSummaryQuery['list']> {
    return this.runs.list(limit ? Number(limit) || 50 : 50, tenantScope(this.tenancy, principal));
  }

  @Get(':runId')
  async get(@Param('runId') runId: string, @CurrentPrincipal() principal: Principal): Promise<RunSummary> {
    const summary = await this.runs.find(runId);
    // Another tenant's run is "not found": its existence does not leak.
    if (!summary || !seesTenant(this.tenancy, principal, summary.tenant)) {
      throw new NotFoundException({ code: 'REPORTER.RUN_NOT_FOUND', message: `run ${runId.slice(0, 128)} has not been published (yet)` });
    }
    return summary;
  }
}
