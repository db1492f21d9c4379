import type { ModelPort, ModelRequest, ModelResult } from '@aoc/agent-runtime';
import { analysisRequested, runPublished, timeline } from '../../test/judge-fixtures';
import { combineOrders, compareBothOrders, verdictFor, type OrderedResult } from './answer-comparison';
import type { JudgeInputV1, JudgeModelOutputV1 } from './judge-input.schema';
import { planJudgments, type JudgmentPlan } from './judge-plan';
import { applyEvent, emptyTicketState } from './ticket-state';

function plan(): JudgmentPlan {
  let s = emptyTicketState('SUP-1042');
  s = applyEvent(s, { kind: 'ticket', request: analysisRequested() });
  s = applyEvent(s, { kind: 'answer', run: runPublished() });
  s = applyEvent(s, { kind: 'timeline', timeline: timeline(1) });
  return planJudgments(s).plans[0];
}

const output = (o: Partial<JudgeModelOutputV1> = {}): JudgeModelOutputV1 => ({
  comparison: 'answer_2_better',
  reason: 'the human reply names the cause',
  humanAnswerCommentIds: ['c-3'],
  answer1Gaps: ['misses the full table scan'],
  answer2Gaps: [],
  answer1Strengths: ['honest about what it could not see'],
  answer2Strengths: ['names the index'],
  keyDifferences: ['cause named only by the human'],
  internalHandoffGaps: ['no concrete next action'],
  previousFeedbackResolved: 'not_applicable',
  abstentionCode: null,
  feedbackContest: null,
  ...o,
});

const ordered = (order: OrderedResult['order'], out: JudgeModelOutputV1, previousComplaint = false): OrderedResult => ({
  order,
  engine: 'openai',
  model: 'm1',
  attempts: 1,
  usage: { promptTokens: 10, completionTokens: 5 },
  verdict: verdictFor(out, order === 'published_first' ? 1 : 2, previousComplaint),
  output: out,
});

/** A model port that answers from a script and records what it was asked. */
function scripted(answer: (input: JudgeInputV1, call: number) => JudgeModelOutputV1): ModelPort & { inputs: JudgeInputV1[] } {
  const inputs: JudgeInputV1[] = [];
  return {
    inputs,
    invoke: async <T>(request: ModelRequest<T>): Promise<ModelResult<T>> => {
      const input = request.input as JudgeInputV1;
      inputs.push(input);
      return { output: request.output.parse(answer(input, inputs.length - 1)), engine: 'openai', model: 'm1', usage: { promptTokens: 3, completionTokens: 2 }, attempts: 1 };
    },
  };
}

describe('answer comparison with the position-bias guard', () => {
  it('maps label-based comparisons to verdicts for the published answer', () => {
    expect(verdictFor(output({ comparison: 'answer_2_better' }), 1, false)).toBe('human_better');
    expect(verdictFor(output({ comparison: 'answer_2_better' }), 2, false)).toBe('ai_better');
    expect(verdictFor(output({ comparison: 'answer_1_better' }), 2, false)).toBe('human_better');
    expect(verdictFor(output({ comparison: 'not_comparable' }), 1, false)).toBe('not_compared');
    expect(verdictFor(output({ comparison: 'different_but_valid' }), 1, false)).toBe('different_but_valid');
    expect(verdictFor(output({ comparison: 'answer_1_better', previousFeedbackResolved: 'unresolved' }), 1, true)).toBe('human_better');
  });

  it('asks in both orders with the answers swapped and keeps an agreed verdict', async () => {
    const model = scripted((input) => output({ comparison: input.answer1.kind === 'human_replies' ? 'answer_1_better' : 'answer_2_better' }));
    const outcome = await compareBothOrders(model, plan());
    expect(model.inputs.map((i) => [i.answer1.kind, i.answer2.kind])).toEqual([
      ['published_answer', 'human_replies'],
      ['human_replies', 'published_answer'],
    ]);
    expect(outcome.ordersAgree).toBe(true);
    expect(outcome.fields.verdict).toBe('human_better');
    expect(outcome.fields.qualityScore).toBe(0);
    expect(outcome.fields.judgeEngine).toBe('openai:m1');
    expect(outcome.fields.aiGaps).toEqual(['misses the full table scan']);
    expect(outcome.fields.targetHumanCommentIds).toEqual(['c-3']);
    expect(outcome.fields.referenceComments[0]).toEqual({ id: 'c-3', createdAt: '2026-11-20T12:30:00.000Z', bodyDigest: expect.stringMatching(/^[a-f0-9]{64}$/) });
    expect(outcome.fields.humanAnswerMarkdown).toContain('orders(created_at)');
  });

  it('publishes not_compared, with the reason, when the two orders disagree', async () => {
    // A model that always prefers whichever answer comes first.
    const model = scripted(() => output({ comparison: 'answer_1_better' }));
    const outcome = await compareBothOrders(model, plan());
    expect(outcome.ordersAgree).toBe(false);
    expect(outcome.results.map((r) => r.verdict)).toEqual(['ai_better', 'human_better']);
    expect(outcome.fields.verdict).toBe('not_compared');
    expect(outcome.fields.qualityScore).toBeNull();
    expect(outcome.fields.verdictReason).toMatch(/Position-bias guard: the two answer orders disagreed \(published answer first: ai_better; human answer first: human_better\)/);
  });

  it('keeps only offered human replies, once each, in time order; no reply means not compared', () => {
    const p = plan();
    const out = output({ humanAnswerCommentIds: ['c-3', 'c-2b', 'c-3', 'c-1', 'made-up'] });
    const outcome = combineOrders(p, ordered('published_first', out), ordered('human_first', output({ comparison: 'answer_1_better' })));
    expect(outcome.fields.targetHumanCommentIds).toEqual(['c-2b', 'c-3']);
    const none = combineOrders(p, ordered('published_first', output({ humanAnswerCommentIds: ['c-1'] })), ordered('human_first', output({ comparison: 'answer_1_better' })));
    expect(none.fields.verdict).toBe('not_compared');
    expect(none.fields.humanAnswerMarkdown).toBeNull();
    expect(none.fields.verdictReason).toMatch(/named no human reply/);
  });

  it('keeps human_better without a human answer when previous revise/wrong feedback is unresolved', () => {
    const p = { ...plan(), previousComplaint: true };
    const out = output({ humanAnswerCommentIds: [], comparison: 'answer_2_better', previousFeedbackResolved: 'unresolved' });
    const outcome = combineOrders(p, ordered('published_first', out, true), ordered('human_first', { ...out, comparison: 'answer_1_better' }, true));
    expect(outcome.fields.verdict).toBe('human_better');
    expect(outcome.fields.humanAnswerMarkdown).toBeNull();
    expect(outcome.fields.verdictReason).toMatch(/still present/);
  });

  it('clamps lists and texts to what evaluation.judged accepts', () => {
    const long = output({ answer1Gaps: Array.from({ length: 30 }, (_, i) => `${'x'.repeat(600)} ${i}`), reason: 'r'.repeat(5000), keyDifferences: ['  ', 'a'] });
    const outcome = combineOrders(plan(), ordered('published_first', long), ordered('human_first', output({ comparison: 'answer_1_better' })));
    expect(outcome.fields.aiGaps).toHaveLength(20);
    expect(outcome.fields.aiGaps[0].length).toBe(500);
    expect(outcome.fields.verdictReason.length).toBe(2000);
    expect(outcome.fields.keyDifferences).toEqual(['a']);
  });
});
