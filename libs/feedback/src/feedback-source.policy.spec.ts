import { TimelineCommentV1 } from '@aoc/contracts';
import { TIMELINE_FEEDBACK_REASON_MAX, isTrustedFeedbackSource, timelineFeedback } from './feedback-source.policy';

describe('isTrustedFeedbackSource', () => {
  it.each([
    ['support', 'public', true],
    ['engineer', 'public', true],
    ['customer', 'public', false],
    ['bot', 'public', false],
    ['unknown', 'public', false],
    ['', 'public', false],
    ['Support', 'public', false],
    ['admin', 'public', false],
    ['support', 'internal', true],
    ['engineer', 'internal', true],
    // Only staff can write internal comments, so an unidentified internal author is still staff.
    ['unknown', 'internal', true],
    // Auto-oncall never grades its own answer.
    ['bot', 'internal', false],
    // A customer role on an internal comment is contradictory data: fail closed.
    ['customer', 'internal', false],
  ] as const)('%s on a %s comment -> %s', (authorRole, visibility, trusted) => {
    expect(isTrustedFeedbackSource({ authorRole, visibility })).toBe(trusted);
  });
});

describe('timelineFeedback', () => {
  it('parses the command of a trusted comment only', () => {
    expect(timelineFeedback({ authorRole: 'support', visibility: 'public', body: '/ao wrong: bad owner' })).toEqual({ action: 'wrong', reason: 'bad owner' });
    expect(timelineFeedback({ authorRole: 'customer', visibility: 'public', body: '/ao wrong: bad owner' })).toBeNull();
    expect(timelineFeedback({ authorRole: 'support', visibility: 'internal', body: 'no command here' })).toBeNull();
  });

  it('caps the reason to what the timeline topic accepts, without splitting a surrogate pair', () => {
    const long = `/ao revise: ${'x'.repeat(TIMELINE_FEEDBACK_REASON_MAX + 50)}`;
    const capped = timelineFeedback({ authorRole: 'support', visibility: 'internal', body: long });
    expect(capped?.reason).toHaveLength(TIMELINE_FEEDBACK_REASON_MAX);

    const emojiAtCut = `/ao revise: ${'x'.repeat(TIMELINE_FEEDBACK_REASON_MAX - 1)}😀tail`;
    const reason = timelineFeedback({ authorRole: 'support', visibility: 'internal', body: emojiAtCut })?.reason ?? '';
    expect(reason).toBe('x'.repeat(TIMELINE_FEEDBACK_REASON_MAX - 1));
  });

  it('always produces a feedback value the timeline contract accepts', () => {
    const comment = {
      id: 'c1',
      authorRole: 'support' as const,
      visibility: 'public' as const,
      createdAt: '2026-11-20T10:00:00Z',
      updatedAt: '2026-11-20T10:00:00Z',
      body: `/ao revise: ${'y'.repeat(19000)}`,
      visibleToAi: false,
    };
    const feedback = timelineFeedback(comment);
    expect(TimelineCommentV1.safeParse({ ...comment, feedback }).success).toBe(true);
    // The cap is the contract's own limit, not a guess: one more character is refused.
    expect(TimelineCommentV1.safeParse({ ...comment, feedback: { action: 'revise', reason: 'y'.repeat(TIMELINE_FEEDBACK_REASON_MAX + 1) } }).success).toBe(false);
  });
});
