import { FrozenTicketV1, type TicketCommentV1 } from '@aoc/contracts';
import { latestComments, TICKET_LIMITS, truncateText } from './ticket-limits';

const comment = (i: number, body = 'x'): TicketCommentV1 => ({
  id: `c-${i}`,
  authorRole: 'customer',
  visibility: 'public',
  createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
  body,
});
const ticket = { key: 'SUP-1', title: 't', description: '', reporterRole: 'customer', createdAt: '2026-01-01T00:00:00Z', labels: [], comments: [] };
const accepts = (patch: Record<string, unknown>) => FrozenTicketV1.safeParse({ ...ticket, ...patch }).success;

describe('TICKET_LIMITS', () => {
  it('are exactly the limits of FrozenTicketV1', () => {
    expect(accepts({ title: 'x'.repeat(TICKET_LIMITS.titleLength) })).toBe(true);
    expect(accepts({ title: 'x'.repeat(TICKET_LIMITS.titleLength + 1) })).toBe(false);
    expect(accepts({ description: 'x'.repeat(TICKET_LIMITS.descriptionLength) })).toBe(true);
    expect(accepts({ description: 'x'.repeat(TICKET_LIMITS.descriptionLength + 1) })).toBe(false);
    expect(accepts({ comments: [comment(0, 'x'.repeat(TICKET_LIMITS.commentBodyLength))] })).toBe(true);
    expect(accepts({ comments: [comment(0, 'x'.repeat(TICKET_LIMITS.commentBodyLength + 1))] })).toBe(false);
    expect(accepts({ comments: Array.from({ length: TICKET_LIMITS.comments }, (_, i) => comment(i)) })).toBe(true);
    expect(accepts({ comments: Array.from({ length: TICKET_LIMITS.comments + 1 }, (_, i) => comment(i)) })).toBe(false);
    expect(accepts({ labels: Array.from({ length: TICKET_LIMITS.labels }, () => 'x'.repeat(TICKET_LIMITS.labelLength)) })).toBe(true);
    expect(accepts({ labels: Array.from({ length: TICKET_LIMITS.labels + 1 }, () => 'x') })).toBe(false);
    expect(accepts({ labels: ['x'.repeat(TICKET_LIMITS.labelLength + 1)] })).toBe(false);
  });

  it('truncates to the limit with a note, and leaves short text alone', () => {
    expect(truncateText('short', 10)).toBe('short');
    const cut = truncateText('y'.repeat(100), 50);
    expect(cut).toHaveLength(50);
    expect(cut.endsWith('[truncated by auto-oncall]')).toBe(true);
  });

  it('orders comments by time and keeps the latest ones', () => {
    const many = Array.from({ length: TICKET_LIMITS.comments + 3 }, (_, i) => comment(i)).reverse();
    const kept = latestComments(many);
    expect(kept).toHaveLength(TICKET_LIMITS.comments);
    expect(kept[0].id).toBe('c-3');
    expect(kept[kept.length - 1].id).toBe(`c-${TICKET_LIMITS.comments + 2}`);
  });
});
