import { z } from 'zod';
import { IsoDateTime, ProviderName, RunId, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

export const EvidenceAcquisitionStatus = z.enum(['complete', 'degraded', 'failed', 'not_attempted']);

export const RunExecutionRecordedKeyV1 = TicketKey;
export const RunExecutionRecordedV1 = z.object({
  runId: RunId,
  ticketKey: TicketKey,
  recordedAt: IsoDateTime,
  responseGeneration: z.object({
    status: z.enum(['succeeded', 'failed', 'deadline_exceeded']),
    engine: z.string().min(1).max(64),
  }),
  evidenceAcquisition: z.object({
    status: EvidenceAcquisitionStatus,
    capability: z.enum(['full', 'partial', 'none']).describe('What the selected providers could be asked'),
    providers: z.array(ProviderName).max(8),
  }),
  failureCodes: z.array(z.string().min(1).max(64)).max(50).describe('Deduplicated, supplemental queries excluded'),
  providerAttempts: z
    .array(
      z.object({
        scenarioId: z.string(),
        queryId: z.string(),
        attempt: z.number().int().positive(),
        outcome: z.enum(['complete', 'empty', 'failed', 'skipped']),
        errorCode: z.string().nullable(),
      }),
    )
    .max(500),
  providerEvents: z
    .array(
      z.object({
        scenarioId: z.string(),
        provider: ProviderName,
        event: z.string().min(1).max(64),
        at: IsoDateTime,
      }),
    )
    .max(500),
});
export type RunExecutionRecordedV1 = z.infer<typeof RunExecutionRecordedV1>;

export const runExecutionRecordedTopic = defineTopic({
  baseName: 'run.execution-recorded',
  version: 1,
  description: 'Execution state of a run: generation and evidence status, failure codes, provider attempts and events.',
  keyField: 'ticketKey',
  key: RunExecutionRecordedKeyV1,
  value: RunExecutionRecordedV1,
  producers: ['router'],
  consumers: ['reporter', 'optimizer'],
});
