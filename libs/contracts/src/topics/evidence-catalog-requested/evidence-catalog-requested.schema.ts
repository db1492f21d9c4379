import { z } from 'zod';
import { RunId } from '../../common';
import { defineTopic } from '../../topic-definition';
import { EvidenceRequestedV1 } from '../evidence-requested/evidence-requested.schema';

export const EvidenceCatalogRequestedKeyV1 = RunId;
/**
 * Discovery bootstrap of one evidence request: the Evidence Agent asks the Provider Executor which
 * metrics exist for the frozen target and window before it plans. The neutral request travels
 * along so that planning resumes from the answer alone.
 */
export const EvidenceCatalogRequestedV1 = z
  .object({
    runId: RunId,
    request: EvidenceRequestedV1,
  })
  .strict();
export type EvidenceCatalogRequestedV1 = z.infer<typeof EvidenceCatalogRequestedV1>;

export const evidenceCatalogRequestedTopic = defineTopic({
  baseName: 'evidence.catalog-requested',
  version: 1,
  description: 'The Evidence Agent asks which metric names exist for the frozen target and window (discovery bootstrap).',
  keyField: 'runId',
  key: EvidenceCatalogRequestedKeyV1,
  value: EvidenceCatalogRequestedV1,
  producers: ['evidence'],
  consumers: ['provider-executor'],
});
