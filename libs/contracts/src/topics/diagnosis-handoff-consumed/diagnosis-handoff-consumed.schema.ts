import { z } from 'zod';
import { RunId, ScenarioId, Severity, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

export const CausalStrength = z.enum(['confirmed', 'strong', 'moderate', 'weak', 'undetermined']);
export type CausalStrength = z.infer<typeof CausalStrength>;

export const HypothesisVerdict = z.enum(['confirmed', 'refuted', 'undetermined']);
export type HypothesisVerdict = z.infer<typeof HypothesisVerdict>;
/** Failure modes one brief reports, and the length of one evidence line. */
export const MAX_HYPOTHESES = 12;
export const MAX_HYPOTHESIS_LINE = 300;

/** Local causal brief of one scenario. Limits follow the design: 4 observations, 3 counter-observations. */
export const LocalCausalBriefV1 = z.object({
  observations: z.array(z.string().min(1).max(500)).max(4),
  counterObservations: z.array(z.string().min(1).max(500)).max(3),
  leadingMechanism: z.object({
    statement: z.string().min(1).max(500),
    strength: CausalStrength,
    openLink: z.string().max(500).nullable().describe('The exact link in the causal chain that is not yet shown'),
    family: z.string().min(1).max(48).nullable().default(null).describe('Metric-ontology family of the leading cause (e.g. connections); null when none is named'),
    mode: z.string().min(1).max(48).nullable().default(null).describe('Failure-mode id of the leading cause (e.g. connection-exhaustion); null or absent when no mode was confirmed'),
  }),
  strongestAlternative: z.string().min(1).max(500),
  workloadAttribution: z.string().max(500).nullable(),
  mitigationOrHandoff: z.string().min(1).max(1000),
  severity: Severity,
  undetermined: z.array(z.string().min(1).max(500)).max(10).describe('What could not be determined'),
  hypotheses: z
    .array(
      z.object({
        mode: z.string().min(1).max(48),
        verdict: HypothesisVerdict,
        score: z.number().min(0).max(1).describe('Rank of a confirmed mode: how much of the symptom it explains, its magnitude, timing and support'),
        explainedBy: z.string().min(1).max(48).nullable().describe('A confirmed mode that causes this one'),
        evidence: z.array(z.string().min(1).max(MAX_HYPOTHESIS_LINE)).max(3).describe('The lines that decided the verdict, or what would settle it'),
      }),
    )
    .max(MAX_HYPOTHESES)
    .default([])
    .describe('Failure modes the scenario tested, confirmed first'),
});
export type LocalCausalBriefV1 = z.infer<typeof LocalCausalBriefV1>;

export const DiagnosisHandoffConsumedKeyV1 = RunId;
export const DiagnosisHandoffConsumedV1 = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('brief'),
    runId: RunId,
    ticketKey: TicketKey,
    scenarioId: ScenarioId,
    batchId: z.string().min(1).max(128),
    brief: LocalCausalBriefV1,
  }),
  z.object({
    outcome: z.literal('refinement'),
    runId: RunId,
    ticketKey: TicketKey,
    scenarioId: ScenarioId,
    batchId: z.string().min(1).max(128),
    refinementQuestion: z.string().min(1).max(1000),
  }),
]);
export type DiagnosisHandoffConsumedV1 = z.infer<typeof DiagnosisHandoffConsumedV1>;

export const diagnosisHandoffConsumedTopic = defineTopic({
  baseName: 'diagnosis.handoff-consumed',
  version: 1,
  description: 'A diagnostic agent consumed an evidence handoff and concluded a local causal brief or asked one refinement.',
  keyField: 'runId',
  key: DiagnosisHandoffConsumedKeyV1,
  value: DiagnosisHandoffConsumedV1,
  producers: ['router'],
  consumers: ['router'],
});
