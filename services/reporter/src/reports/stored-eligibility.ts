import { JudgeAbstentionCode, JudgeEligibility, eligibilityOf, type Verdict } from '@aoc/contracts';

/**
 * The eligibility of a stored evaluation row: the recorded one, else (rows recorded before the
 * field, or a value this build does not know) the one its verdict and abstention code imply.
 */
export function storedEligibility(verdict: Verdict, abstentionCode: string | null, eligibility: string | null): JudgeEligibility {
  const code = JudgeAbstentionCode.safeParse(abstentionCode);
  const stored = JudgeEligibility.safeParse(eligibility);
  return eligibilityOf({ verdict, abstentionCode: code.success ? code.data : null, eligibility: stored.success ? stored.data : undefined });
}
