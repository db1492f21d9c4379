import { sameAnswerVersion } from '@aoc/answers';
import { compareAnswers, orderAnswers } from './feedback-binding.binder';
import type { AnswerVersionRef, FeedbackBinding } from './feedback.types';
import { compareEditTimes, compareInstants, compareText } from './instant.util';

export type AnswerFeedback = FeedbackBinding & { inherited: boolean };

/**
 * Feedback that applies to one answer version: bound to its run directly, or inherited from a run
 * published earlier (by `allAnswers`) whose bound fingerprint is the same answer version. A different
 * fingerprint never inherits: old feedback stays with the old version and is only Judge input for
 * the new one. Feedback bound to a later run with the same fingerprint is not pulled back onto an
 * earlier run, and a run missing from `allAnswers` cannot be placed, so it is not inherited from.
 * Ordered by comment creation time, then comment id.
 */
export function feedbackForAnswer(
  bindings: readonly FeedbackBinding[],
  answer: AnswerVersionRef,
  allAnswers: readonly AnswerVersionRef[],
): AnswerFeedback[] {
  const firstPublication = new Map<string, AnswerVersionRef>();
  for (const ref of orderAnswers(allAnswers)) if (!firstPublication.has(ref.runId)) firstPublication.set(ref.runId, ref);

  const selected = new Map<string, AnswerFeedback>();
  for (const binding of bindings) {
    const entry = applies(binding, answer, firstPublication);
    if (entry === null) continue;
    const current = selected.get(binding.commentId);
    // One entry per comment; with stray duplicates the newest edit wins.
    if (current === undefined || compareEditTimes(binding.commentUpdatedAt, current.commentUpdatedAt) > 0) selected.set(binding.commentId, entry);
  }
  return [...selected.values()].sort((a, b) => compareInstants(a.commentCreatedAt, b.commentCreatedAt) || compareText(a.commentId, b.commentId));
}

function applies(binding: FeedbackBinding, answer: AnswerVersionRef, runs: ReadonlyMap<string, AnswerVersionRef>): AnswerFeedback | null {
  if (binding.runId === answer.runId) return { ...binding, inherited: false };
  if (!sameAnswerVersion(binding.answerFingerprint, answer.answerFingerprint)) return null;
  const boundRun = runs.get(binding.runId);
  if (boundRun === undefined || compareAnswers(boundRun, answer) >= 0) return null;
  return { ...binding, inherited: true };
}
