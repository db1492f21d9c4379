import { z } from 'zod';
import type { JudgeAbstentionCode, Verdict } from '../../common';

/**
 * Why an answer version was or was not compared with the human answer (seed 002 section 3: the
 * daily comparison's `eligibility`). `compared` exactly when a verdict was given; the others say
 * what was missing. Abstentions by the engines themselves (they could not decide, the two orders
 * disagreed) are `undecided`: the ticket was comparable, the judgment was not reached.
 */
export const JudgeEligibility = z
  .enum([
    'compared', // a verdict was given
    'no_human_answer', // no public Support reply after the anchor
    'human_answer_before_cutoff', // Support answered before the anchor: the answer was part of what the AI saw
    'not_substantive', // only acknowledgements, progress or closing replies after the anchor (or none the judge could select)
    'human_claim_withdrawn', // the customer called the human's suspicion a separate issue; nothing else to compare
    'feedback_unparseable', // write mode: the previous version's revise|wrong reason names nothing checkable
    'undecided', // comparable, but the engines reached no verdict (meaning decides, another language, order disagreement)
  ])
  .describe('Why an answer version was or was not compared with the human answer');
export type JudgeEligibility = z.infer<typeof JudgeEligibility>;

/** Abstention code -> eligibility: what each code says about comparability. */
const BY_CODE: Record<JudgeAbstentionCode, JudgeEligibility> = {
  'JUDGE.HUMAN_ANSWER_EMPTY': 'no_human_answer',
  'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE': 'not_substantive',
  'JUDGE.HUMAN_CLAIM_WITHDRAWN': 'human_claim_withdrawn',
  'JUDGE.FEEDBACK_UNPARSEABLE': 'feedback_unparseable',
  'JUDGE.NO_REFERENCE_SELECTED': 'not_substantive',
  'JUDGE.NEEDS_MODEL': 'undecided',
  'JUDGE.ORDER_DISAGREEMENT': 'undecided',
};

/** The eligibility a verdict and its abstention code imply (a not_compared without a code is `undecided`). */
export function eligibilityFromAbstention(verdict: Verdict, abstentionCode: JudgeAbstentionCode | null): JudgeEligibility {
  if (verdict !== 'not_compared') return 'compared';
  return abstentionCode === null ? 'undecided' : BY_CODE[abstentionCode];
}
