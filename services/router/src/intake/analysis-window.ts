import type { TicketAnalysisRequestedV1, TicketCommentV1, TimeWindow } from '@aoc/contracts';
import { parseReportedOnset } from '../select-scenarios/reported-onset';

const HOUR_MS = 3_600_000;
/** A stated time up to a week before the ticket places the window; an older one is history, not this incident. */
const STATED_TIME_LOOKBACK_MS = 7 * 86_400_000;

export type WindowRequest = Pick<TicketAnalysisRequestedV1, 'cutoff' | 'requestedAt'> & {
  ticket?: { createdAt: string; comments: readonly Pick<TicketCommentV1, 'authorRole' | 'visibility' | 'createdAt'>[] };
};

const iso = (ms: number) => new Date(ms).toISOString();
const hourBefore = (endMs: number): TimeWindow => ({ from: iso(endMs - HOUR_MS), to: iso(endMs) });

/**
 * The incident time the ticket states ("since about 10:40 UTC", an ISO time, "for the last 40
 * minutes"), read as written when the ticket was opened: a clock time falls on that day, a
 * relative one counts back from it.
 */
export function statedIncidentTime(text: string, ticketCreatedAt: string): string | null {
  const opened = Date.parse(ticketCreatedAt);
  return parseReportedOnset(text, { from: iso(opened - STATED_TIME_LOOKBACK_MS), to: iso(opened) });
}

/** When the customer last spoke: the ticket's creation or its newest public customer comment, never after `limitMs`. */
function lastStatement(ticket: NonNullable<WindowRequest['ticket']>, limitMs: number): number {
  const times = ticket.comments.filter((c) => c.authorRole === 'customer' && c.visibility === 'public').map((c) => Date.parse(c.createdAt));
  return Math.min(limitMs, Math.max(Date.parse(ticket.createdAt), ...times.filter((t) => t <= limitMs)));
}

/**
 * The provider window of a run, from the ticket rather than the clock. A replay reads the hour
 * before its cutoff. Otherwise the reference hour ends at the request when the customer spoke
 * within that hour (a live ticket), else at the customer's last statement (an older ticket read
 * later). A stated incident time outside the reference hour moves the window to the hour around
 * it, so the evidence shows both the change and what came before.
 */
export function analysisWindowFor(request: WindowRequest, customerText: string): TimeWindow {
  if (request.cutoff) return hourBefore(Date.parse(request.cutoff));
  const requested = Date.parse(request.requestedAt);
  if (!request.ticket) return hourBefore(requested);
  const spoke = lastStatement(request.ticket, requested);
  const reference = hourBefore(spoke >= requested - HOUR_MS ? requested : spoke);
  const stated = statedIncidentTime(customerText, request.ticket.createdAt);
  if (stated === null) return reference;
  const at = Date.parse(stated);
  if (at >= Date.parse(reference.from) && at <= Date.parse(reference.to)) return reference;
  return { from: iso(at - HOUR_MS / 2), to: iso(Math.min(at + HOUR_MS / 2, requested)) };
}
