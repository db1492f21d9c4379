import type { ModelPort } from '@aoc/agent-runtime';
import type { Verdict } from '@aoc/contracts';
import { RUBRIC_JUDGE_MODEL, rubricJudge } from '../rubric-judge/rubric-judge';
import { combineOrders, compareBothOrders, swapped, verdictFor, type ComparisonOutcome, type OrderedResult } from './answer-comparison';
import type { JudgmentPlan } from './judge-plan';

export interface Disagreement {
  modelEngine: string;
  modelVerdict: Verdict;
  builtinVerdict: Verdict;
  builtinReason: string;
}

/** The published outcome and, where a model cross-checked a built-in verdict, how they differed. */
export interface Judged {
  outcome: ComparisonOutcome;
  disagreement: Disagreement | null;
}

/** The built-in judge in both orders, read directly (deterministic, nothing to ask). */
export function builtinOutcome(plan: JudgmentPlan): ComparisonOutcome {
  const ordered = (order: OrderedResult['order']): OrderedResult => {
    const output = rubricJudge(order === 'published_first' ? plan.input : swapped(plan.input));
    return { order, engine: 'builtin', model: `builtin:${RUBRIC_JUDGE_MODEL}`, attempts: 1, usage: null, verdict: verdictFor(output, order === 'published_first' ? 1 : 2, plan.previousComplaint), output };
  };
  return combineOrders(plan, ordered('published_first'), ordered('human_first'));
}

const NOTE_MAX = 2000;

/**
 * Which engine's outcome is published when an OpenAI-compatible judge is configured: the built-in
 * judge's where it decides (it is the measured one, `npm run bench:judge`) and where it abstains for
 * a reason the texts settle (no human answer, only progress replies, ...); the model's where the
 * built-in judge abstains with `JUDGE.NEEDS_MODEL`. On a decided case the model's differing verdict
 * is a disagreement worth keeping: it calibrates both engines. A model abstention is none.
 * Without a configured model the port answers with the built-in engine and its outcome stands.
 */
export async function judgeWithEngines(model: ModelPort, plan: JudgmentPlan): Promise<Judged> {
  const asked = await compareBothOrders(model, plan);
  if (asked.results[0].engine === 'builtin') return { outcome: asked, disagreement: null };
  const builtin = builtinOutcome(plan);
  const b = builtin.fields;
  if (b.verdict === 'not_compared') {
    if (b.abstentionCode !== 'JUDGE.NEEDS_MODEL') return { outcome: builtin, disagreement: null };
    const note = `The built-in judge abstained (JUDGE.NEEDS_MODEL); the model judged. `;
    return { outcome: { ...asked, fields: { ...asked.fields, verdictReason: `${note}${asked.fields.verdictReason}`.slice(0, NOTE_MAX) } }, disagreement: null };
  }
  const m = asked.fields.verdict;
  if (m === 'not_compared' || m === b.verdict) return { outcome: builtin, disagreement: null };
  return { outcome: builtin, disagreement: { modelEngine: asked.fields.judgeEngine, modelVerdict: m, builtinVerdict: b.verdict, builtinReason: b.verdictReason.slice(0, NOTE_MAX) } };
}
