import { TicketKey } from '@aoc/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { ReporterTables } from '../reporter.tables';
import { judgeCrossChecks } from './judge-cross-check.query';
import { provider5xx, providerHealth } from './provider-health.query';
import { feedbackByAction, qualityReport, qualitySummary, runtimeSignals, topGaps } from './quality.query';
import { dailyParams, healthParams, InvalidReportParamError, periodOf, weeklyParams, addDays, type ReportPeriod } from './report-period';
import { periodBounds } from './report-sql';
import { answerVersions, ticketTimeline } from './ticket-history.query';
import type { AnswerVersionView, ProviderDayHealth, QualityReport, ReportsReader, TimelineCommentView, ShanghaiDate, WeeklyReport } from './report.types';

// The queries of each report live beside this file (quality, provider health, judge cross-check,
// ticket history); these names stay exported from here, where the reporter and its tests import them.
export { DISAGREEMENTS_LISTED } from './judge-cross-check.query';
export { countedRunsSql } from './report-sql';

export interface SqlReportsReaderOptions {
  /** Clock for `generatedAt`. */
  now?: () => Date;
  /** How many gaps `topGaps` lists. */
  topGaps?: number;
}

/**
 * ReportsReader over the reporter's own tables. Every number is computed by SQL (COUNT/FILTER/
 * GROUP BY) inside one REPEATABLE READ snapshot; JavaScript only validates parameters and shapes
 * the rows into the report objects.
 */
export class SqlReportsReader implements ReportsReader {
  private readonly now: () => Date;
  private readonly topGapLimit: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly t: ReporterTables = new ReporterTables(),
    options: SqlReportsReaderOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.topGapLimit = options.topGaps ?? 10;
  }

  async daily(day: ShanghaiDate, tenant: string | null = null): Promise<QualityReport> {
    const params = dailyParams(day);
    return this.snapshot((m) => this.quality(m, 'daily', periodOf(params.day, params.day), tenant));
  }

  async weekly(weekStart: ShanghaiDate, tenant: string | null = null): Promise<WeeklyReport> {
    const params = weeklyParams(weekStart);
    const period = periodOf(params.weekStart, addDays(params.weekStart, 6));
    return this.snapshot(async (m) => ({ ...(await this.quality(m, 'weekly', period, tenant)), provider5xx: await provider5xx(m, this.t, period, tenant) }));
  }

  async providerHealth(from: ShanghaiDate, to: ShanghaiDate, tenant: string | null = null): Promise<ProviderDayHealth[]> {
    const params = healthParams(from, to);
    return this.snapshot(async (m) => (await providerHealth(m, this.t, periodOf(params.from, params.to), tenant)).providers);
  }

  async answerVersions(ticketKey: string): Promise<AnswerVersionView[]> {
    const key = validTicketKey(ticketKey);
    return this.snapshot((m) => answerVersions(m, this.t, key));
  }

  async ticketTimeline(ticketKey: string): Promise<TimelineCommentView[]> {
    return ticketTimeline(this.dataSource, this.t, validTicketKey(ticketKey));
  }

  private snapshot<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('REPEATABLE READ', work);
  }

  /** The quality report of a period: each figure's query in turn, in the caller's snapshot, then shaped. */
  private async quality(m: EntityManager, kind: 'daily' | 'weekly', period: ReportPeriod, tenant: string | null): Promise<QualityReport> {
    const bounds = periodBounds(period, tenant);
    const summary = await qualitySummary(m, this.t, bounds);
    const gaps = await topGaps(m, this.t, bounds, this.topGapLimit);
    const feedback = await feedbackByAction(m, this.t, bounds);
    const signals = await runtimeSignals(m, this.t, bounds);
    const health = await providerHealth(m, this.t, period, tenant);
    const judgeCrossCheck = await judgeCrossChecks(m, this.t, bounds);
    return qualityReport({ kind, period, tenant, generatedAt: this.now(), summary, topGaps: gaps, feedbackByAction: feedback, runtimeSignals: signals, health, judgeCrossCheck });
  }
}

/** A ticket key as the contracts define it; anything else is a bad request, not an empty history. */
function validTicketKey(ticketKey: string): string {
  const parsed = TicketKey.safeParse(ticketKey);
  if (!parsed.success) throw new InvalidReportParamError('ticketKey', parsed.error.issues[0]?.message ?? 'is invalid');
  return parsed.data;
}
