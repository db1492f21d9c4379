import { backoffMs } from './collector-options';
import { nextRevision, snapshotOf } from './timeline-snapshot';

const comment = (id: string, body: string, updatedAt = '2026-11-30T10:00:00.000Z', visibility: 'public' | 'internal' = 'public') => ({
  id,
  authorRole: 'support' as const,
  visibility,
  createdAt: '2026-11-30T10:00:00.000Z',
  updatedAt,
  body,
});
const until = new Date('2026-11-30T11:00:00.000Z');
const question = { title: 'Checkout slow', description: 'p99 doubled since 10:00' };

describe('timeline snapshot', () => {
  it('changes its digest for a new, edited, re-scoped or deleted comment, and only then', () => {
    const base = snapshotOf({ ticketKey: 'SUP-1', question, truncated: false, comments: [comment('a', 'x'), comment('b', 'y')] }, until);
    const same = snapshotOf({ ticketKey: 'SUP-1', question, truncated: false, comments: [comment('a', 'x'), comment('b', 'y')] }, until);
    expect(same.digest).toBe(base.digest);
    for (const comments of [
      [comment('a', 'x'), comment('b', 'y'), comment('c', 'z')],
      [comment('a', 'x'), comment('b', 'y2', '2026-11-30T10:30:00.000Z')],
      [comment('a', 'x'), comment('b', 'y', undefined, 'internal')],
      [comment('a', 'x')],
    ]) {
      expect(snapshotOf({ ticketKey: 'SUP-1', question, truncated: false, comments }, until).digest).not.toBe(base.digest);
    }
    expect(base.comments[1]).toMatchObject({ updatedAt: '2026-11-30T10:00:00.000Z', visibleToAi: true });
    // An edited title or description is a change too, and its own digest says which part moved.
    for (const edited of [{ ...question, title: 'Checkout down' }, { ...question, description: 'p99 tripled since 10:00' }]) {
      const snap = snapshotOf({ ticketKey: 'SUP-1', question: edited, truncated: false, comments: [comment('a', 'x'), comment('b', 'y')] }, until);
      expect(snap.digest).not.toBe(base.digest);
      expect(snap.questionDigest).not.toBe(base.questionDigest);
    }
    expect(base.questionDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('revisions only go up, never behind the clock', () => {
    const now = new Date('2026-11-30T12:00:00.000Z');
    expect(nextRevision(0, now)).toBe(now.getTime());
    expect(nextRevision(now.getTime() + 5, now)).toBe(now.getTime() + 6);
  });

  it('backs off exponentially to a cap and honours a longer Retry-After', () => {
    expect(backoffMs(1, null, 3_600_000)).toBe(30_000);
    expect(backoffMs(3, null, 3_600_000)).toBe(120_000);
    expect(backoffMs(20, null, 3_600_000)).toBe(3_600_000);
    expect(backoffMs(1, 90_000, 3_600_000)).toBe(90_000);
  });
});
