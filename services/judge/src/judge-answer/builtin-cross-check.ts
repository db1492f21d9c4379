import type { Verdict } from '@aoc/contracts';
import { rubricJudge } from '../rubric-judge/rubric-judge';
import { swapped, verdictFor, type ComparisonOutcome } from './answer-comparison';
import type { JudgmentPlan } from './judge-plan';

export interface Disagreement {
  modelVerdict: Verdict;
  builtinVerdict: Verdict;
  builtinReason: string;
}

/**
 * When a model judged, the built-in judge reads the same input (in both orders, like the model)
 * and, where it decides, a different verdict is a disagreement worth keeping: it calibrates
 * both engines. Abstentions of the built-in judge are no disagreement.
 */
export function crossCheck(plan: JudgmentPlan, outcome: ComparisonOutcome): Disagreement | null {
  if (outcome.results[0].engine === 'builtin') return null;
  const first = rubricJudge(plan.input);
  const second = rubricJudge(swapped(plan.input));
  const a = verdictFor(first, 1, plan.previousComplaint);
  const b = verdictFor(second, 2, plan.previousComplaint);
  if (a !== b || a === 'not_compared' || a === outcome.fields.verdict) return null;
  return { modelVerdict: outcome.fields.verdict, builtinVerdict: a, builtinReason: first.reason.slice(0, 2000) };
}
