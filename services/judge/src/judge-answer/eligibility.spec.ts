import { analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { eligibilityOfJudgment } from './eligibility';
import type { JudgeInputV1 } from './judge-input.schema';
import { planJudgments } from './judge-plan';
import { applyEvent, emptyTicketState } from './ticket-state';

function input(): JudgeInputV1 {
  let state = emptyTicketState('SUP-1042');
  state = applyEvent(state, { kind: 'ticket', request: analysisRequested() });
  state = applyEvent(state, { kind: 'answer', run: runPublished() });
  state = applyEvent(state, { kind: 'timeline', timeline: timeline(1) });
  return planJudgments(state).plans[0].input;
}

describe('eligibility of a judgment', () => {
  it('is compared exactly when a verdict was given, else follows the abstention code', () => {
    expect(eligibilityOfJudgment('equivalent', null, input())).toBe('compared');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', input())).toBe('not_substantive');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.HUMAN_CLAIM_WITHDRAWN', input())).toBe('human_claim_withdrawn');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.FEEDBACK_UNPARSEABLE', input())).toBe('feedback_unparseable');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.NEEDS_MODEL', input())).toBe('undecided');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.ORDER_DISAGREEMENT', input())).toBe('undecided');
  });

  it('no human answer after the anchor is human_answer_before_cutoff when Support had already answered in what the AI saw', () => {
    const before = comment('s0', 'support', 'public', '2026-11-20T10:50:00.000Z', 'We found the cause: a report query scans the whole orders table; add an index on orders(created_at).');
    const chaser = comment('s1', 'support', 'public', '2026-11-20T10:55:00.000Z', 'Thanks, we are looking into it.');
    const withAnswer = { ...input(), timeline: [before].map((c) => ({ id: c.id, authorRole: c.authorRole, createdAt: c.createdAt, updatedAt: c.updatedAt, body: c.body, visibleToAi: true })) };
    const onlyProgress = { ...input(), timeline: [chaser].map((c) => ({ id: c.id, authorRole: c.authorRole, createdAt: c.createdAt, updatedAt: c.updatedAt, body: c.body, visibleToAi: true })) };
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.HUMAN_ANSWER_EMPTY', withAnswer)).toBe('human_answer_before_cutoff');
    // A progress note before the cutoff answered nothing: there simply is no human answer.
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.HUMAN_ANSWER_EMPTY', onlyProgress)).toBe('no_human_answer');
    expect(eligibilityOfJudgment('not_compared', 'JUDGE.HUMAN_ANSWER_EMPTY', { ...input(), timeline: [] })).toBe('no_human_answer');
  });
});
