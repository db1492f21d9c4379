import { LocalCausalBriefV1, clipAllTo, clipTo, maxItemsOf } from '@aoc/contracts';

/**
 * A brief clipped to what its contract accepts, every limit read from LocalCausalBriefV1: the
 * builders write what they mean and this one place makes it fit (lists to their item count, each
 * text to its length, with an ellipsis where cut).
 */
const B = LocalCausalBriefV1.shape;
const M = B.leadingMechanism.shape;
const H = B.hypotheses.unwrap().element.shape;

export const MAX_OBSERVATIONS = maxItemsOf(B.observations);

export function fitBrief(brief: LocalCausalBriefV1): LocalCausalBriefV1 {
  const orNull = (schema: Parameters<typeof clipTo>[0], text: string | null) => (text === null ? null : clipTo(schema, text));
  return {
    ...brief,
    observations: clipAllTo(B.observations, brief.observations),
    counterObservations: clipAllTo(B.counterObservations, brief.counterObservations),
    leadingMechanism: { ...brief.leadingMechanism, statement: clipTo(M.statement, brief.leadingMechanism.statement), openLink: orNull(M.openLink, brief.leadingMechanism.openLink) },
    strongestAlternative: clipTo(B.strongestAlternative, brief.strongestAlternative),
    workloadAttribution: orNull(B.workloadAttribution, brief.workloadAttribution),
    mitigationOrHandoff: clipTo(B.mitigationOrHandoff, brief.mitigationOrHandoff),
    undetermined: clipAllTo(B.undetermined, brief.undetermined),
    hypotheses: (brief.hypotheses ?? []).slice(0, maxItemsOf(B.hypotheses)).map((h) => ({ ...h, evidence: clipAllTo(H.evidence, h.evidence) })),
  };
}
