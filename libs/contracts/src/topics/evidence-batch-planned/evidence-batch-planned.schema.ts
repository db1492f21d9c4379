import { z } from 'zod';
import { ProviderName, QueryId, RunId, ScenarioId, TicketKey, TimeWindow } from '../../common';
import { defineTopic } from '../../topic-definition';

export const MAX_QUERIES_PER_BATCH = 12;

export const PlannedQueryV1 = z.object({
  id: QueryId,
  operation: z
    .enum(['promql_range', 'promql_instant', 'sql', 'top_sql', 'statements', 'slow_query', 'logs', 'activities', 'cluster_metadata', 'components', 'configuration'])
    .describe('Read-only operation of the provider package'),
  expression: z.string().min(1).max(4000).describe('PromQL, SQL or log selector; validated inside the provider package'),
  purpose: z.string().min(1).max(300),
  window: TimeWindow.optional().describe('Overrides the batch window when narrower'),
  stepSeconds: z.number().int().positive().max(3600).optional(),
});
export type PlannedQueryV1 = z.infer<typeof PlannedQueryV1>;

export const EvidenceBatchPlannedKeyV1 = RunId;
export const EvidenceBatchPlannedV1 = z
  .object({
    runId: RunId,
    scenarioId: ScenarioId,
    ticketKey: TicketKey.nullable().default(null).describe('The frozen ticket the run answers; packages that scope access by ticket (Wetech) check it'),
    requestId: z.string().min(1).max(96),
    batchId: z.string().min(1).max(128),
    planRevision: z.number().int().min(0).max(1).describe('0 = first plan, 1 = the single structural rewrite'),
    provider: ProviderName,
    target: z.string().max(128).nullable(),
    window: TimeWindow,
    queries: z
      .array(PlannedQueryV1)
      .max(MAX_QUERIES_PER_BATCH)
      .refine((qs) => new Set(qs.map((q) => q.id)).size === qs.length, { message: 'query ids must be unique' }),
    plannerNotes: z.string().max(1000).describe('What the planner could not cover, if anything'),
  })
  .strict();
export type EvidenceBatchPlannedV1 = z.infer<typeof EvidenceBatchPlannedV1>;

export const evidenceBatchPlannedTopic = defineTopic({
  baseName: 'evidence.batch-planned',
  version: 1,
  description: 'A bounded read-only query batch (at most 12 queries) planned for one evidence question.',
  keyField: 'runId',
  key: EvidenceBatchPlannedKeyV1,
  value: EvidenceBatchPlannedV1,
  producers: ['evidence'],
  consumers: ['provider-executor'],
});
