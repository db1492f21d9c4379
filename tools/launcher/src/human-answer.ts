import type { TicketCommentV1 } from '@aoc/contracts';
import { parseFeedbackCommand } from '@aoc/feedback';

/**
 * The comments the Judge would compare a run's answer with: public Support or engineer replies
 * after the anchor, never `/ao` commands (services/judge judge-plan `humanReplies`). The anchor
 * is the replay cutoff; without one it is the publication, which no comment of a ticket file can
 * follow, so a live run of a file never gets a verdict.
 */
export function humanAnswerComments(ticket: { comments?: readonly TicketCommentV1[] }, cutoff: string | null | undefined): TicketCommentV1[] {
  if (!cutoff) return [];
  const at = Date.parse(cutoff);
  return (ticket.comments ?? []).filter(
    (c) => c.visibility === 'public' && (c.authorRole === 'support' || c.authorRole === 'engineer') && Date.parse(c.createdAt) > at && parseFeedbackCommand(c.body) === null,
  );
}

/** Whether waiting for a verdict makes sense: only when the Judge has a human answer to compare with. */
export function holdsHumanAnswer(ticket: { comments?: readonly TicketCommentV1[] }, cutoff: string | null | undefined): boolean {
  return humanAnswerComments(ticket, cutoff).length > 0;
}
