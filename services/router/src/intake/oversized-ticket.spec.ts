import { FrozenTicketV1 } from '@aoc/contracts';
import { TICKET_LIMITS } from '@aoc/ticket-source';
import { clipOversizedTicket } from './oversized-ticket';

const ticket = (over: Record<string, unknown> = {}) => ({ key: 'SUP-1', title: 't', description: 'd', reporterRole: 'customer', createdAt: '2026-11-20T10:00:00Z', labels: [], comments: [], ...over });

describe('oversized tickets', () => {
  it('cuts every field to the contract, keeps head and tail, and lists each cut', () => {
    const clipped: string[] = [];
    const description = `HEAD ${'x'.repeat(120_000)} TAIL`;
    const out = clipOversizedTicket(
      ticket({
        title: 'T'.repeat(900),
        description,
        labels: Array.from({ length: 40 }, (_, i) => `l${i}`),
        comments: Array.from({ length: 205 }, (_, i) => ({ id: `c${i}`, authorRole: 'customer', visibility: 'public', createdAt: '2026-11-20T10:00:00Z', body: i === 204 ? 'b'.repeat(25_000) : 'ok' })),
      }),
      clipped,
    );
    const parsed = FrozenTicketV1.parse(out);
    expect(parsed.description.length).toBeLessThanOrEqual(TICKET_LIMITS.descriptionLength);
    expect(parsed.description.startsWith('HEAD ')).toBe(true);
    expect(parsed.description.endsWith(' TAIL')).toBe(true);
    expect(parsed.description).toMatch(/\[… \d+ characters omitted by intake …\]/);
    expect(parsed.comments.map((c) => c.id)[0]).toBe('c5');
    expect(parsed.comments.at(-1)?.body.length).toBeLessThanOrEqual(TICKET_LIMITS.commentBodyLength);
    expect(clipped).toEqual(['title (900 characters)', `description (${description.length} characters)`, 'labels (40)', 'comments (205; the latest 200 kept)', 'comment c204 (25000 characters)']);
  });

  it('leaves a ticket within limits untouched and wrong types for the schema to name', () => {
    const clipped: string[] = [];
    expect(clipOversizedTicket(ticket(), clipped)).toEqual(ticket());
    expect(clipOversizedTicket(ticket({ description: 42 }), clipped)).toEqual(ticket({ description: 42 }));
    expect(clipped).toEqual([]);
  });
});
