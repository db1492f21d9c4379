import { createHash } from 'node:crypto';
import { sameAnswerVersion } from '@aoc/answers';
import type { TimelineCommentV1 } from '@aoc/contracts';
import { bindFeedback, feedbackForAnswer, parseFeedbackCommand, type AnswerFeedback, type AnswerVersionRef, type FeedbackBinding } from '@aoc/feedback';
import { HumanRepliesV1, JudgeInputV1, PublishedAnswerV1, type JudgeTimelineCommentV1, type PreviousAnswerV1 } from './judge-input.schema';
import type { FrozenTicket, PublishedAnswer, TicketState } from './ticket-state';
import type { JudgeTrigger } from '../persistence/judge.entities';

/** The inputs of one judgment, fixed before the model is asked. */
export interface JudgmentPlan {
  /** Deterministic: run, fingerprint, digests of the human replies and review requests it judges. */
  evaluationId: string;
  answer: PublishedAnswer;
  trigger: JudgeTrigger;
  /** The input with the published answer as Answer 1 (the other order swaps the two). */
  input: JudgeInputV1;
  /** sha256 of `input`; a prepared result is reused only for the same digest. */
  inputDigest: string;
  /** Human replies after the anchor, by id (the judge picks the answer from them). */
  candidates: Map<string, TimelineCommentV1>;
  /** Feedback bound to this answer version (direct or inherited). */
  feedback: AnswerFeedback[];
  /** The previous version carried revise|wrong feedback the new version must address. */
  previousComplaint: boolean;
}

export interface TicketPlan {
  bindings: FeedbackBinding[];
  plans: JudgmentPlan[];
  /** Feedback per run (for the quality projection of every answer). */
  feedbackByRun: Map<string, AnswerFeedback[]>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Replays that wrote nothing were never shown to anyone: feedback cannot be about them. */
export function isDelivered(answer: PublishedAnswer): boolean {
  return answer.trigger !== 'replay' || answer.mode === 'write';
}

/** Human replies after this instant form the human answer: the cutoff for replays, else the publication. */
export function anchorOf(answer: PublishedAnswer): string {
  return answer.cutoff ?? answer.publishedAt;
}

const isCommand = (c: TimelineCommentV1) => parseFeedbackCommand(c.body) !== null;
const byTime = (a: TimelineCommentV1, b: TimelineCommentV1) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id);

/** The ordered public timeline the Judge sees: no internal notes, no /ao commands. */
export function publicTimeline(comments: readonly TimelineCommentV1[]): TimelineCommentV1[] {
  return comments.filter((c) => c.visibility === 'public' && !isCommand(c)).sort(byTime);
}

/** Internal Support notes after the anchor (no /ao commands): later internal work, for provenance. */
export function internalNotesAfter(comments: readonly TimelineCommentV1[], anchor: string): TimelineCommentV1[] {
  const at = Date.parse(anchor);
  return comments.filter((c) => c.visibility === 'internal' && !isCommand(c) && (c.authorRole === 'support' || c.authorRole === 'engineer') && Date.parse(c.createdAt) > at).sort(byTime);
}

/** Public Support replies after the anchor: where the human answer comes from. */
export function humanReplies(comments: readonly TimelineCommentV1[], anchor: string): TimelineCommentV1[] {
  const at = Date.parse(anchor);
  return publicTimeline(comments).filter((c) => (c.authorRole === 'support' || c.authorRole === 'engineer') && Date.parse(c.createdAt) > at);
}

const ref = (a: PublishedAnswer): AnswerVersionRef => ({ runId: a.runId, answerFingerprint: a.answerFingerprint, publishedAt: a.publishedAt });

const judgeComment = (c: TimelineCommentV1): JudgeTimelineCommentV1 => ({
  id: c.id,
  authorRole: c.authorRole,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  body: c.body,
  visibleToAi: c.visibleToAi,
});

export function evaluationIdOf(answer: PublishedAnswer, replies: readonly TimelineCommentV1[], reviewRequests: readonly AnswerFeedback[]): string {
  const basis = JSON.stringify({
    runId: answer.runId,
    fingerprint: answer.answerFingerprint,
    replies: replies.map((c) => `${c.id}:${sha256(c.body)}`).sort(),
    reviews: reviewRequests.map((f) => f.commentId).sort(),
  });
  return `eval-${sha256(basis).slice(0, 40)}`;
}

function previousAnswerOf(answer: PublishedAnswer, state: TicketState, bindings: FeedbackBinding[]): { previous: PreviousAnswerV1 | null; complaint: boolean } {
  if (answer.mode !== 'write') return { previous: null, complaint: false };
  const before = state.answers.filter((a) => isDelivered(a) && a.runId !== answer.runId && Date.parse(a.publishedAt) < Date.parse(answer.publishedAt));
  const previous = before[before.length - 1];
  if (!previous || sameAnswerVersion(previous.answerFingerprint, answer.answerFingerprint)) return { previous: null, complaint: false };
  const feedback = feedbackForAnswer(bindings, ref(previous), state.answers.map(ref));
  const latest = [...feedback].sort((a, b) => Date.parse(a.commentUpdatedAt) - Date.parse(b.commentUpdatedAt) || Date.parse(a.commentCreatedAt) - Date.parse(b.commentCreatedAt))[feedback.length - 1];
  return {
    previous: {
      runId: previous.runId,
      publishedAt: previous.publishedAt,
      customerReplyMarkdown: previous.customerReplyMarkdown,
      internalHandoffMarkdown: previous.internalHandoffMarkdown,
      decision: previous.decision,
      latestFeedback: latest ? { action: latest.action, reason: latest.reason, commentId: latest.commentId } : null,
    },
    complaint: latest !== undefined && (latest.action === 'revise' || latest.action === 'wrong'),
  };
}

function ticketInput(ticket: FrozenTicket): JudgeInputV1['ticket'] {
  return {
    key: ticket.ticketKey,
    title: ticket.title,
    description: ticket.description,
    reporterRole: ticket.reporterRole,
    createdAt: ticket.ticketCreatedAt,
    labels: ticket.labels,
    comments: ticket.comments.map((c) => ({ id: c.id, authorRole: c.authorRole, createdAt: c.createdAt, body: c.body })),
  };
}

/**
 * Decides what to judge for a ticket. An answer version is judged once its frozen ticket is
 * known and either a public Support reply exists after its anchor (never automatically for
 * `continuation` runs) or a trusted `/ao human` bound to it asks for a review. A changed human
 * answer (edited or new reply) or a new review request gives a new evaluation id; an id already
 * published, or one the model could not answer, is not planned again.
 */
export function planJudgments(state: TicketState): TicketPlan {
  const comments = state.timeline?.comments ?? [];
  const delivered = state.answers.filter(isDelivered);
  const { bindings } = bindFeedback(state.bindings, comments, delivered.map(ref));
  const allRefs = state.answers.map(ref);
  const feedbackByRun = new Map<string, AnswerFeedback[]>();
  const plans: JudgmentPlan[] = [];
  for (const answer of state.answers) {
    const feedback = feedbackForAnswer(bindings, ref(answer), allRefs);
    feedbackByRun.set(answer.runId, feedback);
    const ticket = state.tickets.get(answer.runId);
    if (!ticket || state.timeline === null) continue;
    const anchor = anchorOf(answer);
    const replies = humanReplies(comments, anchor);
    const reviews = feedback.filter((f) => f.action === 'human');
    const byReply = replies.length > 0 && answer.trigger !== 'continuation';
    if (!byReply && reviews.length === 0) continue;
    const evaluationId = evaluationIdOf(answer, replies, reviews);
    if (state.evaluated.has(evaluationId) || state.blocked.has(evaluationId)) continue;
    const { previous, complaint } = previousAnswerOf(answer, state, bindings);
    const published = PublishedAnswerV1.parse({
      kind: 'published_answer',
      customerReplyMarkdown: answer.customerReplyMarkdown,
      internalHandoffMarkdown: answer.internalHandoffMarkdown,
      decision: answer.decision,
      publishedAt: answer.publishedAt,
      requestedContext: answer.requestedContext,
    });
    const human = HumanRepliesV1.parse({ kind: 'human_replies', comments: replies.slice(0, 100).map(judgeComment) });
    const input = JudgeInputV1.parse({
      schema: 'judge-input.v1',
      ticket: ticketInput(ticket),
      run: { runId: answer.runId, mode: answer.mode, trigger: answer.trigger, cutoff: answer.cutoff },
      anchor,
      answer1: published,
      answer2: human,
      timeline: publicTimeline(comments).slice(0, 500).map(judgeComment),
      internalNotes: internalNotesAfter(comments, anchor).slice(-100).map(judgeComment),
      feedback: feedback.slice(-50).map((f) => ({
        commentId: f.commentId,
        action: f.action,
        reason: f.reason,
        authorRole: f.authorRole,
        visibility: f.visibility,
        commentCreatedAt: f.commentCreatedAt,
        commentUpdatedAt: f.commentUpdatedAt,
        inherited: f.inherited,
      })),
      previousAnswer: previous,
    });
    plans.push({
      evaluationId,
      answer,
      trigger: byReply ? 'human_answer' : 'review_requested',
      input,
      inputDigest: sha256(JSON.stringify(input)),
      candidates: new Map(replies.map((c) => [c.id, c])),
      feedback,
      previousComplaint: complaint,
    });
  }
  return { bindings, plans, feedbackByRun };
}
