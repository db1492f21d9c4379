import type { PreviousAnswerV1 } from '../judge-answer/judge-input.schema';
import { analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { planJudgments } from '../judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../judge-answer/ticket-state';
import { namesOf, newNames, requestedKinds } from './feedback-requests';
import { rubricJudge } from './rubric-judge';

describe('requests in /ao feedback', () => {
  it('reads the kinds of fact a reason asks for, and nothing from a complaint that asks for none', () => {
    expect(requestedKinds('name the statement and the table in the answer').sort()).toEqual(['statement', 'table']);
    expect(requestedKinds('wrong: say which replica is lagging')).toEqual(['replica']);
    expect(requestedKinds('give the time the lag started')).toEqual(['time']);
    expect(requestedKinds('too vague, redo')).toEqual([]);
  });

  it('a name of the kind counts; the bare word does not', () => {
    expect(namesOf('table', 'find that statement and the table it reads from a large table')).toEqual([]);
    expect(namesOf('table', 'a full table scan on order_items')).toEqual([]);
    expect(namesOf('table', 'SELECT * FROM order_items WHERE id = 1; the orders table')).toEqual(['order_items', 'orders']);
    expect(namesOf('statement', 'the slow log shows SELECT * FROM order_items WHERE id = ?')).toHaveLength(1);
    expect(namesOf('replica', 'one of the two replicas lags')).toEqual([]);
    expect(namesOf('replica', 'mysql-pay-r2 lags; replica r1 is fine')).toEqual(expect.arrayContaining(['mysql-pay-r2', 'r1']));
    expect(newNames('time', 'the lag started at 02:10 UTC, alarm at 03:00', 'alarm at 03:00')).toEqual(['02:10 UTC']);
  });

  describe('in write mode', () => {
    const previous = (reason: string, decision: 'internal_only' | 'human_required' = 'human_required'): PreviousAnswerV1 => ({
      runId: 'run-0',
      publishedAt: '2026-11-20T11:06:00.000Z',
      customerReplyMarkdown: 'Most likely cause: a slow query reads far too many rows.',
      internalHandoffMarkdown: '**Next internal action:** check the slow log.',
      decision,
      latestFeedback: { action: 'revise', reason, commentId: 'c-ao' },
    });
    const human = comment('c-3', 'support', 'public', '2026-11-20T12:30:00.000Z', 'The statement is SELECT * FROM order_items WHERE customer_id = ?; it scans order_items. Add an index on order_items(customer_id).');
    const judge = (reply: string, prev: PreviousAnswerV1, decision: 'internal_only' | 'human_required' = 'human_required') => {
      let state = applyEvent(emptyTicketState('SUP-1042'), { kind: 'ticket', request: analysisRequested() });
      state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: reply, internalHandoffMarkdown: '**Next internal action:** verify the plan.', decision }) });
      state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, [human]) });
      return rubricJudge({ ...planJudgments(state).plans[0].input, previousAnswer: prev });
    };

    it('a version that still names neither the statement nor the table is not fixed (was: not_compared as uncheckable)', () => {
      const out = judge('Most likely cause: one statement reads too many rows from a large table. Next: find the statement and its table.', previous('name the statement and the table in the answer'));
      expect(out.previousFeedbackResolved).toBe('unresolved');
      expect(out.comparison).toBe('answer_2_better');
      expect(out.answer1Gaps[0]).toMatch(/names no statement .*names no table/);
    });

    it('a version that names them is fixed', () => {
      const out = judge('Most likely cause: SELECT * FROM order_items WHERE customer_id = ? scans order_items. Add an index on order_items(customer_id).', previous('name the statement and the table in the answer'));
      expect(out.previousFeedbackResolved).toBe('resolved');
      expect(out.comparison).toBe('equivalent');
    });

    it('"hand it to a human" is a decision check', () => {
      const reply = 'Most likely cause: SELECT * FROM order_items WHERE customer_id = ? scans order_items.';
      expect(judge(reply, previous('hand it to a human', 'internal_only'), 'internal_only').previousFeedbackResolved).toBe('unresolved');
      expect(judge(reply, previous('hand it to a human', 'internal_only'), 'human_required').previousFeedbackResolved).toBe('resolved');
    });
  });
});
