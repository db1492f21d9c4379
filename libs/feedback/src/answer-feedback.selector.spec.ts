import { storedLegacyFingerprint, storedPairFingerprint } from '@aoc/answers';
import { feedbackForAnswer } from './answer-feedback.selector';
import type { AnswerVersionRef, FeedbackBinding } from './feedback.types';

const FP_X = storedPairFingerprint('customer x', 'internal x');
const FP_Y = storedPairFingerprint('customer y', 'internal y');

const answer = (runId: string, answerFingerprint: string, publishedAt: string): AnswerVersionRef => ({ runId, answerFingerprint, publishedAt });
const binding = (commentId: string, run: AnswerVersionRef, createdAt: string, over: Partial<FeedbackBinding> = {}): FeedbackBinding => ({
  commentId,
  runId: run.runId,
  answerFingerprint: run.answerFingerprint,
  action: 'revise',
  reason: commentId,
  commentCreatedAt: createdAt,
  commentUpdatedAt: createdAt,
  authorRole: 'support',
  visibility: 'internal',
  ...over,
});

// run-1 (X) -> run-2 (Y, a new version) -> run-3 (X again, the same version as run-1)
const run1 = answer('run-1', FP_X, '2026-11-20T10:00:00Z');
const run2 = answer('run-2', FP_Y, '2026-11-20T11:00:00Z');
const run3 = answer('run-3', FP_X, '2026-11-20T12:00:00Z');
const all = [run3, run1, run2];
const onRun1 = binding('c1', run1, '2026-11-20T10:30:00Z');
const onRun2 = binding('c2', run2, '2026-11-20T11:30:00Z');
const onRun3 = binding('c3', run3, '2026-11-20T12:30:00Z');
const bindings = [onRun3, onRun2, onRun1];

describe('feedbackForAnswer', () => {
  it('returns feedback bound directly to the run', () => {
    expect(feedbackForAnswer(bindings, run1, all)).toEqual([{ ...onRun1, inherited: false }]);
  });

  it('inherits feedback from an earlier run with the same fingerprint', () => {
    expect(feedbackForAnswer(bindings, run3, all)).toEqual([
      { ...onRun1, inherited: true },
      { ...onRun3, inherited: false },
    ]);
  });

  it('never inherits across a different fingerprint', () => {
    expect(feedbackForAnswer(bindings, run2, all)).toEqual([{ ...onRun2, inherited: false }]);
  });

  it('does not pull feedback of a later run back onto an earlier run of the same version', () => {
    expect(feedbackForAnswer(bindings, run1, all).map((f) => f.commentId)).toEqual(['c1']);
  });

  it('does not inherit from a run it cannot place in time', () => {
    expect(feedbackForAnswer(bindings, run3, [run3, run2])).toEqual([{ ...onRun3, inherited: false }]);
  });

  it('treats two runs published at the same instant by run id, like binding does', () => {
    const twin = answer('run-0', FP_X, run1.publishedAt);
    const onTwin = binding('c0', twin, '2026-11-20T10:10:00Z');
    expect(feedbackForAnswer([onTwin], run1, [run1, twin])).toEqual([{ ...onTwin, inherited: true }]);
    expect(feedbackForAnswer([onRun1], twin, [run1, twin])).toEqual([]);
  });

  it('keeps legacy single-message versions apart from pair versions', () => {
    const legacyOld = answer('run-old', storedLegacyFingerprint('customer x'), '2026-11-19T10:00:00Z');
    const legacyAgain = answer('run-old-2', storedLegacyFingerprint('customer  x'), '2026-11-19T11:00:00Z');
    const onLegacy = binding('c-old', legacyOld, '2026-11-19T10:30:00Z');
    expect(feedbackForAnswer([onLegacy], run1, [legacyOld, run1])).toEqual([]);
    expect(feedbackForAnswer([onLegacy], legacyAgain, [legacyOld, legacyAgain])).toEqual([{ ...onLegacy, inherited: true }]);
  });

  it('returns one entry per comment, the newest edit', () => {
    const edited = { ...onRun1, action: 'accept' as const, commentUpdatedAt: '2026-11-20T10:45:00Z' };
    expect(feedbackForAnswer([edited, onRun1], run1, all)).toEqual([{ ...edited, inherited: false }]);
    expect(feedbackForAnswer([onRun1, edited], run1, all)).toEqual([{ ...edited, inherited: false }]);
  });
});
