import { z } from 'zod';
import { ProviderName, RunId, ScenarioId, TimeWindow } from '../../common';
import { defineTopic } from '../../topic-definition';

/** A compact fact extracted deterministically from an allowed provider field. */
export const EvidenceFactV1 = z.object({
  queryId: z.string().min(1).max(64),
  kind: z.enum(['metric_summary', 'top_item', 'count', 'config_value', 'event', 'metadata', 'note']),
  subject: z.string().min(1).max(200).describe('Metric, entity or item the fact is about'),
  value: z.union([z.number(), z.string().max(500), z.boolean(), z.null()]),
  unit: z.string().max(32).nullable(),
  attributes: z.record(z.string(), z.union([z.string().max(200), z.number(), z.boolean()])).default({}),
});
export type EvidenceFactV1 = z.infer<typeof EvidenceFactV1>;

export const QueryFailureV1 = z.object({
  queryId: z.string().min(1).max(64),
  code: z.string().min(1).max(64).describe('Error code, e.g. PROVIDER.HTTP_5XX'),
  detail: z.string().max(1000).describe('Safe, credential-redacted detail'),
  supplemental: z.boolean().describe('Supplemental query failures never degrade acquisition'),
});
export type QueryFailureV1 = z.infer<typeof QueryFailureV1>;

/** Tool calls a batch made, at most this many (one package call per distinct window). */
export const MAX_TOOL_CALLS_PER_BATCH = 24;

/** One provider tool call's audit record: what was called for what, how it ended. Never a secret, address or raw response. */
export const ToolCallAuditV1 = z.object({
  callId: z.string().min(1).max(64),
  tool: z.string().min(1).max(64),
  operations: z.array(z.string().min(1).max(32)).max(8),
  target: z.string().max(128).nullable(),
  window: TimeWindow.nullable(),
  outcome: z.enum(['success', 'failure']),
  errorCode: z.string().max(64).nullable(),
  durationMs: z.number().int().nonnegative(),
  outputBytes: z.number().int().nonnegative(),
  startedAt: z.iso.datetime({ offset: true }),
});
export type ToolCallAuditV1 = z.infer<typeof ToolCallAuditV1>;

export const EvidenceBatchMaterializedKeyV1 = RunId;
export const EvidenceBatchMaterializedV1 = z.object({
  runId: RunId,
  scenarioId: ScenarioId,
  requestId: z.string().min(1).max(96),
  batchId: z.string().min(1).max(128),
  provider: ProviderName,
  window: TimeWindow,
  status: z.enum(['complete', 'partial', 'failed', 'not_executed']),
  queries: z.array(
    z.object({
      queryId: z.string().min(1).max(64),
      outcome: z.enum(['complete', 'empty', 'failed', 'skipped']),
      attempts: z.number().int().nonnegative(),
    }),
  ).max(12),
  facts: z.array(EvidenceFactV1).max(200),
  handoff: z.object({
    observations: z.array(z.string().min(1).max(500)).max(20).describe('Numeric and entity facts in words'),
    gaps: z.array(z.string().min(1).max(500)).max(20).describe('What the batch could not establish'),
  }),
  failures: z.array(QueryFailureV1).max(12),
  execution: z
    .object({
      queryEvents: z
        .array(z.object({ queryId: z.string(), outcome: z.enum(['complete', 'empty', 'failed']), supplemental: z.boolean(), at: z.iso.datetime({ offset: true }) }))
        .max(12),
      httpAttempts: z
        .array(z.object({ queryId: z.string(), statusClass: z.enum(['200', '400', '500', '502', 'other']), at: z.iso.datetime({ offset: true }) }))
        .max(200),
      systemEvents: z
        .array(
          z.object({
            queryId: z.string(),
            statusSequence: z.array(z.number().int().min(100).max(599)).min(1).max(10),
            result: z.enum(['recovered', 'failed']),
            upstreamError: z.string().max(500),
            requestId: z.string().max(128).nullable(),
            at: z.iso.datetime({ offset: true }),
          }),
        )
        .max(12),
      toolCalls: z.array(ToolCallAuditV1).max(MAX_TOOL_CALLS_PER_BATCH).default([]).describe('Audit record of every provider tool call of the batch'),
    })
    .default({ queryEvents: [], httpAttempts: [], systemEvents: [], toolCalls: [] })
    .describe('Execution state for run.execution-recorded; the diagnosis never reasons over it'),
});
export type EvidenceBatchMaterializedV1 = z.infer<typeof EvidenceBatchMaterializedV1>;

export const evidenceBatchMaterializedTopic = defineTopic({
  baseName: 'evidence.batch-materialized',
  version: 1,
  description: 'Compact, sanitised facts and a handoff produced by executing a planned batch, with bounded failures.',
  keyField: 'runId',
  key: EvidenceBatchMaterializedKeyV1,
  value: EvidenceBatchMaterializedV1,
  producers: ['provider-executor'],
  consumers: ['router'],
});
