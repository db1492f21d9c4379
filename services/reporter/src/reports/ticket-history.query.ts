import type { Verdict } from '@aoc/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { isCountedRun, type ReporterTables } from '../reporter.tables';
import type { AnchorKind, AnswerVersionView, EvaluationRevisionView, TimelineCommentView } from './report.types';
import { storedEligibility } from './stored-eligibility';

/*
 * One ticket's history: every answer version the router published, with its evaluations and the
 * feedback bound to it, and the ticket's latest timeline. `ticketKey` is validated by the caller.
 */

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

interface EvaluationRow {
  evaluation_id: string;
  revision: number;
  verdict: Verdict;
  abstention_code: string | null;
  eligibility: string | null;
  judged_at: Date;
  target_comment_ids: string[];
  answer_fingerprint: string;
}

interface CommentRow {
  comment_id: string;
  author_role: string;
  visibility: string;
  visible_to_ai: boolean;
  is_feedback: boolean;
  created_at: Date;
  updated_at: Date;
  body: string;
}

/** The ticket's answer versions, oldest first, each with its evaluations (every revision) and feedback. */
export async function answerVersions(m: EntityManager, t: ReporterTables, ticketKey: string): Promise<AnswerVersionView[]> {
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
  const evaluations: EvaluationRow[] = await m.query(
    `SELECT "evaluation_id", "revision", "verdict", "abstention_code", "eligibility", "judged_at", "target_comment_ids", "answer_fingerprint"
       FROM ${t.evaluations} WHERE "ticket_key" = $1 ORDER BY "judged_at", "revision", "evaluation_id" COLLATE "C"`,
    [ticketKey],
  );
  const revisionsOf = (fingerprint: string): EvaluationRevisionView[] =>
    evaluations
      .filter((e) => e.answer_fingerprint === fingerprint)
      .map((e) => ({ evaluationId: e.evaluation_id, revision: e.revision, verdict: e.verdict, abstentionCode: e.abstention_code, eligibility: storedEligibility(e.verdict, e.abstention_code, e.eligibility), judgedAt: e.judged_at.toISOString(), humanCommentIds: e.target_comment_ids ?? [] }));
  const feedbackByRun = groupFeedback(feedback);
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

/** Feedback comments by the run they are bound to, in the order read. */
function groupFeedback(feedback: FeedbackRow[]): Map<string, AnswerVersionView['feedback']> {
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
  return feedbackByRun;
}

/** The ticket's latest timeline, oldest comment first. */
export async function ticketTimeline(dataSource: DataSource, t: ReporterTables, ticketKey: string): Promise<TimelineCommentView[]> {
  const rows: CommentRow[] = await dataSource.query(
    `SELECT "comment_id", "author_role", "visibility", "visible_to_ai", "is_feedback", "created_at", "updated_at", "body"
       FROM ${t.comments} WHERE "ticket_key" = $1 ORDER BY "position"`,
    [ticketKey],
  );
  return rows.map((r) => ({ commentId: r.comment_id, authorRole: r.author_role, visibility: r.visibility, visibleToAi: r.visible_to_ai, isFeedback: r.is_feedback, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(), body: r.body }));
}
