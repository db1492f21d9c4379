import type { TimelineCommentV1 } from '@aoc/contracts';
import { analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { swapped, verdictFor } from '../judge-answer/answer-comparison';
import { planJudgments } from '../judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../judge-answer/ticket-state';
import { compareFacts, missingFindings } from './fact-comparison';
import { factsOf } from './facts/facts';
import { readPublished } from './published-answer';
import { rubricJudge } from './rubric-judge';

const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const TITLE = 'Checkout slow on tidb-shop-prod';
const DESCRIPTION = 'Since 09:10 UTC the p99 of checkout queries went from the usual 40 ms to about 300 ms.';
const AI_REPLY =
  'What the data shows:\n- p99 rose to 300 ms at 09:10 UTC.\n- Write conflicts rose to 81 per second.\n\nMost likely cause: a changed statement reads far more data.\n\nStill to confirm: which statement.\n\nSuggested next step: Support reads TopSQL for 09:00-09:30.';
const AI_HANDOFF = '**Observations:**\n- p99 300 ms\n**Leading mechanism (moderate):** a changed statement reads more data.\n**Next internal action:** read TopSQL on tidb-shop-prod for 09:00-09:30 UTC.';

function judge(comments: TimelineCommentV1[]) {
  let state = emptyTicketState('SUP-1042');
  state = applyEvent(state, { kind: 'ticket', request: analysisRequested({ ticket: { ...analysisRequested().ticket, title: TITLE, description: DESCRIPTION, comments: [] } }) });
  state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: AI_REPLY, internalHandoffMarkdown: AI_HANDOFF }) });
  state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, comments) });
  const input = planJudgments(state).plans[0].input;
  const out = rubricJudge(input);
  expect(verdictFor(rubricJudge(swapped(input)), 2, false)).toBe(verdictFor(out, 1, false));
  return { out, verdict: verdictFor(out, 1, false) };
}

describe('one fact comparison for grounds, gaps and differences', () => {
  it('an incidental target number from the ticket does not make the human better when the cause came later', () => {
    const { out, verdict } = judge([
      comment('u1', 'customer', 'public', at('11:20'), 'Update: we switched on the new coupon filter at 09:05.'),
      comment('n1', 'support', 'internal', at('11:30'), 'TopSQL: the coupon query does a full table scan on coupons; no index on coupons(code).'),
      comment('s1', 'support', 'public', at('11:40'), 'The coupon filter you switched on at 09:05 does a full table scan on coupons. Add an index on coupons(code). Latency should then return to about 40 ms, the usual level you quoted.'),
    ]);
    expect(verdict).toBe('different_but_valid');
    expect(out.answer1Gaps.join(' ')).not.toContain('40 ms');
  });

  it('the same ticket number used as a premise of the cause and ignored by the AI grounds human_better, saying which fact, why the AI had it and what it bears on', () => {
    const { out, verdict } = judge([comment('s1', 'support', 'public', at('11:40'), 'Going from 40 ms to 300 ms is 7x more work per query, so each checkout now reads 7x the rows.')]);
    expect(verdict).toBe('human_better');
    expect(out.answer1Gaps.join(' ')).toMatch(/builds on "40 ms" from the ticket \(the ticket states it, so the AI had it at its cutoff\), which bears on the cause/);
  });

  it('never lists one value both as a gap of the published answer and among its own facts', () => {
    const { out } = judge([comment('s1', 'support', 'public', at('11:40'), 'We see 81 write conflicts per second since 09:10, because two jobs update the same rows. Run them one after the other.')]);
    const gaps = out.answer1Gaps.join(' ');
    const onlyPublished = out.keyDifferences.find((k) => k.startsWith('only the published answer')) ?? '';
    expect(onlyPublished).not.toMatch(/"81/);
    expect(gaps).not.toMatch(/"81/);
  });

  it('a value read in two dimensions is one shared fact, not a gap', () => {
    const human = factsOf('81 write conflicts per second');
    const ai = factsOf('write conflicts rose to 81 per second');
    const c = compareFacts({ humanFacts: human, humanText: '81 write conflicts per second', tagged: new Map(), sources: [], ticketFacts: [], aiFacts: ai });
    expect(c.human.find((f) => f.fact.kind === 'quantity')?.stated).toBe(true);
    expect(missingFindings(c)).toEqual([]);
    expect(c.aiOnly.filter((f) => f.kind === 'quantity')).toEqual([]);
  });
});

describe('the published answer as typed findings', () => {
  const read = (handoff: string, decision: 'internal_only' | 'human_required' = 'human_required') =>
    readPublished({ kind: 'published_answer', customerReplyMarkdown: 'We could not determine the cause.', internalHandoffMarkdown: handoff, decision, publishedAt: at('11:00'), requestedContext: [] }, [], []);

  it('types the next action (the verdict rules read this, not the wording of a gap message)', () => {
    expect(read('**Next internal action:** read TopSQL for 09:00-09:30.').nextAction).toBe('concrete');
    expect(read('**Next internal action:** Hand off to Support with the observations above.')).toMatchObject({ nextAction: 'vague', handoff: [{ kind: 'vague_next_action' }] });
    expect(read('**Evidence boundary:** none.')).toMatchObject({ nextAction: 'none', handoff: [{ kind: 'no_next_action' }] });
    expect(read('Support should check the slow log. **Next internal action:** check the slow log.', 'internal_only')).toMatchObject({ nextAction: 'not_required', handoff: [{ kind: 'internal_only_leaves_support' }] });
  });
});
