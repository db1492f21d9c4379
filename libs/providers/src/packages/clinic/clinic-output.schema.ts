import { z } from 'zod';
import { ClinicWindow } from './clinic-input.schema';

/**
 * The output schema is the last allowlist: objects strip unknown keys, so a field that is not
 * named here cannot leave the package even if a connector produced it.
 */

const Num = z.number();
const OptNum = z.number().nullable().optional();

export const MetricsResult = z.object({
  result_type: z.enum(['matrix', 'vector', 'scalar', 'string']),
  series_count: Num,
  omitted_series: Num,
  series: z.array(
    z.object({
      labels: z.record(z.string(), z.string()),
      points: Num,
      first: Num.nullable(),
      last: Num.nullable(),
      min: Num.nullable(),
      max: Num.nullable(),
      mean: Num.nullable(),
      max_at: z.string().nullable(),
      baseline_median: Num.nullable(),
      recent_median: Num.nullable(),
      anomaly_score: Num.nullable(),
      direction: z.enum(['up', 'down']).nullable(),
      shift_at: z.string().nullable(),
    }),
  ),
});

const ColumnStatsOut = z.object({
  column: z.string(),
  kind: z.enum(['number', 'text', 'time', 'boolean', 'empty', 'mixed']),
  non_null: Num,
  nulls: Num,
  distinct: Num,
  min: z.union([Num, z.string()]).optional(),
  max: z.union([Num, z.string()]).optional(),
  mean: Num.optional(),
  sum: Num.optional(),
  top_values: z.array(z.object({ value: z.string(), count: Num })).optional(),
});

export const SqlResult = z.object({
  statement: z.enum(['select', 'show', 'explain']),
  row_count: Num,
  truncated: z.boolean(),
  truncated_by: z.enum(['rows', 'bytes']).nullable(),
  columns: z.array(ColumnStatsOut),
  read_only: z.boolean(),
  statement_timeout: z.enum(['max_execution_time', 'max_statement_time', 'client_only']),
});

export const StatementType = z.enum(['select', 'insert', 'update', 'delete', 'replace', 'ddl', 'transaction', 'other']);
export type StatementType = z.infer<typeof StatementType>;
export const StatementsTransport = z.enum(['clinic_api', 'sql']);
export type StatementsTransport = z.infer<typeof StatementsTransport>;

export const TopSqlResult = z.object({
  transport: StatementsTransport,
  order_by: z.enum(['cpu_time', 'total_latency']),
  entries: z.array(
    z.object({
      digest_ref: z.string(),
      plan_digest_ref: z.string().nullable(),
      statement_type: StatementType,
      exec_count: Num,
      cpu_time_ms: OptNum,
      total_latency_ms: OptNum,
      avg_latency_ms: OptNum,
      max_latency_ms: OptNum,
      max_mem_bytes: OptNum,
      error_count: OptNum,
    }),
  ),
});

export const SlowQueryResult = z.object({
  transport: StatementsTransport,
  total_slow_queries: Num,
  truncated: z.boolean(),
  groups: z.array(
    z.object({
      digest_ref: z.string(),
      statement_type: StatementType,
      count: Num,
      failed_count: Num,
      internal_count: Num,
      total_query_time_s: Num,
      max_query_time_s: Num,
      avg_query_time_s: Num,
      max_mem_bytes: OptNum,
      max_process_keys: OptNum,
      first_seen: z.string().nullable(),
      last_seen: z.string().nullable(),
    }),
  ),
});

export const LifecycleGroup = z.enum([
  'startup',
  'shutdown',
  'panic',
  'oom',
  'leader_change',
  'region_change',
  'slow_query',
  'ddl',
  'gc',
  'backoff',
  'connection',
  'config_change',
  'scheduling',
  'other',
]);
export type LifecycleGroup = z.infer<typeof LifecycleGroup>;
export const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'unknown']);
export type LogLevel = z.infer<typeof LogLevel>;

export const LogEvent = z.object({
  at: z.string(),
  level: LogLevel,
  group: LifecycleGroup,
  source: z.string().nullable(),
  numbers: z.record(z.string(), Num),
  flags: z.record(z.string(), z.boolean()),
});
export type LogEvent = z.infer<typeof LogEvent>;

export const LogsResult = z.object({
  detail: z.enum(['summary', 'events']),
  component: z.string(),
  lines: Num,
  hit_limit: z.boolean(),
  first_at: z.string().nullable(),
  last_at: z.string().nullable(),
  by_level: z.array(z.object({ level: LogLevel, count: Num })),
  by_group: z.array(z.object({ group: LifecycleGroup, count: Num })),
  top_sources: z.array(z.object({ source: z.string(), count: Num })).optional(),
  busiest_minute: z.object({ at: z.string(), lines: Num }).nullable().optional(),
  events: z.array(LogEvent).optional(),
  omitted_events: Num.optional(),
});

export const ActivitiesResult = z.object({
  total: Num,
  truncated: z.boolean(),
  by_type: z.array(z.object({ type: z.string(), count: Num })),
  events: z.array(
    z.object({
      activity_ref: z.string(),
      type: z.string(),
      status: z.string(),
      component: z.string().nullable(),
      started_at: z.string(),
      finished_at: z.string().nullable(),
    }),
  ),
});

export const ClusterMetadataResult = z.object({
  cluster_id: z.string(),
  tier: z.string(),
  version: z.string(),
  status: z.string(),
  region: z.string().nullable(),
  cloud_provider: z.string().nullable(),
});

export const ComponentsResult = z.object({
  total: Num,
  components: z.array(z.object({ component: z.string(), count: Num, healthy: Num, unhealthy: Num })),
});

export const ConfigurationResult = z.object({
  values: z.array(
    z.object({
      component: z.string(),
      key: z.string(),
      value: z.union([z.string(), Num, z.boolean(), z.null()]),
      source: z.enum(['clinic', 'cloud_config']),
      scope: z.enum(['cluster', 'version_default']).nullable(),
    }),
  ),
  missing: z.array(z.object({ component: z.string(), key: z.string(), reason: z.enum(['not_found', 'not_a_scalar', 'fallback_unavailable', 'fallback_failed']) })),
  fallback_used: z.boolean(),
});

const entry = <O extends string, R extends z.ZodType>(operation: O, result: R) =>
  z.object({
    id: z.string(),
    operation: z.literal(operation),
    status: z.enum(['complete', 'empty', 'failed']),
    supplemental: z.boolean().optional(),
    result: result.optional(),
    error_code: z.string().optional(),
    detail_error: z.string().optional(),
  });

export const ClinicQueryOutput = z.discriminatedUnion('operation', [
  entry('promql_range', MetricsResult),
  entry('promql_instant', MetricsResult),
  entry('sql', SqlResult),
  entry('top_sql', TopSqlResult),
  entry('slow_query', SlowQueryResult),
  entry('logs', LogsResult),
  entry('activities', ActivitiesResult),
  entry('cluster_metadata', ClusterMetadataResult),
  entry('components', ComponentsResult),
  entry('configuration', ConfigurationResult),
]);
export type ClinicQueryOutput = z.infer<typeof ClinicQueryOutput>;

export const ClinicBatchOutput = z.object({
  org_id: z.string(),
  cluster_id: z.string(),
  window: ClinicWindow,
  /** Primary acquisition only: supplemental failures never lower it. */
  acquisition: z.enum(['complete', 'partial', 'failed']),
  queries: z.array(ClinicQueryOutput),
});
export type ClinicBatchOutput = z.infer<typeof ClinicBatchOutput>;

export type MetricsResult = z.infer<typeof MetricsResult>;
export type SqlResult = z.infer<typeof SqlResult>;
export type TopSqlResult = z.infer<typeof TopSqlResult>;
export type SlowQueryResult = z.infer<typeof SlowQueryResult>;
export type LogsResult = z.infer<typeof LogsResult>;
export type ActivitiesResult = z.infer<typeof ActivitiesResult>;
export type ClusterMetadataResult = z.infer<typeof ClusterMetadataResult>;
export type ComponentsResult = z.infer<typeof ComponentsResult>;
export type ConfigurationResult = z.infer<typeof ConfigurationResult>;
