import type { TimelineCommentV1 } from '@aoc/contracts';
import { humanAnswer, rubricJudge } from './rubric-judge';

const c = (id: string, authorRole: TimelineCommentV1['authorRole'], visibility: TimelineCommentV1['visibility'], createdAt: string, body: string): TimelineCommentV1 => ({
  id, authorRole, visibility, createdAt, updatedAt: createdAt, body, visibleToAi: false, feedback: null,
});

const anchor = new Date('2026-11-20T11:00:00Z');
const timeline = [
  c('c1', 'customer', 'public', '2026-11-20T10:58:00Z', 'latency doubled'),
  c('c2', 'support', 'internal', '2026-11-20T11:40:00Z', 'TopSQL shows a full table scan'),
  c('c3', 'support', 'public', '2026-11-20T12:30:00Z', 'A new report query scans the whole orders table; adding an index on orders(created_at) fixes it.'),
  c('c4', 'customer', 'public', '2026-11-20T13:10:00Z', 'thanks'),
];

describe('rubric judge', () => {
  it('takes public Support/engineer comments after the anchor as the human answer', () => {
    expect(humanAnswer(timeline, anchor).map((x) => x.id)).toEqual(['c3']);
  });

  it('does not compare when no human answer exists yet', () => {
    expect(rubricJudge({ customerReply: 'x', internalHandoff: 'y', decision: 'human_required', anchor, timeline: timeline.slice(0, 2) })).toBeNull();
  });

  it('prefers the human answer when the AI covers few of its key points', () => {
    const r = rubricJudge({ customerReply: 'We could not retrieve metrics yet.', internalHandoff: 'Not determined.', decision: 'human_required', anchor, timeline });
    expect(r?.verdict).toBe('human_better');
    expect(r?.targetHumanCommentIds).toEqual(['c3']);
    expect(r?.referenceComments[0].bodyDigest).toMatch(/^[a-f0-9]{64}$/);
    expect(r?.aiGaps.join(' ')).toContain('orders');
  });

  it('finds an equivalent answer that covers the same points', () => {
    const r = rubricJudge({
      customerReply: 'A new report query scans the whole orders table. Adding an index on orders(created_at) fixes it.',
      internalHandoff: 'Evidence: TopSQL.',
      decision: 'internal_only',
      anchor,
      timeline,
    });
    expect(r?.verdict).toBe('equivalent');
    expect(r?.keyDifferences).toEqual([]);
  });
});
