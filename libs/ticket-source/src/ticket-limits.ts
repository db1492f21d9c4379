import { MAX_TIMELINE_COMMENTS, type TicketCommentV1 } from '@aoc/contracts';

/**
 * Limits of `FrozenTicketV1` / `TicketCommentV1` (libs/contracts, ticket-analysis-requested).
 * `ticket-limits.spec.ts` proves each one against the contract schema.
 */
export const TICKET_LIMITS = {
  titleLength: 500,
  descriptionLength: 50000,
  commentBodyLength: 20000,
  comments: 200,
  labels: 32,
  labelLength: 64,
} as const;

const TRUNCATION_NOTE = '\n[truncated by auto-oncall]';

/** The text cut to `max` characters, ending with a note when anything was cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - TRUNCATION_NOTE.length)) + TRUNCATION_NOTE;
}

/**
 * An oversized text cut to `max` characters keeping its head and its tail (where a pasted log's
 * error usually is), the cut marked with how much was left out.
 */
export function clipMiddle(text: string, max: number, by = 'intake'): string {
  if (text.length <= max) return text;
  const marker = (n: number) => `\n\n[… ${n} characters omitted by ${by} …]\n\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.floor(room * 0.8);
  const tail = room - head;
  return `${text.slice(0, head)}${marker(text.length - head - tail)}${text.slice(text.length - tail)}`;
}

/** Comments oldest first (stable for equal times), the latest `max` of them, and whether any were dropped. */
function latestOf<T extends TicketCommentV1>(comments: readonly T[], max: number): { comments: T[]; truncated: boolean } {
  const ordered = comments
    .map((comment, index) => ({ comment, index, at: Date.parse(comment.createdAt) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((entry) => entry.comment);
  return { comments: ordered.slice(Math.max(0, ordered.length - max)), truncated: ordered.length > max };
}

/** Comments oldest first (stable for equal times), keeping only the latest `TICKET_LIMITS.comments`. */
export function latestComments(comments: readonly TicketCommentV1[]): TicketCommentV1[] {
  return latestOf(comments, TICKET_LIMITS.comments).comments;
}

/** Comments oldest first, keeping the latest `MAX_TIMELINE_COMMENTS` (a timeline revision's bound). */
export function latestTimelineComments<T extends TicketCommentV1>(comments: readonly T[]): { comments: T[]; truncated: boolean } {
  return latestOf(comments, MAX_TIMELINE_COMMENTS);
}
