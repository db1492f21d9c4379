import type { Verdict } from '@aoc/contracts';
import fc from 'fast-check';
import { qualityProjection } from './quality-projection.policy';
import type { FeedbackAction } from './feedback.types';

const fb = (action: FeedbackAction, commentUpdatedAt: string) => ({ action, commentUpdatedAt });

describe('qualityProjection', () => {
  it.each([
    ['ai_better', 1],
    ['equivalent', 1],
    ['different_but_valid', 1],
    ['human_better', 0],
    ['not_compared', null],
  ] as const)('maps verdict %s to %s without feedback', (verdict: Verdict, score) => {
    expect(qualityProjection([], verdict)).toEqual({ score, source: 'judge', judgeReviewRequested: false });
  });

  it('stays pending without feedback or verdict', () => {
    expect(qualityProjection([], null)).toEqual({ score: null, source: 'none', judgeReviewRequested: false });
  });

  it.each([
    ['accept', 'human_better', 1],
    ['revise', 'ai_better', 0],
    ['wrong', 'equivalent', 0],
    ['wrong', null, 0],
    ['accept', 'not_compared', 1],
  ] as const)('explicit %s owns the projection over verdict %s', (action, verdict, score) => {
    expect(qualityProjection([fb(action, '2026-11-20T10:00:00Z')], verdict)).toEqual({ score, source: 'feedback', judgeReviewRequested: false });
  });

  it('lets the latest explicit action win, by instant rather than by string or position', () => {
    const earlierAccept = fb('accept', '2026-11-20T10:00:00Z');
    const laterWrong = fb('wrong', '2026-11-20T18:30:00+08:00'); // 10:30Z
    expect(qualityProjection([laterWrong, earlierAccept], 'ai_better').score).toBe(0);
    expect(qualityProjection([earlierAccept, laterWrong], 'ai_better').score).toBe(0);
    expect(qualityProjection([fb('wrong', '2026-11-20T09:00:00Z'), fb('human', '2026-11-20T09:30:00Z'), earlierAccept], 'human_better').score).toBe(1);
    expect(qualityProjection([earlierAccept, fb('revise', '2026-11-20T17:00:00+08:00')], 'human_better').score).toBe(1); // revise at 09:00Z is older
  });

  it('resolves explicit actions edited at the same instant to 0, whatever their order', () => {
    const at = '2026-11-20T10:00:00Z';
    expect(qualityProjection([fb('accept', at), fb('revise', at)], null).score).toBe(0);
    expect(qualityProjection([fb('revise', at), fb('accept', at)], null).score).toBe(0);
  });

  it('treats human as a review request, never as a score', () => {
    expect(qualityProjection([fb('human', '2026-11-20T10:00:00Z')], null)).toEqual({ score: null, source: 'none', judgeReviewRequested: true });
    expect(qualityProjection([fb('human', '2026-11-20T10:00:00Z')], 'human_better')).toEqual({ score: 0, source: 'judge', judgeReviewRequested: true });
    // A later human request does not take the projection away from an explicit action.
    expect(qualityProjection([fb('accept', '2026-11-20T10:00:00Z'), fb('human', '2026-11-20T11:00:00Z')], 'human_better')).toEqual({
      score: 1,
      source: 'feedback',
      judgeReviewRequested: true,
    });
  });

  it('depends only on the set of feedback, never on its order', () => {
    const entry = fc.record({ action: fc.constantFrom<FeedbackAction>('accept', 'revise', 'wrong', 'human'), commentUpdatedAt: fc.integer({ min: 0, max: 5 }).map((m) => `2026-11-20T10:0${m}:00Z`) });
    const verdict = fc.constantFrom<Verdict | null>('ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared', null);
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }).chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))), verdict, ([list, shuffled], v) => {
        const result = qualityProjection(list, v);
        expect(qualityProjection(shuffled, v)).toEqual(result);
        const explicit = list.filter((f) => f.action !== 'human');
        if (explicit.length === 0) return;
        const newest = Math.max(...explicit.map((f) => Date.parse(f.commentUpdatedAt)));
        const atNewest = explicit.filter((f) => Date.parse(f.commentUpdatedAt) === newest);
        expect(result).toMatchObject({ source: 'feedback', score: atNewest.every((f) => f.action === 'accept') ? 1 : 0 });
      }),
    );
  });
});
