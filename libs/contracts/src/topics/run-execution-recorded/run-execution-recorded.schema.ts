import { z } from 'zod';
import { IsoDateTime, ProviderName, RunId, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';
import { ToolCallAuditV1 } from '../evidence-batch-materialized/evidence-batch-materialized.schema';

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
  providerQueryEvents: z
    .array(
      z.object({
        scenarioId: z.string(),
        queryId: z.string(),
        provider: ProviderName,
        outcome: z.enum(['complete', 'empty', 'failed']).describe('complete|empty count as a successful logical call'),
        supplemental: z.boolean(),
        at: IsoDateTime,
      }),
    )
    .max(500)
    .describe('One event per materialised logical query'),
  providerHttpAttempts: z
    .array(
      z.object({
        scenarioId: z.string(),
        queryId: z.string(),
        provider: ProviderName,
        statusClass: z.enum(['200', '400', '500', '502', 'other']),
        at: IsoDateTime,
      }),
    )
    .max(2000)
    .describe('Each HTTP response attempt; retries never enlarge the logical-call denominator'),
  providerSystemEvents: z
    .array(
      z.object({
        scenarioId: z.string(),
        queryId: z.string(),
        provider: ProviderName,
        statusSequence: z.array(z.number().int().min(100).max(599)).min(1).max(10),
        result: z.enum(['recovered', 'failed']),
        upstreamError: z.string().max(500).describe('Credential-redacted upstream error code or message'),
        requestId: z.string().max(128).nullable(),
        at: IsoDateTime,
      }),
    )
    .max(200)
    .describe('Provider 5xx episodes: status sequence, recovered or still failed after retries'),
  providerToolCalls: z
    .array(ToolCallAuditV1.extend({ scenarioId: z.string(), provider: ProviderName }))
    .max(200)
    .default([])
    .describe('Audit record of every provider tool call of the run (tool, operations, target, window, outcome, duration, error code)'),
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
