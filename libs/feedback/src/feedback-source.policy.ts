import { parseFeedbackCommand } from './feedback-command.parser';
import type { ParsedFeedback } from './feedback.types';

/** Longest reason `ticket.timeline-updated.v1` accepts in a comment's `feedback`. */
export const TIMELINE_FEEDBACK_REASON_MAX = 4000;

/** Roles Support uses; only they may steer evaluation from a customer-visible comment. */
const SUPPORT_ROLES: ReadonlySet<string> = new Set(['support', 'engineer']);

/**
 * Whether a comment may carry /ao feedback.
 * - Public: only Support (`support`, `engineer`); customers, bots and unidentified authors cannot
 *   steer evaluation or the optimizer.
 * - Internal: trusted, because only staff can write internal comments, so an unidentified author is
 *   still staff. Two roles are refused anyway: `bot` (Auto-oncall must never grade its own answer,
 *   and its internal handoff may quote the /ao hint) and `customer` (contradicts internal
 *   visibility, so the role data is wrong and we fail closed).
 */
export function isTrustedFeedbackSource(comment: { authorRole: string; visibility: 'public' | 'internal' }): boolean {
  if (comment.visibility === 'public') return SUPPORT_ROLES.has(comment.authorRole);
  return comment.authorRole !== 'bot' && comment.authorRole !== 'customer';
}

/**
 * The `feedback` field of a timeline comment: the parsed command when the source is trusted, else
 * null. The reason is capped to what the topic accepts; the full text stays in the comment body,
 * which `bindFeedback` parses again, so nothing is lost downstream.
 */
export function timelineFeedback(comment: { authorRole: string; visibility: 'public' | 'internal'; body: string }): ParsedFeedback | null {
  if (!isTrustedFeedbackSource(comment)) return null;
  const parsed = parseFeedbackCommand(comment.body);
  if (parsed === null) return null;
  return { action: parsed.action, reason: capReason(parsed.reason) };
}

function capReason(reason: string): string {
  if (reason.length <= TIMELINE_FEEDBACK_REASON_MAX) return reason;
  const cut = reason.slice(0, TIMELINE_FEEDBACK_REASON_MAX);
  // Never leave half of a surrogate pair (an emoji, a rare CJK character) at the end.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
