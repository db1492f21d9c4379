import type { TimelineCommentV1 } from '@aoc/contracts';
import { parseFeedbackCommand } from './feedback-command.parser';
import { isTrustedFeedbackSource } from './feedback-source.policy';
import type { AnswerVersionRef, FeedbackBinding, ParsedFeedback } from './feedback.types';
import { compareEditTimes, compareInstants, compareText, instant } from './instant.util';

interface CommandVersion {
  comment: TimelineCommentV1;
  command: ParsedFeedback;
}

/**
 * Binds each trusted /ao comment to the answer version it evaluated: the latest one published
 * strictly before the comment was created (a run published at the same instant is not "before").
 *
 * Pure and idempotent; the input may be shuffled and contain duplicates or several versions of one
 * comment (edits). Per comment only the newest version that is trusted and still parses counts, so
 * a command that was edited away, or a later untrusted copy, never erases feedback that existed.
 *
 * - Existing bindings never move to another run or fingerprint; a strictly newer command version
 *   replaces only action, reason and `commentUpdatedAt`. Equal or older versions are ignored.
 * - Existing bindings are kept even when their comment is absent or no longer parses.
 * - Trusted commands with no answer published before them are returned in `unbound`, to be bound
 *   by a later call once an earlier answer is known.
 * - Comments with unreadable timestamps never bind (they cannot be placed after an answer).
 * - Output order is by comment creation time, then comment id.
 *
 * The `feedback` field of the comments is ignored: the body is re-parsed, so the full reason is kept
 * and a producer's mistake cannot smuggle in feedback.
 */
export function bindFeedback(
  existing: readonly FeedbackBinding[],
  comments: readonly TimelineCommentV1[],
  answers: readonly AnswerVersionRef[],
): { bindings: FeedbackBinding[]; unbound: TimelineCommentV1[] } {
  const bound = latestBindingPerComment(existing);
  const ordered = orderAnswers(answers);
  const unbound: TimelineCommentV1[] = [];

  for (const [commentId, { comment, command }] of latestCommandPerComment(comments)) {
    const stored = bound.get(commentId);
    if (stored !== undefined) {
      if (compareEditTimes(comment.updatedAt, stored.commentUpdatedAt) > 0) {
        bound.set(commentId, { ...stored, action: command.action, reason: command.reason, commentUpdatedAt: comment.updatedAt });
      }
      continue;
    }
    const target = latestAnswerBefore(ordered, comment.createdAt);
    if (target === null) {
      unbound.push(comment);
      continue;
    }
    bound.set(commentId, {
      commentId,
      runId: target.runId,
      answerFingerprint: target.answerFingerprint,
      action: command.action,
      reason: command.reason,
      commentCreatedAt: comment.createdAt,
      commentUpdatedAt: comment.updatedAt,
      authorRole: comment.authorRole,
      visibility: comment.visibility,
    });
  }

  return {
    bindings: [...bound.values()].sort((a, b) => compareInstants(a.commentCreatedAt, b.commentCreatedAt) || compareText(a.commentId, b.commentId)),
    unbound: unbound.sort((a, b) => compareInstants(a.createdAt, b.createdAt) || compareText(a.id, b.id)),
  };
}

/** Answers with a readable time, oldest first; ties broken by run id so the choice never depends on input order. */
export function orderAnswers(answers: readonly AnswerVersionRef[]): AnswerVersionRef[] {
  return answers.filter((a) => !Number.isNaN(instant(a.publishedAt))).sort(compareAnswers);
}

export function compareAnswers(a: AnswerVersionRef, b: AnswerVersionRef): number {
  return compareInstants(a.publishedAt, b.publishedAt) || compareText(a.runId, b.runId) || compareText(a.answerFingerprint, b.answerFingerprint);
}

function latestAnswerBefore(ordered: readonly AnswerVersionRef[], createdAt: string): AnswerVersionRef | null {
  const at = instant(createdAt);
  let found: AnswerVersionRef | null = null;
  for (const answer of ordered) {
    if (instant(answer.publishedAt) < at) found = answer;
    else break;
  }
  return found;
}

function latestCommandPerComment(comments: readonly TimelineCommentV1[]): Map<string, CommandVersion> {
  const latest = new Map<string, CommandVersion>();
  for (const comment of comments) {
    if (!isTrustedFeedbackSource(comment)) continue;
    const command = parseFeedbackCommand(comment.body);
    if (command === null) continue;
    const current = latest.get(comment.id);
    if (current === undefined || compareVersions(comment, current.comment) > 0) latest.set(comment.id, { comment, command });
  }
  return latest;
}

function latestBindingPerComment(existing: readonly FeedbackBinding[]): Map<string, FeedbackBinding> {
  const latest = new Map<string, FeedbackBinding>();
  for (const binding of existing) {
    const current = latest.get(binding.commentId);
    const newer =
      current === undefined ||
      (compareEditTimes(binding.commentUpdatedAt, current.commentUpdatedAt) || compareText(canonical(binding), canonical(current))) > 0;
    // Copies, so callers can never mutate what they passed in through the result.
    if (newer) latest.set(binding.commentId, { ...binding });
  }
  return latest;
}

/** Newer edit first; two versions with the same edit time are ordered by content, never by arrival. */
function compareVersions(a: TimelineCommentV1, b: TimelineCommentV1): number {
  return compareEditTimes(a.updatedAt, b.updatedAt) || compareText(canonical(a), canonical(b));
}

function canonical(value: TimelineCommentV1 | FeedbackBinding): string {
  return JSON.stringify(Object.entries(value).sort(([a], [b]) => compareText(a, b)));
}
