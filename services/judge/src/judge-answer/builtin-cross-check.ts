import type { ModelPort } from '@aoc/agent-runtime';
import type { EvaluationCrossCheckV1, Verdict } from '@aoc/contracts';
import type { RuleId } from '../rubric-judge/decide-comparison';
import { RUBRIC_JUDGE_MODEL, rubricJudgment } from '../rubric-judge/rubric-judge';
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
  return builtinJudgment(plan).outcome;
}

/** The built-in outcome and the rule that decided it in the published-first order (a code, for the cross-check). */
export function builtinJudgment(plan: JudgmentPlan): { outcome: ComparisonOutcome; rule: RuleId } {
  const ordered = (order: OrderedResult['order']): { result: OrderedResult; rule: RuleId } => {
    const { output, rule } = rubricJudgment(order === 'published_first' ? plan.input : swapped(plan.input));
    const result: OrderedResult = { order, engine: 'builtin', model: `builtin:${RUBRIC_JUDGE_MODEL}`, attempts: 1, usage: null, verdict: verdictFor(output, order === 'published_first' ? 1 : 2, plan.previousComplaint), output };
    return { result, rule };
  };
  const first = ordered('published_first');
  return { outcome: combineOrders(plan, first.result, ordered('human_first').result), rule: first.rule };
}

const NOTE_MAX = 2000;

const withCrossCheck = (outcome: ComparisonOutcome, crossCheck: EvaluationCrossCheckV1 | null): ComparisonOutcome => ({ ...outcome, fields: { ...outcome.fields, crossCheck } });

/**
 * Which engine's outcome is published when an OpenAI-compatible judge is configured: the built-in
 * judge's where it decides (it is the measured one, `npm run bench:judge`) and where it abstains for
 * a reason the texts settle (no human answer, only progress replies, ...); the model's where the
 * built-in judge abstains with `JUDGE.NEEDS_MODEL`. On a decided case the model's differing verdict
 * is a disagreement worth keeping: it calibrates both engines. A model abstention is none.
 * Without a configured model the port answers with the built-in engine and its outcome stands.
 *
 * The published fields say so (`crossCheck` of evaluation.judged, codes only): on a decided case
 * the model's engine, its verdict, whether it agrees (null when it abstained) and the built-in
 * rule that decided; null when a model is configured but nothing was cross-checked; absent without one.
 */
export async function judgeWithEngines(model: ModelPort, plan: JudgmentPlan): Promise<Judged> {
  const asked = await compareBothOrders(model, plan);
  if (asked.results[0].engine === 'builtin') return { outcome: asked, disagreement: null };
  const { outcome: builtin, rule } = builtinJudgment(plan);
  const b = builtin.fields;
  if (b.verdict === 'not_compared') {
    if (b.abstentionCode !== 'JUDGE.NEEDS_MODEL') return { outcome: withCrossCheck(builtin, null), disagreement: null };
    const note = `The built-in judge abstained (JUDGE.NEEDS_MODEL); the model judged. `;
    return { outcome: { ...asked, fields: { ...asked.fields, verdictReason: `${note}${asked.fields.verdictReason}`.slice(0, NOTE_MAX), crossCheck: null } }, disagreement: null };
  }
  const m = asked.fields.verdict;
  const agrees = m === 'not_compared' ? null : m === b.verdict;
  const outcome = withCrossCheck(builtin, { engine: asked.fields.judgeEngine, verdict: m, agrees, reasonCode: rule });
  if (agrees !== false) return { outcome, disagreement: null };
  return { outcome, disagreement: { modelEngine: asked.fields.judgeEngine, modelVerdict: m, builtinVerdict: b.verdict, builtinReason: b.verdictReason.slice(0, NOTE_MAX) } };
}
