import { TicketKey, Verdict as VerdictSchema, type Verdict } from '@aoc/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { isCountedRun, ReporterTables } from '../reporter.tables';
import { storedEligibility } from './stored-eligibility';
import { dailyParams, healthParams, InvalidReportParamError, periodOf, weeklyParams, addDays, type ReportPeriod } from './report-period';
import type {
  AnchorKind,
  AnswerVersionView,
  EvaluationRevisionView,
  GapCount,
  JudgeCrossCheckSummary,
  ProviderDayHealth,
  ProviderDayOverall,
  QualityReport,
  ReportsReader,
  RuntimeSignalRow,
  TimelineCommentView,
  ShanghaiDate,
  VerdictCount,
  Weekly5xxRow,
  WeeklyReport,
} from './report.types';

export interface SqlReportsReaderOptions {
  /** Clock for `generatedAt`. */
  now?: () => Date;
  /** How many gaps `topGaps` lists. */
  topGaps?: number;
}

/** How many cross-check disagreements a report lists (the count covers all of them). */
export const DISAGREEMENTS_LISTED = 100;

/** Verdicts in the order reports list them; counts of zero are listed too. */
const VERDICT_ORDER: readonly (Verdict | 'unjudged')[] = [...VerdictSchema.options, 'unjudged'];

/**
 * Counted runs of a period: triggers initial and bot_assignment only (the `counted` flag of the
 * per-run projection), published inside the period. `continuation` (a follow-up on a ticket
 * already answered) and `replay` (not a production run) are excluded from every number of a
 * report. $1/$2 are the period's instants; served by the partial index reporter_projections_counted_idx.
 */
/** `$n` is the tenant the figures cover, or NULL for every tenant (constants only, no input). */
function tenantFilterSql(column: string, param: string): string {
  return `(${param}::text IS NULL OR ${column} = ${param}::text)`;
}

/** A provider fact belongs to the tenant of its run. */
function runOfTenantSql(t: ReporterTables, alias: string, param: string): string {
  return `(${param}::text IS NULL OR ${alias}."run_id" IN (SELECT r."run_id" FROM ${t.runs} r WHERE r."tenant" = ${param}::text))`;
}

export function countedRunsSql(t: ReporterTables): string {
  return `counted AS (
    SELECT p.* FROM ${t.projections} p
     WHERE p."counted" AND p."published_at" >= $1 AND p."published_at" < $2 AND ${tenantFilterSql('p."tenant"', '$3')}
  )`;
}

interface SummaryRow {
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

interface HealthRow {
  /** The all-providers row of a day (GROUPING SETS), else one provider's row. */
  overall: boolean;
  day: string;
  provider: string | null;
  queries: number;
  succeeded: number;
  failed: number;
  success_rate: number | null;
  s_queries: number;
  s_succeeded: number;
  s_failed: number;
  h200: number;
  h400: number;
  h500: number;
  h502: number;
  hother: number;
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

interface AnswerRow {
  run_id: string;
  ticket_key: string;
  answer_fingerprint: string;
  published_at: Date;
  trigger: string;
  decision: string;
  mode: string;
  customer_reply: string;
  internal_handoff: string;
  anchor_kind: AnchorKind | null;
  anchor_at: Date | null;
  human_reply_at: Date | null;
  evaluation_id: string | null;
  verdict: Verdict | null;
  verdict_reason: string | null;
  abstention_code: string | null;
  ai_gaps: string[] | null;
  quality_score: number | null;
  quality_source: 'feedback' | 'judge' | 'none' | null;
  judge_review_requested: boolean | null;
  evidence_status: string | null;
}

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

interface FeedbackRow {
  run_id: string;
  comment_id: string;
  action: string;
  inherited: boolean;
  reason: string;
  bound_run_id: string;
  author_role: string;
  visibility: string;
  comment_created_at: Date;
  comment_updated_at: Date;
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
    return this.snapshot(async (m) => ({ ...(await this.quality(m, 'weekly', period, tenant)), provider5xx: await this.provider5xx(m, period, tenant) }));
  }

  async providerHealth(from: ShanghaiDate, to: ShanghaiDate, tenant: string | null = null): Promise<ProviderDayHealth[]> {
    const params = healthParams(from, to);
    return this.snapshot(async (m) => (await this.health(m, periodOf(params.from, params.to), tenant)).providers);
  }

  async answerVersions(ticketKey: string): Promise<AnswerVersionView[]> {
    const parsed = TicketKey.safeParse(ticketKey);
    if (!parsed.success) throw new InvalidReportParamError('ticketKey', parsed.error.issues[0]?.message ?? 'is invalid');
    return this.snapshot((m) => this.answers(m, parsed.data));
  }

  async ticketTimeline(ticketKey: string): Promise<TimelineCommentView[]> {
    const parsed = TicketKey.safeParse(ticketKey);
    if (!parsed.success) throw new InvalidReportParamError('ticketKey', parsed.error.issues[0]?.message ?? 'is invalid');
    const rows: { comment_id: string; author_role: string; visibility: string; visible_to_ai: boolean; is_feedback: boolean; created_at: Date; updated_at: Date; body: string }[] = await this.dataSource.query(
      `SELECT "comment_id", "author_role", "visibility", "visible_to_ai", "is_feedback", "created_at", "updated_at", "body"
         FROM ${this.t.comments} WHERE "ticket_key" = $1 ORDER BY "position"`,
      [parsed.data],
    );
    return rows.map((r) => ({ commentId: r.comment_id, authorRole: r.author_role, visibility: r.visibility, visibleToAi: r.visible_to_ai, isFeedback: r.is_feedback, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(), body: r.body }));
  }

  private snapshot<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('REPEATABLE READ', work);
  }

  private async quality(m: EntityManager, kind: 'daily' | 'weekly', period: ReportPeriod, tenant: string | null): Promise<QualityReport> {
    const bounds = [period.startsAt.toISOString(), period.endsBefore.toISOString(), tenant];
    const t = this.t;
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
    const topGaps: GapCount[] = await m.query(
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
      [...bounds, this.topGapLimit],
    );
    const feedbackRows: { action: string; count: number }[] = await m.query(
      `WITH ${countedRunsSql(t)}
       SELECT f."action", count(DISTINCT (f."ticket_key", f."comment_id"))::int AS count
         FROM counted c JOIN ${t.answerFeedback} f ON f."run_id" = c."run_id"
        GROUP BY f."action"`,
      bounds,
    );
    const runtime: RuntimeRow[] = await m.query(
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
    const health = await this.health(m, period, tenant);
    const judgeCrossCheck = await this.crossChecks(m, bounds);
    const byAction = new Map(feedbackRows.map((f) => [f.action, f.count]));
    const verdicts: VerdictCount[] = VERDICT_ORDER.map((verdict) => ({ verdict, count: summary[`v_${verdict}`] }));
    const runtimeSignals: RuntimeSignalRow[] = runtime.map((r) => ({
      runId: r.run_id,
      ticketKey: r.ticket_key,
      provider: r.providers.join('+'),
      providers: r.providers,
      evidenceStatus: r.evidence_status,
      verdict: r.verdict,
      failureCodes: r.failure_codes,
      publishedAt: r.published_at.toISOString(),
    }));
    return {
      period: { kind, from: period.from, to: period.to },
      tenant,
      generatedAt: this.now().toISOString(),
      runsCounted: summary.runs,
      quality: { good: summary.good, bad: summary.bad, unknown: summary.unknown },
      verdicts,
      topGaps,
      runtimeSignals,
      providerHealth: health.providers,
      providerOverall: health.overall,
      funnel: {
        ticketsAnalysed: summary.tickets,
        runsPublished: summary.runs,
        answersWithHumanReply: summary.human_reply,
        answersJudged: summary.judged,
        answersWithFeedback: summary.with_feedback,
        feedbackByAction: {
          accept: byAction.get('accept') ?? 0,
          revise: byAction.get('revise') ?? 0,
          wrong: byAction.get('wrong') ?? 0,
          human: byAction.get('human') ?? 0,
        },
      },
      anchors: { publicReply: summary.anchor_public, internalComment: summary.anchor_internal },
      judgeReviewRequested: summary.review,
      judgeCrossCheck,
    };
  }

  /**
   * The model judge's cross-checks of the counted runs' current evaluations (the one the verdict
   * counts come from), decided ones only: how many were cross-checked, how many it disagreed with
   * (a different verdict; a model abstention is none), and those listed. Codes only: verdicts,
   * engine and the built-in rule, never texts. `bounds` is the period and tenant of the report.
   */
  private async crossChecks(m: EntityManager, bounds: unknown[]): Promise<JudgeCrossCheckSummary> {
    const t = this.t;
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

  /**
   * Logical provider calls per Shanghai day and provider: complete|empty succeed, failed fails;
   * supplemental queries are counted apart and stay out of the success rate. HTTP attempts are
   * counted by status class on their own and never enter the logical denominator. One scan of the
   * query events also yields the per-day overall (GROUPING SETS), weighted by logical queries.
   */
  private async health(m: EntityManager, period: ReportPeriod, tenant: string | null): Promise<{ providers: ProviderDayHealth[]; overall: ProviderDayOverall[] }> {
    const t = this.t;
    const rows: HealthRow[] = await m.query(
      `WITH q AS (
         SELECT e."day", e."provider", GROUPING(e."provider") = 1 AS overall,
                count(*) FILTER (WHERE NOT e."supplemental") AS queries,
                count(*) FILTER (WHERE NOT e."supplemental" AND e."outcome" IN ('complete', 'empty')) AS succeeded,
                count(*) FILTER (WHERE NOT e."supplemental" AND e."outcome" = 'failed') AS failed,
                count(*) FILTER (WHERE e."supplemental") AS s_queries,
                count(*) FILTER (WHERE e."supplemental" AND e."outcome" IN ('complete', 'empty')) AS s_succeeded,
                count(*) FILTER (WHERE e."supplemental" AND e."outcome" = 'failed') AS s_failed
           FROM ${t.queryEvents} e
          WHERE e."counted" AND e."day" >= $1::date AND e."day" < $2::date AND ${runOfTenantSql(t, 'e', '$3')}
          GROUP BY GROUPING SETS ((e."day", e."provider"), (e."day"))
       ), h AS (
         SELECT a."day", a."provider",
                count(*) FILTER (WHERE a."status_class" = '200') AS h200,
                count(*) FILTER (WHERE a."status_class" = '400') AS h400,
                count(*) FILTER (WHERE a."status_class" = '500') AS h500,
                count(*) FILTER (WHERE a."status_class" = '502') AS h502,
                count(*) FILTER (WHERE a."status_class" NOT IN ('200', '400', '500', '502')) AS hother
           FROM ${t.httpAttempts} a
          WHERE a."counted" AND a."day" >= $1::date AND a."day" < $2::date AND ${runOfTenantSql(t, 'a', '$3')}
          GROUP BY a."day", a."provider"
       )
       SELECT * FROM (
         SELECT false AS overall, to_char(coalesce(q."day", h."day"), 'YYYY-MM-DD') AS day,
                coalesce(q."provider", h."provider") AS provider,
                coalesce(q.queries, 0)::int AS queries,
                coalesce(q.succeeded, 0)::int AS succeeded,
                coalesce(q.failed, 0)::int AS failed,
                CASE WHEN coalesce(q.queries, 0) > 0 THEN q.succeeded::float8 / q.queries END AS success_rate,
                coalesce(q.s_queries, 0)::int AS s_queries,
                coalesce(q.s_succeeded, 0)::int AS s_succeeded,
                coalesce(q.s_failed, 0)::int AS s_failed,
                coalesce(h.h200, 0)::int AS h200,
                coalesce(h.h400, 0)::int AS h400,
                coalesce(h.h500, 0)::int AS h500,
                coalesce(h.h502, 0)::int AS h502,
                coalesce(h.hother, 0)::int AS hother
           FROM (SELECT * FROM q WHERE NOT q.overall) q
           FULL JOIN h ON h."day" = q."day" AND h."provider" = q."provider"
         UNION ALL
         SELECT true, to_char(q."day", 'YYYY-MM-DD'), NULL, q.queries::int, q.succeeded::int, q.failed::int,
                q.succeeded::float8 / q.queries, 0, 0, 0, 0, 0, 0, 0, 0
           FROM q WHERE q.overall AND q.queries > 0
       ) z
       ORDER BY z.overall, z.day, z.provider COLLATE "C"`,
      [period.from, period.dayAfter, tenant],
    );
    return {
      providers: rows
        .filter((r) => !r.overall)
        .map((r) => ({
          day: r.day,
          provider: r.provider ?? '',
          queries: r.queries,
          succeeded: r.succeeded,
          failed: r.failed,
          successRate: r.success_rate,
          http: { status200: r.h200, status400: r.h400, status500: r.h500, status502: r.h502, other: r.hother },
          supplemental: { queries: r.s_queries, succeeded: r.s_succeeded, failed: r.s_failed },
        })),
      overall: rows
        .filter((r) => r.overall)
        .map((r) => ({ day: r.day, queries: r.queries, succeeded: r.succeeded, failed: r.failed, successRate: r.success_rate })),
    };
  }

  /** Provider 5xx episodes of the week per provider and query: recovered vs still failed after retries. */
  private async provider5xx(m: EntityManager, period: ReportPeriod, tenant: string | null): Promise<Weekly5xxRow[]> {
    const t = this.t;
    const rows: {
      provider: string;
      query_id: string;
      episodes: number;
      recovered: number;
      still_failed: number;
      tickets: string[];
      max_attempts: number;
      upstream_errors: string[];
      request_ids: string[];
    }[] = await m.query(
      `SELECT s."provider", s."query_id",
              count(*)::int AS episodes,
              count(*) FILTER (WHERE s."result" = 'recovered')::int AS recovered,
              count(*) FILTER (WHERE s."result" = 'failed')::int AS still_failed,
              array_agg(DISTINCT s."ticket_key" COLLATE "C" ORDER BY s."ticket_key" COLLATE "C") AS tickets,
              max(cardinality(s."status_sequence"))::int AS max_attempts,
              coalesce(array_agg(DISTINCT s."upstream_error" COLLATE "C" ORDER BY s."upstream_error" COLLATE "C") FILTER (WHERE s."upstream_error" <> ''), '{}') AS upstream_errors,
              coalesce(array_agg(DISTINCT s."request_id" COLLATE "C" ORDER BY s."request_id" COLLATE "C") FILTER (WHERE coalesce(s."request_id", '') <> ''), '{}') AS request_ids
         FROM ${t.systemEvents} s
        WHERE s."counted" AND s."day" >= $1::date AND s."day" < $2::date AND ${runOfTenantSql(t, 's', '$3')}
        GROUP BY s."provider", s."query_id"
        ORDER BY episodes DESC, s."provider" COLLATE "C", s."query_id" COLLATE "C"`,
      [period.from, period.dayAfter, tenant],
    );
    return rows.map((r) => ({
      provider: r.provider,
      queryId: r.query_id,
      episodes: r.episodes,
      recovered: r.recovered,
      stillFailed: r.still_failed,
      tickets: r.tickets,
      maxAttempts: r.max_attempts,
      upstreamErrors: r.upstream_errors,
      requestIds: r.request_ids,
    }));
  }

  private async answers(m: EntityManager, ticketKey: string): Promise<AnswerVersionView[]> {
    const t = this.t;
    const rows: AnswerRow[] = await m.query(
      `SELECT r."run_id", r."ticket_key", r."answer_fingerprint", r."published_at", r."trigger", r."decision", r."mode",
              r."customer_reply", r."internal_handoff",
              p."anchor_kind", p."anchor_at", p."human_reply_at", p."evaluation_id", p."verdict",
              e."verdict_reason", e."ai_gaps", e."abstention_code",
              p."quality_score", p."quality_source", p."judge_review_requested",
              x."evidence_status"
         FROM ${t.runs} r
         LEFT JOIN ${t.projections} p ON p."run_id" = r."run_id"
         LEFT JOIN ${t.evaluations} e ON e."evaluation_id" = p."evaluation_id"
         LEFT JOIN ${t.executions} x ON x."run_id" = r."run_id"
        WHERE r."ticket_key" = $1
        ORDER BY r."published_at", r."run_id" COLLATE "C"`,
      [ticketKey],
    );
    const feedback: FeedbackRow[] = await m.query(
      `SELECT f."run_id", f."comment_id", f."action", f."inherited", b."reason", b."run_id" AS bound_run_id,
              b."author_role", b."visibility", b."comment_created_at", b."comment_updated_at"
         FROM ${t.answerFeedback} f
         JOIN ${t.bindings} b ON b."ticket_key" = f."ticket_key" AND b."comment_id" = f."comment_id"
        WHERE f."ticket_key" = $1
        ORDER BY b."comment_created_at", f."comment_id" COLLATE "C"`,
      [ticketKey],
    );
    const evaluations: { evaluation_id: string; revision: number; verdict: Verdict; abstention_code: string | null; eligibility: string | null; judged_at: Date; target_comment_ids: string[]; answer_fingerprint: string }[] = await m.query(
      `SELECT "evaluation_id", "revision", "verdict", "abstention_code", "eligibility", "judged_at", "target_comment_ids", "answer_fingerprint"
         FROM ${t.evaluations} WHERE "ticket_key" = $1 ORDER BY "judged_at", "revision", "evaluation_id" COLLATE "C"`,
      [ticketKey],
    );
    const revisionsOf = (fingerprint: string): EvaluationRevisionView[] =>
      evaluations
        .filter((e) => e.answer_fingerprint === fingerprint)
        .map((e) => ({ evaluationId: e.evaluation_id, revision: e.revision, verdict: e.verdict, abstentionCode: e.abstention_code, eligibility: storedEligibility(e.verdict, e.abstention_code, e.eligibility), judgedAt: e.judged_at.toISOString(), humanCommentIds: e.target_comment_ids ?? [] }));
    const feedbackByRun = new Map<string, AnswerVersionView['feedback']>();
    for (const f of feedback) {
      const list = feedbackByRun.get(f.run_id) ?? [];
      list.push({
        commentId: f.comment_id,
        action: f.action,
        reason: f.reason,
        inherited: f.inherited,
        boundRunId: f.bound_run_id,
        authorRole: f.author_role,
        visibility: f.visibility,
        commentCreatedAt: f.comment_created_at.toISOString(),
        commentUpdatedAt: f.comment_updated_at.toISOString(),
      });
      feedbackByRun.set(f.run_id, list);
    }
    return rows.map((r) => ({
      runId: r.run_id,
      ticketKey: r.ticket_key,
      answerFingerprint: r.answer_fingerprint,
      publishedAt: r.published_at.toISOString(),
      trigger: r.trigger,
      decision: r.decision,
      customerReplyMarkdown: r.customer_reply,
      internalHandoffMarkdown: r.internal_handoff,
      verdict: r.verdict,
      verdictReason: r.verdict_reason,
      abstentionCode: r.abstention_code,
      evaluations: revisionsOf(r.answer_fingerprint),
      feedback: feedbackByRun.get(r.run_id) ?? [],
      mode: r.mode,
      counted: isCountedRun({ trigger: r.trigger, ticketKey: r.ticket_key }),
      anchor: { kind: r.anchor_kind ?? 'none', at: r.anchor_at?.toISOString() ?? null },
      humanReplyAt: r.human_reply_at?.toISOString() ?? null,
      evaluationId: r.evaluation_id,
      aiGaps: r.ai_gaps ?? [],
      quality: {
        score: r.quality_score === 0 || r.quality_score === 1 ? r.quality_score : null,
        source: r.quality_source ?? 'none',
        judgeReviewRequested: r.judge_review_requested ?? false,
      },
      evidenceStatus: r.evidence_status,
    }));
  }
}
