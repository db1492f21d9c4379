import { Topics } from '@aoc/contracts';
import { BASE_COMMENTS, GOOD_HANDOFF, GOOD_REPLY, HUMAN_ANSWER, analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { JudgeInputV1 } from './judge-input.schema';
import { anchorOf, planJudgments } from './judge-plan';
import { applyEvent, emptyTicketState, type JudgeEvent, type TicketState } from './ticket-state';

const stateOf = (...events: JudgeEvent[]): TicketState => events.reduce(applyEvent, emptyTicketState('SUP-1042'));
const ticket: JudgeEvent = { kind: 'ticket', request: analysisRequested() };
const answer: JudgeEvent = { kind: 'answer', run: runPublished() };
const tl = (revision: number, comments = BASE_COMMENTS): JudgeEvent => ({ kind: 'timeline', timeline: timeline(revision, comments) });

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) keysOf(v, out.add(k));
  return out;
}

describe('planning judgments', () => {
  it('judges a replay once a public Support reply exists after its cutoff', () => {
    const { plans } = planJudgments(stateOf(ticket, answer, tl(1)));
    expect(plans).toHaveLength(1);
    expect(plans[0].trigger).toBe('human_answer');
    expect(plans[0].input.anchor).toBe('2026-11-20T11:05:00.000Z');
    expect([...plans[0].candidates.keys()]).toEqual(['c-2b', 'c-3']);
    expect(plans[0].evaluationId).toMatch(/^eval-[a-f0-9]{40}$/);
  });

  it('anchors live runs at their publication', () => {
    expect(anchorOf({ ...stateOf(answer).answers[0], cutoff: null })).toBe('2026-11-29T10:01:00.000Z');
  });

  it('waits for the frozen ticket, the timeline and a human reply', () => {
    expect(planJudgments(stateOf(answer, tl(1))).plans).toEqual([]);
    expect(planJudgments(stateOf(ticket, answer)).plans).toEqual([]);
    expect(planJudgments(stateOf(ticket, answer, tl(1, BASE_COMMENTS.filter((c) => c.authorRole !== 'support')))).plans).toEqual([]);
  });

  it('never judges continuation runs automatically', () => {
    const s = stateOf({ kind: 'ticket', request: analysisRequested({ trigger: 'continuation' }) }, { kind: 'answer', run: runPublished({ trigger: 'continuation' }) }, tl(1));
    expect(planJudgments(s).plans).toEqual([]);
  });

  it('judges on a trusted /ao human review request even without a human reply', () => {
    const live = runPublished({ trigger: 'initial', cutoff: null, publishedAt: '2026-11-20T11:10:00.000Z' });
    const review = comment('c-ao', 'support', 'internal', '2026-11-20T11:20:00.000Z', '/ao human: please compare with what we found');
    const s = stateOf({ kind: 'ticket', request: analysisRequested({ trigger: 'initial', cutoff: null }) }, { kind: 'answer', run: live }, tl(1, [BASE_COMMENTS[0], review]));
    const { plans, bindings } = planJudgments(s);
    expect(bindings).toEqual([expect.objectContaining({ commentId: 'c-ao', runId: 'run-1', action: 'human' })]);
    expect(plans).toHaveLength(1);
    expect(plans[0].trigger).toBe('review_requested');
    expect(plans[0].input.feedback).toEqual([expect.objectContaining({ commentId: 'c-ao', action: 'human', inherited: false })]);
    // A customer cannot request a review from a public comment.
    const untrusted = comment('c-ao', 'customer', 'public', '2026-11-20T11:20:00.000Z', '/ao human');
    expect(planJudgments(stateOf({ kind: 'ticket', request: analysisRequested({ trigger: 'initial', cutoff: null }) }, { kind: 'answer', run: live }, tl(1, [untrusted]))).plans).toEqual([]);
  });

  it('keeps the evaluation id when only customer comments change, and changes it when the human answer changes', () => {
    const base = planJudgments(stateOf(ticket, answer, tl(1))).plans[0].evaluationId;
    const thanks = comment('c-9', 'customer', 'public', '2026-11-21T09:00:00.000Z', 'thanks again');
    expect(planJudgments(stateOf(ticket, answer, tl(2, [...BASE_COMMENTS, thanks]))).plans[0].evaluationId).toBe(base);
    const edited = BASE_COMMENTS.map((c) => (c.id === HUMAN_ANSWER.id ? { ...c, body: `${c.body} Then run ANALYZE TABLE orders.`, updatedAt: '2026-11-20T12:45:00.000Z' } : c));
    expect(planJudgments(stateOf(ticket, answer, tl(3, edited))).plans[0].evaluationId).not.toBe(base);
  });

  it('does not plan an evaluation that was published or blocked', () => {
    const s = stateOf(ticket, answer, tl(1));
    const id = planJudgments(s).plans[0].evaluationId;
    expect(planJudgments({ ...s, evaluated: new Set([id]) }).plans).toEqual([]);
    expect(planJudgments({ ...s, blocked: new Set([id]) }).plans).toEqual([]);
  });

  it('gives a write-mode answer that replaced another version the previous pair and its latest feedback', () => {
    const first = runPublished({ runId: 'run-0', trigger: 'initial', mode: 'write', cutoff: null, publishedAt: '2026-11-20T11:06:00.000Z' });
    const wrong = comment('c-ao', 'support', 'internal', '2026-11-20T11:30:00.000Z', '/ao wrong: the cause is a full table scan\nname the index on orders(created_at)');
    const second = runPublished({ runId: 'run-1', trigger: 'replay', mode: 'write', customerReplyMarkdown: GOOD_REPLY, internalHandoffMarkdown: GOOD_HANDOFF });
    const s = stateOf(
      { kind: 'ticket', request: analysisRequested({ runId: 'run-0', trigger: 'initial', mode: 'write', cutoff: null }) },
      ticket,
      { kind: 'answer', run: first },
      { kind: 'answer', run: second },
      tl(1, [...BASE_COMMENTS, wrong]),
    );
    const plan = planJudgments(s).plans.find((p) => p.answer.runId === 'run-1');
    expect(plan?.input.previousAnswer).toEqual(
      expect.objectContaining({ runId: 'run-0', customerReplyMarkdown: first.customerReplyMarkdown, latestFeedback: { action: 'wrong', reason: 'the cause is a full table scan\nname the index on orders(created_at)', commentId: 'c-ao' } }),
    );
    expect(plan?.previousComplaint).toBe(true);
    // The old /ao stays with the old version: the new one does not inherit it.
    expect(plan?.input.feedback).toEqual([]);
    // A read-mode replay of the same ticket gets no previous answer.
    const read = planJudgments({ ...s, answers: s.answers.map((a) => (a.runId === 'run-1' ? { ...a, mode: 'read' as const } : a)) }).plans.find((p) => p.answer.runId === 'run-1');
    expect(read?.input.previousAnswer).toBeNull();
  });

  it('inherits feedback for a later run of the same answer version', () => {
    const first = runPublished({ runId: 'run-0', trigger: 'initial', cutoff: null, publishedAt: '2026-11-20T11:06:00.000Z' });
    const accept = comment('c-ok', 'support', 'internal', '2026-11-20T11:30:00.000Z', '/ao accept');
    const s = stateOf(ticket, { kind: 'answer', run: first }, answer, tl(1, [...BASE_COMMENTS, accept]));
    const { feedbackByRun } = planJudgments(s);
    expect(feedbackByRun.get('run-0')).toEqual([expect.objectContaining({ commentId: 'c-ok', inherited: false })]);
    expect(feedbackByRun.get('run-1')).toEqual([expect.objectContaining({ commentId: 'c-ok', inherited: true })]);
  });

  it('shows the model the public timeline with roles and visibleToAi, without internal notes or /ao commands', () => {
    const ao = comment('c-ao', 'support', 'public', '2026-11-20T12:40:00.000Z', '/ao revise: mention the index');
    const { input } = planJudgments(stateOf(ticket, answer, tl(1, [...BASE_COMMENTS, ao]))).plans[0];
    expect(input.timeline.map((c) => [c.id, c.authorRole, c.visibleToAi])).toEqual([
      ['c-1', 'customer', true],
      ['c-2b', 'support', false],
      ['c-3', 'support', false],
      ['c-4', 'customer', false],
    ]);
  });

  it('never puts execution state into the model input', () => {
    const withExecution = { ...runPublished(), execution: { evidenceAcquisition: { status: 'failed' }, failureCodes: ['PROVIDER.NOT_CONFIGURED'] } };
    const { input } = planJudgments(stateOf(ticket, { kind: 'answer', run: withExecution }, tl(1))).plans[0];
    const keys = keysOf(input);
    for (const k of ['execution', 'evidenceAcquisition', 'failureCodes', 'providerQueryAttempts', 'providerQueryEvents', 'providerHttpAttempts', 'providerSystemEvents', 'providerAttempts', 'responseGeneration']) {
      expect(keys.has(k)).toBe(false);
    }
    expect(JSON.stringify(input)).not.toContain('PROVIDER.NOT_CONFIGURED');
    // The schema itself refuses such a field.
    expect(JudgeInputV1.safeParse({ ...input, execution: {} }).success).toBe(false);
    expect(JudgeInputV1.safeParse({ ...input, answer1: { ...input.answer1, failureCodes: [] } }).success).toBe(false);
    // And nothing in the execution topic's schema is a judge input topic.
    expect(Topics.runExecutionRecorded.consumers).not.toContain('judge');
  });
});
