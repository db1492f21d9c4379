import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { followUps } from './provenance';

const customer = (body: string, id = 'c-9'): JudgeTimelineCommentV1 => ({ id, authorRole: 'customer', createdAt: '2026-01-01T12:00:00Z', updatedAt: '2026-01-01T12:00:00Z', body, visibleToAi: false });
const read = (body: string) => followUps([customer(body)], 0)[0] ?? null;
const terms = (body: string) => (read(body)?.facts ?? []).filter((f) => f.kind === 'term').map((f) => f.key);

describe('customer follow-ups (issue 19 item 4)', () => {
  it.each([
    'The fix worked: with the pool raised to 40 the timeouts are gone.',
    "After adding the index it's fine, searches take 20 ms again.",
    'You were right, it was the backup job.',
    'After resizing r2 to 8 vCPU it caught up in 40 minutes.',
    'The first analysis was right: after we acted on it everything is back to normal.',
  ])('reads a confirmation with evidence: %s', (body) => {
    expect(read(body)?.kind).toBe('confirms');
  });

  it.each(['Thanks!', 'Any update?', 'Still happening!!', 'It got worse after the release.'])('ignores %s', (body) => {
    expect(read(body)).toBeNull();
  });

  it('reads refutations before confirmations', () => {
    expect(read("That is not right: it was the big report someone ran.")?.kind).toBe('refutes');
    expect(read('We killed the query and it did not help.')?.kind).toBe('refutes');
  });

  it('keeps the mechanism the customer names and clears the one it exonerates', () => {
    expect(terms('You were right, it was the backup job.')).toContain('term:backup');
    const cleared = terms('The fix worked: the connection pool was too small, the network was fine.');
    expect(cleared).toContain('term:connection pool');
    expect(cleared.some((k) => k.startsWith('family:network'))).toBe(false);
  });

  it('sides with the answer whose author the customer names', () => {
    expect(read('So it was the size, as Support said. It works now.')?.side).toBe('human');
    expect(read('The first analysis was right, it works now.')?.side).toBe('ai');
    expect(read('It works now.')?.side).toBeNull();
  });
});
