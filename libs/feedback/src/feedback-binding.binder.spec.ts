import type { TimelineCommentV1 } from '@aoc/contracts';
import { bindFeedback } from './feedback-binding.binder';
import type { AnswerVersionRef, FeedbackBinding } from './feedback.types';

const FP_A = 'a'.repeat(64);
const FP_B = 'b'.repeat(64);

const answer = (runId: string, answerFingerprint: string, publishedAt: string): AnswerVersionRef => ({ runId, answerFingerprint, publishedAt });

function comment(id: string, body: string, createdAt: string, overrides: Partial<TimelineCommentV1> = {}): TimelineCommentV1 {
  return { id, authorRole: 'support', visibility: 'internal', createdAt, updatedAt: createdAt, body, visibleToAi: false, feedback: null, ...overrides };
}

const run1 = answer('run-1', FP_A, '2026-11-20T10:00:00Z');
const run2 = answer('run-2', FP_B, '2026-11-20T12:00:00Z');

describe('bindFeedback', () => {
  it('binds to the latest answer published before the comment, not the latest overall', () => {
    const { bindings, unbound } = bindFeedback([], [comment('c1', '/ao wrong: owner', '2026-11-20T11:00:00Z')], [run2, run1]);
    expect(unbound).toEqual([]);
    expect(bindings).toEqual<FeedbackBinding[]>([
      {
        commentId: 'c1',
        runId: 'run-1',
        answerFingerprint: FP_A,
        action: 'wrong',
        reason: 'owner',
        commentCreatedAt: '2026-11-20T11:00:00Z',
        commentUpdatedAt: '2026-11-20T11:00:00Z',
        authorRole: 'support',
        visibility: 'internal',
      },
    ]);
    expect(bindFeedback([], [comment('c2', '/ao accept', '2026-11-20T12:30:00Z')], [run1, run2]).bindings[0].runId).toBe('run-2');
  });

  it('does not bind to a run published at the same instant as the comment', () => {
    const atRun2 = comment('c1', '/ao accept', '2026-11-20T12:00:00Z');
    expect(bindFeedback([], [atRun2], [run1, run2]).bindings[0].runId).toBe('run-1');
    const atRun1 = comment('c2', '/ao accept', '2026-11-20T10:00:00Z');
    expect(bindFeedback([], [atRun1], [run1, run2])).toEqual({ bindings: [], unbound: [atRun1] });
  });

  it('compares instants, not strings, across time-zone offsets', () => {
    // 19:30+08:00 is 11:30Z: after run-1, before run-2, although the string sorts after both.
    const shanghai = comment('c1', '/ao revise: x', '2026-11-20T19:30:00+08:00');
    expect(bindFeedback([], [shanghai], [run1, run2]).bindings[0].runId).toBe('run-1');
    const early = answer('run-0', FP_B, '2026-11-20T17:00:00+08:00'); // 09:00Z
    expect(bindFeedback([], [comment('c2', '/ao accept', '2026-11-20T09:30:00Z')], [early, run1]).bindings[0].runId).toBe('run-0');
  });

  it('breaks a tie between runs published at the same instant by run id, whatever the input order', () => {
    const twinA = answer('run-a', FP_A, '2026-11-20T10:00:00Z');
    const twinB = answer('run-b', FP_B, '2026-11-20T10:00:00Z');
    const c = comment('c1', '/ao accept', '2026-11-20T11:00:00Z');
    expect(bindFeedback([], [c], [twinA, twinB]).bindings[0].runId).toBe('run-b');
    expect(bindFeedback([], [c], [twinB, twinA]).bindings[0].runId).toBe('run-b');
  });

  it('returns trusted commands made before any answer as unbound, and binds them once an earlier answer is known', () => {
    const early = comment('c1', '/ao human', '2026-11-20T09:00:00Z');
    const first = bindFeedback([], [early], [run1]);
    expect(first).toEqual({ bindings: [], unbound: [early] });
    const late = answer('run-0', FP_B, '2026-11-20T08:00:00Z');
    expect(bindFeedback(first.bindings, [early], [run1, late]).bindings.map((b) => b.runId)).toEqual(['run-0']);
  });

  it('ignores untrusted comments, comments without a command and the feedback field', () => {
    const comments = [
      comment('c1', '/ao wrong: from the customer', '2026-11-20T11:00:00Z', { authorRole: 'customer', visibility: 'public' }),
      comment('c2', '/ao wrong: from the bot', '2026-11-20T11:00:00Z', { authorRole: 'bot', visibility: 'public' }),
      comment('c3', '/ao wrong: unknown author', '2026-11-20T11:00:00Z', { authorRole: 'unknown', visibility: 'public' }),
      comment('c4', 'thanks!', '2026-11-20T11:00:00Z', { feedback: { action: 'accept', reason: 'smuggled' } }),
      comment('c5', '/ao accept: from Support', '2026-11-20T11:00:00Z', { authorRole: 'support', visibility: 'public' }),
    ];
    expect(bindFeedback([], comments, [run1]).bindings.map((b) => b.commentId)).toEqual(['c5']);
    expect(bindFeedback([], comments, []).unbound.map((c) => c.id)).toEqual(['c5']);
  });

  it('keeps the whole multi-line reason from the body, not the capped feedback field', () => {
    const body = `/ao revise: first\nsecond\n${'z'.repeat(5000)}`;
    const [binding] = bindFeedback([], [comment('c1', body, '2026-11-20T11:00:00Z', { feedback: { action: 'revise', reason: 'capped' } })], [run1]).bindings;
    expect(binding.reason).toBe(`first\nsecond\n${'z'.repeat(5000)}`);
  });

  describe('edits', () => {
    const original = comment('c1', '/ao revise: owner', '2026-11-20T11:00:00Z');
    const stored = bindFeedback([], [original], [run1]).bindings;

    it('never rebind to another run, even when a later answer precedes the edit', () => {
      const edited = { ...original, body: '/ao wrong: owner and cluster', updatedAt: '2026-11-20T13:00:00Z' };
      const { bindings } = bindFeedback(stored, [edited], [run1, run2]);
      expect(bindings).toEqual([{ ...stored[0], action: 'wrong', reason: 'owner and cluster', commentUpdatedAt: '2026-11-20T13:00:00Z' }]);
      expect(bindings[0]).toMatchObject({ runId: 'run-1', answerFingerprint: FP_A, commentCreatedAt: '2026-11-20T11:00:00Z' });
    });

    it('keep the binding when the answer list no longer contains its run', () => {
      const edited = { ...original, body: '/ao accept', updatedAt: '2026-11-20T13:00:00Z' };
      expect(bindFeedback(stored, [edited], [run2]).bindings[0]).toMatchObject({ runId: 'run-1', action: 'accept' });
    });

    it('ignore a stale or equally old edit', () => {
      const stale = { ...original, body: '/ao accept', updatedAt: '2026-11-20T10:59:00Z' };
      const same = { ...original, body: '/ao accept' };
      expect(bindFeedback(stored, [stale], [run1]).bindings).toEqual(stored);
      expect(bindFeedback(stored, [same], [run1]).bindings).toEqual(stored);
    });

    it('keep the last binding when the command was edited away or the comment disappeared', () => {
      const prose = { ...original, body: 'never mind', updatedAt: '2026-11-20T14:00:00Z' };
      expect(bindFeedback(stored, [prose], [run1, run2]).bindings).toEqual(stored);
      expect(bindFeedback(stored, [], [run1, run2]).bindings).toEqual(stored);
    });

    it('use the newest version that still parses when several versions arrive together', () => {
      const v2 = { ...original, body: '/ao wrong: v2', updatedAt: '2026-11-20T11:30:00Z' };
      const v3 = { ...original, body: 'edited away', updatedAt: '2026-11-20T11:45:00Z' };
      expect(bindFeedback([], [v3, original, v2], [run1]).bindings[0]).toMatchObject({ action: 'wrong', reason: 'v2', commentUpdatedAt: '2026-11-20T11:30:00Z' });
    });

    it('prefer any readable edit time over an unreadable one', () => {
      const garbled = { ...original, body: '/ao accept', updatedAt: 'not a time' };
      expect(bindFeedback(stored, [garbled], [run1]).bindings).toEqual(stored);
      expect(bindFeedback([], [garbled, original], [run1]).bindings[0].action).toBe('revise');
    });
  });

  it('leaves a comment with an unreadable creation time unbound', () => {
    const c = comment('c1', '/ao accept', 'yesterday');
    expect(bindFeedback([], [c], [run1])).toEqual({ bindings: [], unbound: [c] });
  });

  it('never lets an answer with an unreadable time become a target', () => {
    const c = comment('c1', '/ao accept', '2026-11-20T11:00:00Z');
    expect(bindFeedback([], [c], [answer('run-x', FP_B, 'soon'), run1]).bindings[0].runId).toBe('run-1');
  });

  it('does not mutate its inputs', () => {
    const existing = bindFeedback([], [comment('c1', '/ao revise: a', '2026-11-20T11:00:00Z')], [run1]).bindings;
    const frozen = JSON.stringify(existing);
    const { bindings } = bindFeedback(existing, [comment('c1', '/ao wrong: b', '2026-11-20T11:00:00Z', { updatedAt: '2026-11-20T11:05:00Z' })], [run1]);
    bindings[0].reason = 'changed by the caller';
    expect(JSON.stringify(existing)).toBe(frozen);
  });

  it('orders bindings by comment time, then id', () => {
    const comments = [
      comment('c9', '/ao accept', '2026-11-20T11:00:00Z'),
      comment('c2', '/ao accept', '2026-11-20T12:30:00Z'),
      comment('c1', '/ao accept', '2026-11-20T11:00:00Z'),
    ];
    expect(bindFeedback([], comments, [run1, run2]).bindings.map((b) => b.commentId)).toEqual(['c1', 'c9', 'c2']);
  });
});
