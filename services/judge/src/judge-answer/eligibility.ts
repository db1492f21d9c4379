import { eligibilityFromAbstention, type JudgeAbstentionCode, type JudgeEligibility, type Verdict } from '@aoc/contracts';
import { classifyReply } from '../rubric-judge/human-answer';
import type { JudgeInputV1 } from './judge-input.schema';

const isSupport = (role: string) => role === 'support' || role === 'engineer';

/**
 * The evaluation's eligibility, decided by the service from the verdict, its code and the input
 * (never by an engine, so both engines report it alike). No human answer after the anchor while
 * Support had already given a substantive reply before it is its own reason: the AI saw that answer, so there was
 * nothing later to compare with.
 */
export function eligibilityOfJudgment(verdict: Verdict, abstentionCode: JudgeAbstentionCode | null, input: JudgeInputV1): JudgeEligibility {
  const eligibility = eligibilityFromAbstention(verdict, abstentionCode);
  if (eligibility !== 'no_human_answer') return eligibility;
  const anchor = Date.parse(input.anchor);
  const answeredBefore = input.timeline.some((c) => isSupport(c.authorRole) && (c.visibleToAi || Date.parse(c.createdAt) <= anchor) && classifyReply(c.body, []) === 'substantive');
  return answeredBefore ? 'human_answer_before_cutoff' : eligibility;
}
