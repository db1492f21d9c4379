import type { EvidenceBatchMaterializedV1, LocalCausalBriefV1 } from '@aoc/contracts';
import { fireRule } from './mechanism-rules';

export interface ThreadView {
  scenario: string;
  hypothesis: string;
  strongestAlternative: string;
}

/**
 * Builds a local causal brief from the materialised handoff only. Without observations it says
 * so and leaves the mechanism undetermined instead of guessing.
 */
export function buildLocalBrief(thread: ThreadView, batch: EvidenceBatchMaterializedV1): LocalCausalBriefV1 {
  const observations = batch.handoff.observations.slice(0, 4);
  const failed = batch.failures.filter((f) => !f.supplemental);
  const undetermined = [
    ...batch.handoff.gaps,
    ...failed.map((f) => `query ${f.queryId} failed (${f.code})`),
  ].slice(0, 10);
  if (observations.length === 0) {
    return {
      observations: [],
      counterObservations: [],
      leadingMechanism: {
        statement: `Not determined: no evidence was available to test the ${thread.scenario} hypothesis.`,
        strength: 'undetermined',
        openLink: 'no provider fact links the reported symptom to a mechanism',
      },
      strongestAlternative: thread.strongestAlternative,
      workloadAttribution: null,
      mitigationOrHandoff: 'Hand off to Support: collect the evidence listed under "Not determined" before advising the customer.',
      severity: 'medium',
      undetermined: undetermined.length > 0 ? undetermined : ['the evidence batch returned no facts'],
    };
  }
  const missing = batch.failures.filter((f) => !f.supplemental).map((f) => f.queryId);
  const fired = fireRule(thread.scenario, batch.facts, missing);
  if (fired) {
    return {
      observations,
      counterObservations: fired.counterObservation ? [fired.counterObservation] : [],
      leadingMechanism: { statement: fired.mechanism.slice(0, 500), strength: fired.rule.strength, openLink: fired.openLink?.slice(0, 500) ?? null },
      strongestAlternative: thread.strongestAlternative,
      workloadAttribution: null,
      mitigationOrHandoff: fired.rule.mitigation,
      severity: fired.rule.severity,
      undetermined: undetermined.length > 0 ? undetermined : fired.openLink ? [fired.openLink.slice(0, 500)] : [],
    };
  }
  return {
    observations,
    counterObservations: [],
    leadingMechanism: {
      statement: `Observed signals are consistent with the ${thread.scenario} scenario; no mechanism rule matched them.`,
      strength: 'weak',
      openLink: 'no rule links these observations to a specific mechanism',
    },
    strongestAlternative: thread.strongestAlternative,
    workloadAttribution: null,
    mitigationOrHandoff: 'Hand off to Support with the observations above; no mitigation is recommended without an established mechanism.',
    severity: 'medium',
    undetermined: undetermined.length > 0 ? undetermined : ['the causal link between the observations and the symptom'],
  };
}
