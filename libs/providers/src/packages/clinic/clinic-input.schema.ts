import { QueryId } from '@aoc/contracts';
import { z } from 'zod';
import { MAX_PROMQL_LENGTH } from '../../validation/promql';
import { MAX_SQL_LENGTH } from '../../validation/read-only-sql';

export const CLINIC_MAX_QUERIES = 12;
export const CLINIC_MAX_CONFIG_SELECTORS = 16;

/** Org and cluster ids are given exactly; they end up in paths, headers and log selectors. */
export const ClinicId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be an exact id of letters, digits, "_" or "-" (at most 64)');

export const ClinicWindow = z.strictObject({
  from: z.iso.datetime({ offset: true, message: 'must be an absolute ISO-8601 time with offset' }),
  to: z.iso.datetime({ offset: true, message: 'must be an absolute ISO-8601 time with offset' }),
});
export type ClinicWindow = z.infer<typeof ClinicWindow>;

const common = {
  id: QueryId,
  /** Defaults to the batch window; evidence planning should start narrow. */
  window: ClinicWindow.optional(),
  /** Supplemental entries stay visible when they fail but are never retried. */
  supplemental: z.boolean().optional(),
};
const windowless = { id: QueryId, supplemental: z.boolean().optional() };

const PromQl = z.string().min(1).max(MAX_PROMQL_LENGTH);
const SqlText = z.string().min(1).max(MAX_SQL_LENGTH);

const PromRangeQuery = z.strictObject({ ...common, operation: z.literal('promql_range'), promql: PromQl, step_seconds: z.number().int().min(1).max(86_400).optional() });
const PromInstantQuery = z.strictObject({ ...common, operation: z.literal('promql_instant'), promql: PromQl });

/**
 * `sql` is canonical; `query` is accepted only as a compatibility alias when `sql` is absent.
 * Both together are ambiguous, so the entry is rejected with the fix spelled out.
 */
const SqlQuery = z
  .strictObject({ ...common, operation: z.enum(['sql', 'sql_query']), sql: SqlText.optional(), query: SqlText.optional() })
  .superRefine((q, ctx) => {
    if (q.sql !== undefined && q.query !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['query'], message: 'give the statement in `sql` only; `query` is a compatibility alias accepted only when `sql` is absent' });
    } else if (q.sql === undefined && q.query === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sql'], message: 'is required: one read-only SELECT, SHOW or EXPLAIN statement' });
    }
  })
  .transform((q) => ({ id: q.id, window: q.window, supplemental: q.supplemental, operation: 'sql' as const, sql: q.sql ?? q.query ?? '' }));

const TopSqlQuery = z.strictObject({ ...common, operation: z.literal('top_sql'), limit: z.number().int().min(1).max(50).optional() });
const SlowQueryQuery = z.strictObject({
  ...common,
  operation: z.literal('slow_query'),
  limit: z.number().int().min(1).max(50).optional(),
  min_query_time_seconds: z.number().min(0).max(3600).optional(),
});

export const LOG_COMPONENTS = ['tidb', 'tikv', 'pd', 'tiflash', 'ticdc', 'tiproxy'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug'] as const;
const LogsQuery = z.strictObject({
  ...common,
  operation: z.literal('logs'),
  component: z.enum(LOG_COMPONENTS),
  detail: z.enum(['summary', 'events']),
  levels: z.array(z.enum(LOG_LEVELS)).min(1).max(LOG_LEVELS.length).optional(),
  /** A plain keyword filter; quotes and regex syntax cannot reach the LogQL. */
  contains: z.string().regex(/^[A-Za-z0-9 _.:/-]{1,64}$/, 'must be a plain keyword of letters, digits, spaces or _.:/- (at most 64)').optional(),
  limit: z.number().int().min(1).max(5000).optional(),
});

const ActivitiesQuery = z.strictObject({ ...common, operation: z.literal('activities'), limit: z.number().int().min(1).max(100).optional() });
const ClusterMetadataQuery = z.strictObject({ ...windowless, operation: z.literal('cluster_metadata') });
const ComponentsQuery = z.strictObject({ ...windowless, operation: z.literal('components') });

export const CONFIG_COMPONENTS = ['pd', 'tikv', 'tidb', 'tidb_variable'] as const;
/** Keys that name credentials, keys or certificates are never read, whatever the component. */
export const SECRET_CONFIG_KEY = /(pass(word)?|passwd|secret|token|credential|private|cert|ssl|tls|auth|api[-_.]?key|access[-_.]?key|encryption|master[-_.]?key|key[-_.]?(file|path|id)|cookie|security\.|salt)/i;

const ConfigSelector = z.strictObject({
  component: z.enum(CONFIG_COMPONENTS),
  key: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be one exact configuration key (letters, digits, "_", "." or "-"; no wildcards)')
    .refine((k) => !SECRET_CONFIG_KEY.test(k), 'looks like a secret; secret configuration keys are never read'),
});
export type ConfigSelector = z.infer<typeof ConfigSelector>;

const ConfigurationQuery = z.strictObject({
  ...windowless,
  operation: z.literal('configuration'),
  selectors: z
    .array(ConfigSelector)
    .min(1)
    .max(CLINIC_MAX_CONFIG_SELECTORS)
    .refine((s) => new Set(s.map((x) => `${x.component}:${x.key}`)).size === s.length, 'selectors must be unique'),
});

export const ClinicQuery = z.discriminatedUnion('operation', [
  PromRangeQuery,
  PromInstantQuery,
  SqlQuery,
  TopSqlQuery,
  SlowQueryQuery,
  LogsQuery,
  ActivitiesQuery,
  ClusterMetadataQuery,
  ComponentsQuery,
  ConfigurationQuery,
]);
export type ClinicQuery = z.infer<typeof ClinicQuery>;
export type ClinicOperation = ClinicQuery['operation'];
export type ClinicQueryOf<O extends ClinicOperation> = Extract<ClinicQuery, { operation: O }>;

export const ClinicBatchInput = z.strictObject({
  org_id: ClinicId,
  cluster_id: ClinicId,
  window: ClinicWindow,
  queries: z
    .array(ClinicQuery)
    .min(1)
    .max(CLINIC_MAX_QUERIES)
    .refine((qs) => new Set(qs.map((q) => q.id)).size === qs.length, 'query ids must be unique'),
});
export type ClinicBatchInput = z.infer<typeof ClinicBatchInput>;
