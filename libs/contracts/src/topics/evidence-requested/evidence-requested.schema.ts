import { z } from 'zod';
import { ProviderName, RunId, ScenarioId, TimeWindow } from '../../common';
import { defineTopic } from '../../topic-definition';

/**
 * One neutral evidence question. Deliberately carries no reason and no hypothesis: the evidence
 * agent plans what to measure, not what to prove.
 */
export const EvidenceRequestedKeyV1 = RunId;
export const EvidenceRequestedV1 = z
  .object({
    runId: RunId,
    scenarioId: ScenarioId,
    requestId: z.string().min(1).max(96),
    question: z.string().min(1).max(1000),
    stopCondition: z.string().min(1).max(500).describe('Observable condition that answers the question'),
    provider: ProviderName,
    target: z.string().max(128).nullable(),
    window: TimeWindow,
    refinement: z.boolean().describe('True for the single adaptive refinement of a scenario'),
  })
  .strict();
export type EvidenceRequestedV1 = z.infer<typeof EvidenceRequestedV1>;

export const evidenceRequestedTopic = defineTopic({
  baseName: 'evidence.requested',
  version: 1,
  description: 'A diagnostic agent asks one neutral evidence question with a stop condition and a frozen provider, target and window.',
  keyField: 'runId',
  key: EvidenceRequestedKeyV1,
  value: EvidenceRequestedV1,
  producers: ['router'],
  consumers: ['evidence'],
});
