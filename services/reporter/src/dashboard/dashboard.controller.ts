import { Access, CurrentPrincipal, TENANCY, reportTenant, seesTenant, seesTicket, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { applyDecorators, Controller, Get, Header, Inject, NotFoundException, Param, Query, UseFilters } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { ReporterTables } from '../reporter.tables';
import { REPORTS_READER, type ReportsReader } from '../reports/report.types';
import { RunSummaryQuery } from '../run-summary/run-summary.query';
import { DashboardErrorFilter } from './dashboard-error.filter';
import { DashboardParamError, DEFAULT_RUNS_LIMIT, parseDailyQuery, parseProvidersQuery, parseRunId, parseRunsQuery, parseTicketKey, parseWeeklyQuery } from './dashboard-params';
import { DashboardRunsQuery, UnknownCursorError } from './dashboard-runs.query';
import { renderProviders } from './providers.view';
import { renderDailyReport, renderWeeklyReport } from './quality-report.view';
import { renderRunDetail } from './run-detail.view';
import { renderRunsList } from './runs-list.view';
import { renderTicket } from './ticket.view';

const HtmlPage = (): MethodDecorator =>
  applyDecorators(Header('content-type', 'text/html; charset=utf-8'), Header('x-content-type-options', 'nosniff'), Header('cache-control', 'no-store'));

/** Web dashboard served by the reporter: server-rendered HTML, no script, no external asset. */
@Controller()
@Access('viewer')
@UseFilters(DashboardErrorFilter)
export class DashboardController {
  private readonly runs: DashboardRunsQuery;

  constructor(
    @Inject(DATA_SOURCE) dataSource: DataSource,
    tables: ReporterTables,
    private readonly summaries: RunSummaryQuery,
    @Inject(REPORTS_READER) private readonly reports: ReportsReader,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {
    // Built here rather than registered as a provider: the dashboard owns only its own folder.
    this.runs = new DashboardRunsQuery(dataSource, tables);
  }

  @Get()
  @HtmlPage()
  async index(@Query() query: unknown, @CurrentPrincipal() principal: Principal): Promise<string> {
    const { limit, before } = parseRunsQuery(query);
    try {
      return renderRunsList(await this.runs.page(limit, before, tenantScope(this.tenancy, principal)), { limit, before, defaultLimit: DEFAULT_RUNS_LIMIT });
    } catch (error) {
      if (error instanceof UnknownCursorError) throw new DashboardParamError([{ field: 'before', message: 'names no run known to the reporter' }]);
      throw error;
    }
  }

  @Get('runs/:runId')
  @HtmlPage()
  async run(@Param('runId') runIdParam: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    const runId = parseRunId(runIdParam);
    const summary = await this.summaries.find(runId);
    if (!summary || !seesTenant(this.tenancy, principal, summary.tenant)) throw new NotFoundException(`Run ${runId} has not been published (yet).`);
    return renderRunDetail(summary);
  }

  @Get('tickets/:ticketKey')
  @HtmlPage()
  async ticket(@Param('ticketKey') ticketKeyParam: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    const ticketKey = parseTicketKey(ticketKeyParam);
    if (!seesTicket(this.tenancy, principal, ticketKey)) throw new NotFoundException(`No answers recorded for ticket ${ticketKey}.`);
    return renderTicket(ticketKey, await this.reports.answerVersions(ticketKey), await this.reports.ticketTimeline(ticketKey));
  }

  @Get('reports/daily')
  @HtmlPage()
  async daily(@Query() query: unknown, @CurrentPrincipal() principal: Principal): Promise<string> {
    return renderDailyReport(await this.reports.daily(parseDailyQuery(query, new Date()), this.tenantOf(query, principal)));
  }

  @Get('reports/weekly')
  @HtmlPage()
  async weekly(@Query() query: unknown, @CurrentPrincipal() principal: Principal): Promise<string> {
    return renderWeeklyReport(await this.reports.weekly(parseWeeklyQuery(query, new Date()), this.tenantOf(query, principal)));
  }

  @Get('providers')
  @HtmlPage()
  async providers(@Query() query: unknown, @CurrentPrincipal() principal: Principal): Promise<string> {
    const range = parseProvidersQuery(query, new Date());
    return renderProviders(range, await this.reports.providerHealth(range.from, range.to, this.tenantOf(query, principal)));
  }

  /** The tenant a report page covers: the caller's own, or the one an every-tenant caller names in `?tenant=`. */
  private tenantOf(query: unknown, principal: Principal): string | null {
    const requested = typeof query === 'object' && query !== null ? (query as Record<string, unknown>)['tenant'] : undefined;
    return reportTenant(this.tenancy, principal, requested);
  }
}
