import { Access, CurrentPrincipal, TENANCY, reportTenant, seesTicket, type Principal, type Tenancy } from '@aoc/auth';
import { TicketKey } from '@aoc/contracts';
import { BadRequestException, Controller, Get, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import { dailyParams, healthParams, InvalidReportParamError, weeklyParams } from './report-period';
import { REPORTS_READER, type AnswerVersionView, type ProviderDayHealth, type QualityReport, type ReportsReader, type WeeklyReport } from './report.types';

/** A repeated query parameter (`?day=a&day=b`) arrives as an array; it is refused, not guessed. */
function single(field: string, value: unknown): unknown {
  if (Array.isArray(value)) throw new InvalidReportParamError(field, 'must be given once');
  return value;
}

/** JSON reports. A bad parameter is a 400 naming the field; all counting happens in the reader's SQL. */
@Controller('v1')
@Access('viewer')
export class ReportsController {
  constructor(
    @Inject(REPORTS_READER) private readonly reports: ReportsReader,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  @Get('reports/daily')
  daily(@Query('day') day: unknown, @Query('tenant') tenant: unknown, @CurrentPrincipal() principal: Principal): Promise<QualityReport> {
    return this.guard(() => this.reports.daily(dailyParams(single('day', day)).day, reportTenant(this.tenancy, principal, single('tenant', tenant))));
  }

  @Get('reports/weekly')
  weekly(@Query('weekStart') weekStart: unknown, @Query('tenant') tenant: unknown, @CurrentPrincipal() principal: Principal): Promise<WeeklyReport> {
    return this.guard(() => this.reports.weekly(weeklyParams(single('weekStart', weekStart)).weekStart, reportTenant(this.tenancy, principal, single('tenant', tenant))));
  }

  @Get('providers/health')
  providerHealth(@Query('from') from: unknown, @Query('to') to: unknown, @Query('tenant') tenant: unknown, @CurrentPrincipal() principal: Principal): Promise<ProviderDayHealth[]> {
    return this.guard(() => {
      const scope = reportTenant(this.tenancy, principal, single('tenant', tenant));
      const range = healthParams(single('from', from), single('to', to));
      return this.reports.providerHealth(range.from, range.to, scope);
    });
  }

  @Get('tickets/:ticketKey/answers')
  answers(@Param('ticketKey') ticketKey: string, @CurrentPrincipal() principal: Principal): Promise<AnswerVersionView[]> {
    return this.guard(() => {
      const parsed = TicketKey.safeParse(ticketKey);
      if (!parsed.success) throw new InvalidReportParamError('ticketKey', parsed.error.issues[0]?.message ?? 'is invalid');
      // Another tenant's ticket is "not found": its existence does not leak.
      if (!seesTicket(this.tenancy, principal, parsed.data)) throw new NotFoundException({ code: 'REPORTER.TICKET_NOT_FOUND', message: `no answers recorded for ticket ${parsed.data}` });
      return this.reports.answerVersions(parsed.data);
    });
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidReportParamError) {
        throw new BadRequestException({ statusCode: 400, code: 'REPORTER.INVALID_PARAM', field: error.field, message: error.message });
      }
      throw error;
    }
  }
}
