import fc from 'fast-check';
import type { TimelineCommentV1 } from '@aoc/contracts';
import { BASE_COMMENTS, HUMAN_ANSWER, analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { planJudgments } from './judge-plan';
import { applyEvent, emptyTicketState, type JudgeEvent, type TicketState } from './ticket-state';

/**
 * Timeline revisions arrive out of order and more than once (the collector re-publishes, the bus
 * redelivers). Whatever the order, the judge ends on the newest revision with the same feedback
 * bindings (same run, latest action and reason) and the same evaluations: nothing double-counted,
 * mis-bound or lost.
 */
const ao = (body: string, updatedAt: string): TimelineCommentV1 => ({ ...comment('c-ao', 'support', 'internal', '2026-11-29T10:30:00.000Z', body), updatedAt });

/** Revision n of the ticket: later revisions add the human answer and edit the /ao comment. */
function revision(n: number): TimelineCommentV1[] {
  const base = BASE_COMMENTS.filter((c) => c.id !== HUMAN_ANSWER.id);
  const withAnswer = n >= 2 ? [...base, HUMAN_ANSWER] : base;
  if (n < 3) return withAnswer;
  const action = n % 2 === 0 ? 'revise' : 'wrong';
  return [...withAnswer, ao(`/ao ${action}: reason ${n}`, `2026-11-29T1${n % 10}:40:00.000Z`)];
}

function run(order: number[]): { state: TicketState; evaluations: Set<string> } {
  let state = emptyTicketState('SUP-1042');
  const evaluations = new Set<string>();
  const deliver = (event: JudgeEvent) => {
    state = applyEvent(state, event);
    const plan = planJudgments(state);
    state = { ...state, bindings: plan.bindings };
    // What the handler would publish: each planned evaluation once.
    for (const p of plan.plans) evaluations.add(p.evaluationId);
    state = { ...state, evaluated: new Set([...state.evaluated, ...plan.plans.map((p) => p.evaluationId)]) };
  };
  deliver({ kind: 'ticket', request: analysisRequested({ mode: 'write', trigger: 'initial', cutoff: null }) });
  deliver({ kind: 'answer', run: runPublished({ mode: 'write', trigger: 'initial', cutoff: null, publishedAt: '2026-11-29T10:01:00.000Z' }) });
  for (const n of order) deliver({ kind: 'timeline', timeline: timeline(n, revision(n)) });
  return { state, evaluations };
}

describe('timeline revisions in any order', () => {
  it('end on the newest revision with the same bindings and evaluations as in order', () => {
    const revisions = [1, 2, 3, 4, 5, 6];
    const inOrder = run(revisions);
    const shape = (s: TicketState) => s.bindings.map((b) => [b.commentId, b.runId, b.commentCreatedAt, b.action, b.reason]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...revisions), { minLength: 1, maxLength: 14 }), (extra) => {
        // Every revision arrives at least once, in a random order, some twice.
        const order = fc.sample(fc.shuffledSubarray(revisions, { minLength: revisions.length, maxLength: revisions.length }), { numRuns: 1, seed: extra.length })[0].concat(extra);
        const got = run(order);
        expect(got.state.timeline?.revision).toBe(6);
        expect(shape(got.state)).toEqual(shape(inOrder.state));
        // The binding never moves to another run and keeps its creation time, whatever edits came when.
        expect(got.state.bindings.every((b) => b.runId === 'run-1')).toBe(true);
        // No evaluation of an answer version is planned twice for the same human answer.
        expect([...got.evaluations].length).toBeLessThanOrEqual(revisions.length);
      }),
      { numRuns: 60 },
    );
    expect(inOrder.state.bindings).toEqual([expect.objectContaining({ commentId: 'c-ao', runId: 'run-1' })]);
  });
});
