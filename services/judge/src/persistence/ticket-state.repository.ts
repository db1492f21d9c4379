import type { Verdict } from '@aoc/contracts';
import type { FeedbackBinding } from '@aoc/feedback';
import type { EntityManager } from 'typeorm';
import { iso, sortAnswers, type FrozenTicket, type PublishedAnswer, type PublishedEvaluation, type TicketState } from '../judge-answer/ticket-state';
import { AnswerEntity, EvaluationEntity, EvaluationFailureEntity, FeedbackBindingEntity, FrozenTicketEntity, TimelineEntity } from './judge.entities';

export function frozenTicketFromRow(row: FrozenTicketEntity): FrozenTicket {
  return {
    runId: row.runId,
    ticketKey: row.ticketKey,
    title: row.title,
    description: row.description,
    reporterRole: row.reporterRole,
    ticketCreatedAt: iso(row.ticketCreatedAt),
    labels: row.labels,
    comments: row.customerComments,
    mode: row.mode,
    trigger: row.trigger,
    cutoff: row.cutoff ? iso(row.cutoff) : null,
    requestedAt: iso(row.requestedAt),
  };
}

export function answerFromRow(row: AnswerEntity): PublishedAnswer {
  return {
    runId: row.runId,
    ticketKey: row.ticketKey,
    answerFingerprint: row.answerFingerprint,
    mode: row.mode,
    trigger: row.trigger,
    publishedAt: iso(row.publishedAt),
    cutoff: row.cutoff ? iso(row.cutoff) : null,
    customerReplyMarkdown: row.customerReply,
    internalHandoffMarkdown: row.internalHandoff,
    decision: row.decision,
    requestedContext: row.requestedContext ?? [],
  };
}

export function bindingFromRow(row: FeedbackBindingEntity): FeedbackBinding {
  return {
    commentId: row.commentId,
    runId: row.runId,
    answerFingerprint: row.answerFingerprint,
    action: row.action,
    reason: row.reason,
    commentCreatedAt: row.commentCreatedAt,
    commentUpdatedAt: row.commentUpdatedAt,
    authorRole: row.authorRole,
    visibility: row.visibility,
  };
}

/** Reads everything the judge keeps about one ticket (its own schema only). */
export async function loadTicketState(manager: EntityManager, ticketKey: string): Promise<TicketState> {
  const [tickets, answers, timeline, bindings, evaluations, failures] = [
    await manager.find(FrozenTicketEntity, { where: { ticketKey } }),
    await manager.find(AnswerEntity, { where: { ticketKey } }),
    await manager.findOne(TimelineEntity, { where: { ticketKey } }),
    await manager.find(FeedbackBindingEntity, { where: { ticketKey } }),
    await manager.find(EvaluationEntity, { where: { ticketKey }, select: { evaluationId: true, runId: true, verdict: true, judgedAt: true, revision: true, published: true, outcomeDigest: true }, order: { judgedAt: 'ASC', revision: 'ASC' } }),
    await manager.find(EvaluationFailureEntity, { where: { ticketKey, blocking: true }, select: { evaluationId: true } }),
  ];
  const latestVerdicts = new Map<string, Verdict>();
  const latestPublished = new Map<string, PublishedEvaluation>();
  for (const e of evaluations) {
    if (!e.published) continue;
    latestVerdicts.set(e.runId, e.verdict);
    latestPublished.set(e.runId, { evaluationId: e.evaluationId, revision: e.revision, outcomeDigest: e.outcomeDigest });
  }
  return {
    ticketKey,
    tickets: new Map(tickets.map((t) => [t.runId, frozenTicketFromRow(t)])),
    answers: sortAnswers(answers.map(answerFromRow)),
    timeline: timeline ? { revision: Number(timeline.revision), comments: timeline.comments } : null,
    bindings: bindings.map(bindingFromRow),
    evaluated: new Set(evaluations.map((e) => e.evaluationId)),
    blocked: new Set(failures.map((f) => f.evaluationId)),
    latestVerdicts,
    latestPublished,
  };
}
