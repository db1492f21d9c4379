import { Verdict as VerdictSchema, type Verdict } from '@aoc/contracts';
import type { EntityManager } from 'typeorm';
import type { ReporterTables } from '../reporter.tables';
import type { ReportPeriod } from './report-period';
import type { FunnelCounts, GapCount, JudgeCrossCheckSummary, QualityReport, RuntimeSignalRow, VerdictCount } from './report.types';
import type { ProviderHealth } from './provider-health.query';
import { countedRunsSql, type PeriodBounds } from './report-sql';

/*
 * The quality report (daily and weekly) over the counted runs of a period: one query per figure,
 * each over the `counted` CTE, then shaped into the report. Provider health and the judge
 * cross-checks have their own modules.
 */

/** Verdicts in the order reports list them; counts of zero are listed too. */
const VERDICT_ORDER: readonly (Verdict | 'unjudged')[] = [...VerdictSchema.options, 'unjudged'];

/** Every count of the report that one pass over the counted runs gives (FILTER per figure). */
export interface SummaryRow {
  runs: number;
  tickets: number;
  good: number;
  bad: number;
  unknown: number;
  human_reply: number;
  judged: number;
  with_feedback: number;
  anchor_public: number;
  anchor_internal: number;
  review: number;
  v_ai_better: number;
  v_equivalent: number;
  v_different_but_valid: number;
  v_human_better: number;
  v_not_compared: number;
  v_unjudged: number;
}

interface RuntimeRow {
  run_id: string;
  ticket_key: string;
  published_at: Date;
  evidence_status: 'degraded' | 'failed';
  failure_codes: string[];
  verdict: Verdict | null;
  providers: string[];
}

export async function qualitySummary(m: EntityManager, t: ReporterTables, bounds: PeriodBounds): Promise<SummaryRow> {
  const [summary]: SummaryRow[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT count(*)::int AS runs,
              count(DISTINCT p."ticket_key")::int AS tickets,
              count(*) FILTER (WHERE p."quality_score" = 1)::int AS good,
              count(*) FILTER (WHERE p."quality_score" = 0)::int AS bad,
              count(*) FILTER (WHERE p."quality_score" IS NULL)::int AS unknown,
              count(*) FILTER (WHERE p."human_reply_at" IS NOT NULL)::int AS human_reply,
              count(*) FILTER (WHERE p."evaluation_id" IS NOT NULL)::int AS judged,
              count(*) FILTER (WHERE p."has_feedback")::int AS with_feedback,
              count(*) FILTER (WHERE p."anchor_kind" = 'public_reply')::int AS anchor_public,
              count(*) FILTER (WHERE p."anchor_kind" = 'internal_comment')::int AS anchor_internal,
              count(*) FILTER (WHERE p."judge_review_requested")::int AS review,
              count(*) FILTER (WHERE p."verdict" = 'ai_better')::int AS v_ai_better,
              count(*) FILTER (WHERE p."verdict" = 'equivalent')::int AS v_equivalent,
              count(*) FILTER (WHERE p."verdict" = 'different_but_valid')::int AS v_different_but_valid,
              count(*) FILTER (WHERE p."verdict" = 'human_better')::int AS v_human_better,
              count(*) FILTER (WHERE p."verdict" = 'not_compared')::int AS v_not_compared,
              count(*) FILTER (WHERE p."verdict" IS NULL)::int AS v_unjudged
         FROM counted p`,
    bounds,
  );
  return summary;
}

/** The gaps the Judge named most often across the counted runs' evaluations (each gap once per run), at most `limit`. */
export async function topGaps(m: EntityManager, t: ReporterTables, bounds: PeriodBounds, limit: number): Promise<GapCount[]> {
  const gaps: GapCount[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT g.gap, count(*)::int AS count
         FROM counted p
         JOIN ${t.evaluations} e ON e."evaluation_id" = p."evaluation_id"
         CROSS JOIN LATERAL (
           SELECT DISTINCT btrim(x) AS gap FROM jsonb_array_elements_text(e."ai_gaps") AS x WHERE btrim(x) <> ''
         ) g
        GROUP BY g.gap
        ORDER BY count(*) DESC, g.gap COLLATE "C" ASC
        LIMIT $4`,
    [...bounds, limit],
  );
  return gaps;
}

/** Feedback comments on the counted runs by action (a comment counts once, however many runs it covers). */
export async function feedbackByAction(m: EntityManager, t: ReporterTables, bounds: PeriodBounds): Promise<FunnelCounts['feedbackByAction']> {
  const rows: { action: string; count: number }[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT f."action", count(DISTINCT (f."ticket_key", f."comment_id"))::int AS count
         FROM counted c JOIN ${t.answerFeedback} f ON f."run_id" = c."run_id"
        GROUP BY f."action"`,
    bounds,
  );
  const byAction = new Map(rows.map((f) => [f.action, f.count]));
  return {
    accept: byAction.get('accept') ?? 0,
    revise: byAction.get('revise') ?? 0,
    wrong: byAction.get('wrong') ?? 0,
    human: byAction.get('human') ?? 0,
  };
}

/** Counted runs that answered although their evidence was degraded or failed, on a provider other than `none`. */
export async function runtimeSignals(m: EntityManager, t: ReporterTables, bounds: PeriodBounds): Promise<RuntimeSignalRow[]> {
  const rows: RuntimeRow[] = await m.query(
    `WITH ${countedRunsSql(t)}
       SELECT c."run_id", c."ticket_key", c."published_at", x."evidence_status", x."failure_codes", c."verdict",
              ARRAY(SELECT DISTINCT pr COLLATE "C" FROM unnest(x."evidence_providers") AS pr WHERE pr <> 'none' ORDER BY 1) AS providers
         FROM counted c
         JOIN ${t.executions} x ON x."run_id" = c."run_id"
        WHERE x."response_status" = 'succeeded'
          AND x."evidence_status" IN ('degraded', 'failed')
          AND NOT (x."evidence_providers" <@ ARRAY['none']::text[])
        ORDER BY c."published_at", c."run_id" COLLATE "C"`,
    bounds,
  );
  return rows.map((r) => ({
    runId: r.run_id,
    ticketKey: r.ticket_key,
    provider: r.providers.join('+'),
    providers: r.providers,
    evidenceStatus: r.evidence_status,
    verdict: r.verdict,
    failureCodes: r.failure_codes,
    publishedAt: r.published_at.toISOString(),
  }));
}

/** What the quality report is made of, each figure as its query returned it. */
export interface QualityFigures {
  kind: 'daily' | 'weekly';
  period: ReportPeriod;
  tenant: string | null;
  generatedAt: Date;
  summary: SummaryRow;
  topGaps: GapCount[];
  feedbackByAction: FunnelCounts['feedbackByAction'];
  runtimeSignals: RuntimeSignalRow[];
  health: ProviderHealth;
  judgeCrossCheck: JudgeCrossCheckSummary;
}

/** Shapes the figures into the report the dashboard and the API serve. */
export function qualityReport(f: QualityFigures): QualityReport {
  const { summary } = f;
  const verdicts: VerdictCount[] = VERDICT_ORDER.map((verdict) => ({ verdict, count: summary[`v_${verdict}`] }));
  return {
    period: { kind: f.kind, from: f.period.from, to: f.period.to },
    tenant: f.tenant,
    generatedAt: f.generatedAt.toISOString(),
    runsCounted: summary.runs,
    quality: { good: summary.good, bad: summary.bad, unknown: summary.unknown },
    verdicts,
    topGaps: f.topGaps,
    runtimeSignals: f.runtimeSignals,
    providerHealth: f.health.providers,
    providerOverall: f.health.overall,
    funnel: {
      ticketsAnalysed: summary.tickets,
      runsPublished: summary.runs,
      answersWithHumanReply: summary.human_reply,
      answersJudged: summary.judged,
      answersWithFeedback: summary.with_feedback,
      feedbackByAction: f.feedbackByAction,
    },
    anchors: { publicReply: summary.anchor_public, internalComment: summary.anchor_internal },
    judgeReviewRequested: summary.review,
    judgeCrossCheck: f.judgeCrossCheck,
  };
}
