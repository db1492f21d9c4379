import type { TimelineCommentV1, Verdict } from '@aoc/contracts';
import { bindFeedback, feedbackForAnswer, qualityProjection, type AnswerVersionRef, type FeedbackAction, type FeedbackBinding } from '@aoc/feedback';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { countedRunSql, ReporterTables } from '../reporter.tables';

interface RunRow {
  run_id: string;
  answer_fingerprint: string;
  published_at: Date;
  trigger: string;
  mode: string;
}

interface FeedbackVersionRow {
  comment_id: string;
  author_role: TimelineCommentV1['authorRole'];
  visibility: TimelineCommentV1['visibility'];
  created_at: Date;
  updated_at: Date;
  body: string;
  visible_to_ai: boolean;
}

interface BindingRow {
  comment_id: string;
  run_id: string;
  answer_fingerprint: string;
  action: FeedbackAction;
  reason: string;
  comment_created_at: Date;
  comment_updated_at: Date;
  author_role: string;
  visibility: 'public' | 'internal';
}

/** What JavaScript contributes to a run's projection row (the rest is derived in SQL). */
interface ProjectionInput {
  run_id: string;
  evaluation_id: string | null;
  verdict: Verdict | null;
  quality_score: 0 | 1 | null;
  quality_source: 'feedback' | 'judge' | 'none';
  judge_review_requested: boolean;
}

interface AppliedFeedbackInput {
  run_id: string;
  comment_id: string;
  action: FeedbackAction;
  inherited: boolean;
}

interface LatestEvaluationRow {
  answer_fingerprint: string;
  evaluation_id: string;
  verdict: Verdict;
}

/**
 * A read-mode replay writes nothing to the ticket: nobody can react to it with /ao, it owns no
 * comment and it is not a production answer. Every other run is an answer version on the ticket.
 */
export function isWrittenAnswer(run: { trigger: string; mode: string }): boolean {
  return !(run.trigger === 'replay' && run.mode === 'read');
}

/** Same order as @aoc/feedback uses for answers: publication time, then run id, then fingerprint. */
function compareAnswers(a: AnswerVersionRef, b: AnswerVersionRef): number {
  const x = Date.parse(a.publishedAt);
  const y = Date.parse(b.publishedAt);
  if (x !== y) return x < y ? -1 : 1;
  if (a.runId !== b.runId) return a.runId < b.runId ? -1 : 1;
  return a.answerFingerprint === b.answerFingerprint ? 0 : a.answerFingerprint < b.answerFingerprint ? -1 : 1;
}

/**
 * Recomputes, for one ticket, everything that depends on several topics at once: feedback
 * bindings, the feedback each run's answer version carries (direct or inherited), the latest
 * evaluation of each answer version, the quality projection, the comparison anchor and the first
 * human reply after it. It reads only the reporter's stored facts, so the result depends on what
 * has arrived, never on the order it arrived in. Callers hold the ticket lock (`lockTicket`).
 */
@Injectable()
export class ProjectAnswersHandler {
  constructor(private readonly t: ReporterTables) {}

  /** Serialises the ticket's handlers (any topic, any replica) until the transaction ends. */
  async lockTicket(m: EntityManager, ticketKey: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${this.t.schema}.ticket:${ticketKey}`]);
  }

  async refresh(m: EntityManager, ticketKey: string): Promise<void> {
    const runs: RunRow[] = await m.query(
      `SELECT "run_id", "answer_fingerprint", "published_at", "trigger", "mode" FROM ${this.t.runs} WHERE "ticket_key" = $1 ORDER BY "published_at", "run_id"`,
      [ticketKey],
    );
    const refOf = (r: RunRow): AnswerVersionRef => ({ runId: r.run_id, answerFingerprint: r.answer_fingerprint, publishedAt: r.published_at.toISOString() });
    const written = runs.filter(isWrittenAnswer).map(refOf);

    const bindings = await this.rebind(m, ticketKey, written);

    const latest: LatestEvaluationRow[] = await m.query(
      `SELECT DISTINCT ON ("answer_fingerprint") "answer_fingerprint", "evaluation_id", "verdict"
         FROM ${this.t.evaluations} WHERE "ticket_key" = $1
        ORDER BY "answer_fingerprint", "judged_at" DESC, "evaluation_id" COLLATE "C" DESC`,
      [ticketKey],
    );
    const latestByVersion = new Map(latest.map((e) => [e.answer_fingerprint, e]));

    const projections: ProjectionInput[] = [];
    const applied: AppliedFeedbackInput[] = [];
    for (const run of runs) {
      const ref = refOf(run);
      const evaluation = latestByVersion.get(run.answer_fingerprint) ?? null;
      const feedback = feedbackForAnswer(bindings, ref, written);
      const quality = qualityProjection(feedback, evaluation?.verdict ?? null);
      projections.push({
        run_id: run.run_id,
        evaluation_id: evaluation?.evaluation_id ?? null,
        verdict: evaluation?.verdict ?? null,
        quality_score: quality.score,
        quality_source: quality.source,
        judge_review_requested: quality.judgeReviewRequested,
      });
      for (const f of feedback) applied.push({ run_id: run.run_id, comment_id: f.commentId, action: f.action, inherited: f.inherited });
    }

    await m.query(`DELETE FROM ${this.t.projections} WHERE "ticket_key" = $1`, [ticketKey]);
    await m.query(`DELETE FROM ${this.t.answerFeedback} WHERE "ticket_key" = $1`, [ticketKey]);
    if (applied.length > 0) {
      await m.query(
        `INSERT INTO ${this.t.answerFeedback} ("run_id", "comment_id", "ticket_key", "action", "inherited")
         SELECT j."run_id", j."comment_id", $1, j."action", j."inherited"
           FROM jsonb_to_recordset($2::jsonb) AS j("run_id" text, "comment_id" text, "action" text, "inherited" boolean)`,
        [ticketKey, JSON.stringify(applied)],
      );
    }
    if (projections.length > 0) await this.insertProjections(m, ticketKey, projections);
  }

  /**
   * Binds /ao feedback with @aoc/feedback. Stored bindings are passed back so that a binding never
   * moves when its comment is edited; a stored binding is dropped (and bound again) only when an
   * answer published after its run and before the comment has arrived since: it was made before
   * the reporter knew every answer that preceded the comment, and delivery order must not decide it.
   */
  private async rebind(m: EntityManager, ticketKey: string, written: AnswerVersionRef[]): Promise<FeedbackBinding[]> {
    const stored: BindingRow[] = await m.query(`SELECT * FROM ${this.t.bindings} WHERE "ticket_key" = $1`, [ticketKey]);
    const versions: FeedbackVersionRow[] = await m.query(
      `SELECT "comment_id", "author_role", "visibility", "created_at", "updated_at", "body", "visible_to_ai"
         FROM ${this.t.feedbackVersions} WHERE "ticket_key" = $1`,
      [ticketKey],
    );
    if (stored.length === 0 && versions.length === 0) return [];

    const byRun = new Map(written.map((a) => [a.runId, a]));
    const settled = stored
      .map(
        (b): FeedbackBinding => ({
          commentId: b.comment_id,
          runId: b.run_id,
          answerFingerprint: b.answer_fingerprint,
          action: b.action,
          reason: b.reason,
          commentCreatedAt: b.comment_created_at.toISOString(),
          commentUpdatedAt: b.comment_updated_at.toISOString(),
          authorRole: b.author_role,
          visibility: b.visibility,
        }),
      )
      .filter((b) => {
        const bound = byRun.get(b.runId);
        if (bound === undefined) return false;
        const created = Date.parse(b.commentCreatedAt);
        return !written.some((a) => compareAnswers(a, bound) > 0 && Date.parse(a.publishedAt) < created);
      });
    const comments: TimelineCommentV1[] = versions.map((v) => ({
      id: v.comment_id,
      authorRole: v.author_role,
      visibility: v.visibility,
      createdAt: v.created_at.toISOString(),
      updatedAt: v.updated_at.toISOString(),
      body: v.body,
      visibleToAi: v.visible_to_ai,
      feedback: null,
    }));
    const { bindings } = bindFeedback(settled, comments, written);

    await m.query(`DELETE FROM ${this.t.bindings} WHERE "ticket_key" = $1`, [ticketKey]);
    if (bindings.length > 0) {
      await m.query(
        `INSERT INTO ${this.t.bindings}
           ("ticket_key", "comment_id", "run_id", "answer_fingerprint", "action", "reason", "comment_created_at", "comment_updated_at", "author_role", "visibility")
         SELECT $1, j."commentId", j."runId", j."answerFingerprint", j."action", j."reason",
                j."commentCreatedAt"::timestamptz, j."commentUpdatedAt"::timestamptz, j."authorRole", j."visibility"
           FROM jsonb_to_recordset($2::jsonb) AS j("commentId" text, "runId" text, "answerFingerprint" text, "action" text, "reason" text,
                "commentCreatedAt" text, "commentUpdatedAt" text, "authorRole" text, "visibility" text)`,
        [ticketKey, JSON.stringify(bindings)],
      );
    }
    return bindings;
  }

  /**
   * Anchor (derived from recorded facts only):
   * - `none`: a read-mode replay, written nowhere;
   * - `public_reply`: a public comment by the bot created at or after the run's publication and
   *   before the next written answer of the ticket: the customer reply was written publicly;
   *   anchored at that comment;
   * - `internal_comment`: otherwise; the answer lives in the internal comment (mode=write writes
   *   or updates it at publication), anchored at the publication.
   * The human reply is the first public Support comment after the anchor that is not an /ao command.
   */
  private async insertProjections(m: EntityManager, ticketKey: string, rows: ProjectionInput[]): Promise<void> {
    await m.query(
      `INSERT INTO ${this.t.projections}
         ("run_id", "ticket_key", "tenant", "published_at", "counted", "anchor_kind", "anchor_at", "human_reply_at", "evaluation_id", "verdict", "quality_score",
          "quality_source", "judge_review_requested", "has_feedback")
       SELECT r."run_id", r."ticket_key", r."tenant", r."published_at", ${countedRunSql('r')}, a.kind, a.at, h.at,
              j."evaluation_id", j."verdict", j."quality_score", j."quality_source", j."judge_review_requested",
              EXISTS (SELECT 1 FROM ${this.t.answerFeedback} f WHERE f."run_id" = r."run_id")
         FROM jsonb_to_recordset($2::jsonb) AS j("run_id" text, "evaluation_id" text, "verdict" text, "quality_score" smallint,
              "quality_source" text, "judge_review_requested" boolean)
         JOIN ${this.t.runs} r ON r."run_id" = j."run_id" AND r."ticket_key" = $1
         CROSS JOIN LATERAL (SELECT (r."trigger" = 'replay' AND r."mode" = 'read') AS unwritten) w
         LEFT JOIN LATERAL (
           SELECT n."published_at" FROM ${this.t.runs} n
            WHERE n."ticket_key" = r."ticket_key" AND NOT (n."trigger" = 'replay' AND n."mode" = 'read')
              AND (n."published_at", n."run_id" COLLATE "C") > (r."published_at", r."run_id" COLLATE "C")
            ORDER BY n."published_at", n."run_id" COLLATE "C" LIMIT 1
         ) nx ON true
         LEFT JOIN LATERAL (
           SELECT c."created_at" FROM ${this.t.comments} c
            WHERE c."ticket_key" = r."ticket_key" AND c."author_role" = 'bot' AND c."visibility" = 'public'
              AND c."created_at" >= r."published_at" AND (nx."published_at" IS NULL OR c."created_at" < nx."published_at")
            ORDER BY c."created_at", c."comment_id" COLLATE "C" LIMIT 1
         ) pub ON NOT w.unwritten
         CROSS JOIN LATERAL (
           SELECT CASE WHEN w.unwritten THEN 'none' WHEN pub."created_at" IS NOT NULL THEN 'public_reply' ELSE 'internal_comment' END AS kind,
                  CASE WHEN w.unwritten THEN NULL ELSE coalesce(pub."created_at", r."published_at") END AS at
         ) a
         LEFT JOIN LATERAL (
           SELECT min(c."created_at") AS at FROM ${this.t.comments} c
            WHERE c."ticket_key" = r."ticket_key" AND c."author_role" = 'support' AND c."visibility" = 'public'
              AND NOT c."is_feedback" AND c."created_at" > a.at
         ) h ON true`,
      [ticketKey, JSON.stringify(rows)],
    );
  }
}
