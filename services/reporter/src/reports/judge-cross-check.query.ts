import type { Verdict } from '@aoc/contracts';
import type { EntityManager } from 'typeorm';
import type { ReporterTables } from '../reporter.tables';
import type { JudgeCrossCheckSummary } from './report.types';
import { countedRunsSql, type PeriodBounds } from './report-sql';

/** How many cross-check disagreements a report lists (the count covers all of them). */
export const DISAGREEMENTS_LISTED = 100;

interface DisagreementRow {
  run_id: string;
  ticket_key: string;
  evaluation_id: string;
  judged_at: Date;
  verdict: Verdict;
  cross_check_verdict: Verdict;
  cross_check_engine: string;
  cross_check_reason_code: string | null;
}

/**
 * The model judge's cross-checks of the counted runs' current evaluations (the one the verdict
 * counts come from), decided ones only: how many were cross-checked, how many it disagreed with
 * (a different verdict; a model abstention is none), and those listed. Codes only: verdicts,
 * engine and the built-in rule, never texts. `bounds` is the period and tenant of the report.
 */
export async function judgeCrossChecks(m: EntityManager, t: ReporterTables, bounds: PeriodBounds): Promise<JudgeCrossCheckSummary> {
  const checked = `FROM counted c
         JOIN ${t.evaluations} e ON e."evaluation_id" = c."evaluation_id"
        WHERE e."verdict" <> 'not_compared' AND e."cross_check_verdict" IS NOT NULL`;
  const [counts]: { cross_checked: number; disagreed: number }[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT count(*)::int AS cross_checked, count(*) FILTER (WHERE e."cross_check_agrees" = false)::int AS disagreed
         ${checked}`,
    bounds,
  );
  const rows: DisagreementRow[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT c."run_id", c."ticket_key", e."evaluation_id", e."judged_at", e."verdict",
              e."cross_check_verdict", e."cross_check_engine", e."cross_check_reason_code"
         ${checked} AND e."cross_check_agrees" = false
        ORDER BY c."published_at", c."run_id" COLLATE "C"
        LIMIT $4`,
    [...bounds, DISAGREEMENTS_LISTED],
  );
  return {
    crossChecked: counts.cross_checked,
    disagreed: counts.disagreed,
    disagreements: rows.map((r) => ({
      runId: r.run_id,
      ticketKey: r.ticket_key,
      evaluationId: r.evaluation_id,
      judgedAt: r.judged_at.toISOString(),
      builtinVerdict: r.verdict,
      modelVerdict: r.cross_check_verdict,
      modelEngine: r.cross_check_engine,
      reasonCode: r.cross_check_reason_code,
    })),
  };
}
