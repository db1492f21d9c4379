import { TICKET_LIMITS, clipMiddle } from '@aoc/ticket-source';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An oversized ticket is still analysed (to the contract limits the ticket sources use): text fields beyond the contract are cut (head and tail
 * kept, the cut marked), only the latest comments are kept, and every cut is listed in `clipped`
 * so the caller and the run can say so. Values of the wrong type are left for the schema to name.
 */
export function clipOversizedTicket(raw: unknown, clipped: string[]): unknown {
  if (!isRecord(raw)) return raw;
  const ticket: Record<string, unknown> = { ...raw };
  if (typeof ticket['title'] === 'string' && ticket['title'].length > TICKET_LIMITS.titleLength) {
    clipped.push(`title (${ticket['title'].length} characters)`);
    ticket['title'] = `${ticket['title'].slice(0, TICKET_LIMITS.titleLength - 1)}…`;
  }
  if (typeof ticket['description'] === 'string' && ticket['description'].length > TICKET_LIMITS.descriptionLength) {
    clipped.push(`description (${ticket['description'].length} characters)`);
    ticket['description'] = clipMiddle(ticket['description'], TICKET_LIMITS.descriptionLength);
  }
  if (Array.isArray(ticket['labels']) && ticket['labels'].length > TICKET_LIMITS.labels) {
    clipped.push(`labels (${ticket['labels'].length})`);
    ticket['labels'] = ticket['labels'].slice(0, TICKET_LIMITS.labels);
  }
  if (Array.isArray(ticket['comments'])) {
    let comments = ticket['comments'] as unknown[];
    if (comments.length > TICKET_LIMITS.comments) {
      clipped.push(`comments (${comments.length}; the latest ${TICKET_LIMITS.comments} kept)`);
      comments = comments.slice(-TICKET_LIMITS.comments);
    }
    ticket['comments'] = comments.map((c) => {
      if (!isRecord(c) || typeof c['body'] !== 'string' || c['body'].length <= TICKET_LIMITS.commentBodyLength) return c;
      clipped.push(`comment ${String(c['id']).slice(0, 64)} (${c['body'].length} characters)`);
      return { ...c, body: clipMiddle(c['body'], TICKET_LIMITS.commentBodyLength) };
    });
  }
  return ticket;
}
