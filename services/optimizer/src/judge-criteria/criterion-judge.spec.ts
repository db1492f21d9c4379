import { Criterion, judgeCase, judgeCriterion, leadingMechanism, runFinding, withExecutionGuards, type JudgedAnswer } from './criterion-judge';

const answer = (over: Partial<JudgedAnswer> = {}): JudgedAnswer => ({
  customerReplyMarkdown: 'p99 rose from 0.046 s to 0.708 s at 13:12Z. Most likely cause: CPU of component=tidb rose 2.54x.',
  internalHandoffMarkdown: '**Evidence boundary:** latency via wetech (complete).\n**Leading mechanism (moderate):** CPU utilisation rose from 4 s to 11 s at 13:12 UTC.\n**Open link:** which statements',
  decision: 'human_required',
  requestedContext: [],
  queriedFamilies: ['statement_latency', 'cpu'],
  ...over,
});
const c = (raw: unknown) => Criterion.parse(raw);

describe('criterion judge', () => {
  it('checks the leading mechanism family through the ontology words of the handoff line', () => {
    expect(leadingMechanism(answer().internalHandoffMarkdown)).toMatch(/^CPU utilisation/);
    expect(judgeCriterion(c({ id: 'lead', kind: 'leading_mechanism_family', family: 'cpu' }), answer()).status).toBe('met');
    const locks = judgeCriterion(c({ id: 'lead', kind: 'leading_mechanism_family', family: 'lock_waits' }), answer());
    expect(locks).toMatchObject({ status: 'gap', reason: expect.stringContaining('not lock_waits') });
    const none = answer({ internalHandoffMarkdown: '**Leading mechanism (undetermined):** none' });
    expect(judgeCriterion(c({ id: 'lead', kind: 'leading_mechanism_family', family: 'cpu' }), none)).toMatchObject({ status: 'gap', reason: 'the answer names no leading mechanism' });
  });

  it('checks decisions, requested context, stated facts (number-tolerant) and absent phrases', () => {
    expect(judgeCriterion(c({ id: 'd', kind: 'decision', decision: 'clarification_needed' }), answer()).status).toBe('gap');
    expect(judgeCriterion(c({ id: 'r', kind: 'requested_context', phrase: 'deploy time' }), answer({ requestedContext: ['The exact deploy time of release 4.2'] })).status).toBe('met');
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: '0.71 s' }), answer()).status).toBe('met');
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: '0.9 s' }), answer()).status).toBe('gap');
    expect(judgeCriterion(c({ id: 'p', kind: 'phrase_absent', phrase: 'component=TiDB' }), answer()).status).toBe('gap');
    expect(judgeCriterion(c({ id: 'q', kind: 'evidence_family_queried', family: 'lock_waits' }), answer()).status).toBe('gap');
  });

  it('checks a stated fact in the message it must reach: one only in the handoff was not told to the customer', () => {
    const handoffOnly = answer({ internalHandoffMarkdown: `${answer().internalHandoffMarkdown}\nBlocking statement digest 9f2c on table orders.` });
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: 'orders' }), handoffOnly)).toMatchObject({ status: 'gap', reason: 'states "orders" in the internal handoff only: the customer was not told' });
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: 'orders', message: 'internal_handoff' }), handoffOnly).status).toBe('met');
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: 'orders', message: 'either' }), handoffOnly).status).toBe('met');
    expect(judgeCriterion(c({ id: 'f', kind: 'fact_stated', phrase: 'orders', message: 'internal_handoff' }), answer()).status).toBe('gap');
    expect(() => c({ id: 'f', kind: 'fact_stated', phrase: 'orders', message: 'ticket' })).toThrow();
  });

  it('answers free text inconclusive with the reason, and not_applicable outside its decisions', () => {
    expect(judgeCriterion(c({ id: 't', kind: 'free_text', text: 'explains why the plan changed' }), answer())).toMatchObject({ status: 'inconclusive', reason: expect.stringContaining('model judge') });
    expect(judgeCriterion(c({ id: 'r', kind: 'requested_context', phrase: 'x y', appliesToDecisions: ['clarification_needed'] }), answer()).status).toBe('not_applicable');
  });

  it('refuses criteria it cannot check: an unknown family or kind, a bad id', () => {
    expect(Criterion.safeParse({ id: 'lead', kind: 'leading_mechanism_family', family: 'vibes' }).success).toBe(false);
    expect(Criterion.safeParse({ id: 'x', kind: 'sentiment' }).success).toBe(false);
    expect(Criterion.safeParse({ id: 'Bad Id', kind: 'decision', decision: 'internal_only' }).success).toBe(false);
  });

  it('applies execution state after judging: failed generation and unverified capability make criteria inconclusive', () => {
    const criteria = [c({ id: 'lead', kind: 'leading_mechanism_family', family: 'cpu', requiredCapabilities: ['provider_evidence'] }), c({ id: 'd', kind: 'decision', decision: 'human_required' }), c({ id: 'na', kind: 'decision', decision: 'internal_only', appliesToDecisions: ['internal_only'] })];
    const judged = criteria.map((x) => judgeCriterion(x, answer()));
    expect(withExecutionGuards(judged, criteria, { responseGeneration: 'complete', providerCapability: 'unverified' }).map((r) => r.status)).toEqual(['inconclusive', 'met', 'not_applicable']);
    expect(withExecutionGuards(judged, criteria, { responseGeneration: 'failed', providerCapability: 'verified' }).map((r) => r.status)).toEqual(['inconclusive', 'inconclusive', 'not_applicable']);
  });

  it('finds gaps when a blocking criterion has one, criteria met when all applicable are met, inconclusive otherwise', () => {
    const lead = c({ id: 'lead', kind: 'leading_mechanism_family', family: 'lock_waits' });
    const ok = { responseGeneration: 'complete', providerCapability: 'verified' } as const;
    expect(runFinding([judgeCase('a', [lead], answer(), ok)], 'lead')).toBe('gaps_found');
    const cpu = c({ id: 'lead', kind: 'leading_mechanism_family', family: 'cpu' });
    expect(runFinding([judgeCase('a', [cpu], answer(), ok), judgeCase('b', [cpu], answer(), ok)], 'lead')).toBe('criteria_met');
    expect(runFinding([judgeCase('a', [cpu], answer(), { ...ok, responseGeneration: 'failed' })], 'lead')).toBe('inconclusive');
  });
});
