import { Access } from '@aoc/auth';
import { Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { RunSummaryQuery, type RunSummary } from './run-summary.query';

@Controller('v1/runs')
@Access('viewer')
export class RunSummaryController {
  constructor(private readonly runs: RunSummaryQuery) {}

  @Get()
  list(@Query('limit') limit?: string): ReturnType<RunSummaryQuery['list']> {
    return this.runs.list(limit ? Number(limit) || 50 : 50);
  }

  @Get(':runId')
  async get(@Param('runId') runId: string): Promise<RunSummary> {
    const summary = await this.runs.find(runId);
    if (!summary) throw new NotFoundException({ code: 'REPORTER.RUN_NOT_FOUND', message: `run ${runId} has not been published (yet)` });
    return summary;
  }
}
