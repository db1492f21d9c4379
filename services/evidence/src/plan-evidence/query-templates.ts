import type { PlannedQueryV1, ProviderName, TimeWindow } from '@aoc/contracts';

/**
 * Query templates v2, chosen by what the question asks to measure (the planner never sees why
 * it is asked). Placeholders are replaced after the target passed the safe-identifier check:
 * `$TARGET` by the whole frozen target, and for Clinic targets (`<org>/<cluster>`) `$ORG` and
 * `$CLUSTER` by its parts. A template names the providers it is written for; the generic
 * Prometheus templates keep their v1 ids and expressions (recordings are keyed by expression).
 */
export interface QueryTemplate {
  id: string;
  /** Lower-case words of the question that call for this query. */
  asks: string[];
  operation: PlannedQueryV1['operation'];
  expression: string;
  purpose: string;
  /** Providers whose metric names, labels and parameter formats the template follows. */
  providers: readonly ProviderName[];
  /** Half of the frozen window the query reads, for before/after pairs; the whole window without it. */
  windowPart?: 'first-half' | 'second-half';
}

export const QUERY_TEMPLATES_VERSION = 'templates-v2';

const GENERIC: readonly ProviderName[] = ['prometheus', 'manus', 'wetech'];
const CLINIC: readonly ProviderName[] = ['clinic'];

/** Clinic TiKV series carry the instance address; the store is its first host label (e.g. `tikv-2`). */
const perStore = (inner: string) => `sum by (store) (label_replace(${inner}, "store", "$1", "instance", "([^.:]+).*"))`;
/** Slow-log entries at or above TiDB's default slow threshold, grouped by digest. */
const SLOW_QUERY_PARAMETERS = '{"limit":10,"min_query_time_seconds":0.3}';

export const QUERY_TEMPLATES: readonly QueryTemplate[] = [
  { id: 'duration_p99', providers: GENERIC, asks: ['duration', 'percentile', 'latency'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster="$TARGET"}[5m])))', purpose: 'p99 statement duration' },
  { id: 'qps', providers: GENERIC, asks: ['qps', 'traffic', 'write rate', 'health'], operation: 'promql_range', expression: 'sum(rate(tidb_server_query_total{cluster="$TARGET"}[5m]))', purpose: 'statements per second' },
  { id: 'cpu_by_component', providers: GENERIC, asks: ['cpu'], operation: 'promql_range', expression: 'sum by (component) (rate(process_cpu_seconds_total{cluster="$TARGET"}[5m]))', purpose: 'CPU seconds per second by component' },
  { id: 'store_cpu', providers: GENERIC, asks: ['stores', 'regions', 'distributed'], operation: 'promql_range', expression: 'sum by (instance) (rate(tikv_thread_cpu_seconds_total{cluster="$TARGET"}[5m]))', purpose: 'TiKV CPU per store' },
  { id: 'top_statements', providers: GENERIC, asks: ['top statements', 'statements consuming', 'statements by'], operation: 'top_sql', expression: 'top 10 by total time', purpose: 'statements with the most time or CPU' },
  { id: 'changefeed_lag', providers: GENERIC, asks: ['checkpoint', 'changefeed', 'lag'], operation: 'promql_range', expression: 'max by (changefeed) (ticdc_owner_checkpoint_ts_lag{cluster="$TARGET"})', purpose: 'changefeed checkpoint lag in seconds' },
  { id: 'sink_duration', providers: GENERIC, asks: ['sink'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(ticdc_sink_txn_exec_duration_bucket{cluster="$TARGET"}[5m])))', purpose: 'p99 sink write duration' },
  { id: 'errors', providers: GENERIC, asks: ['error', 'health'], operation: 'promql_range', expression: 'sum by (type) (rate(tidb_server_execute_error_total{cluster="$TARGET"}[5m]))', purpose: 'execution errors per second by type' },
  { id: 'restarts', providers: GENERIC, asks: ['restart', 'component health'], operation: 'promql_range', expression: 'changes(process_start_time_seconds{cluster="$TARGET"}[1h])', purpose: 'process restarts per instance' },
  { id: 'storage_used', providers: GENERIC, asks: ['storage'], operation: 'promql_range', expression: 'sum by (instance) (tikv_store_size_bytes{cluster="$TARGET",type="used"})', purpose: 'used storage per store' },

  // Clinic: metrics behind the cluster-scoped Prometheus API (label `cluster_id`), TopSQL and the
  // slow log by digest (JSON parameters; the package picks the transport from the cluster tier).
  { id: 'duration_p99', providers: CLINIC, asks: ['duration', 'percentile', 'latency'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster_id="$CLUSTER"}[5m])))', purpose: 'p99 statement duration' },
  { id: 'qps', providers: CLINIC, asks: ['qps', 'write rate', 'health'], operation: 'promql_range', expression: 'sum(rate(tidb_server_query_total{cluster_id="$CLUSTER"}[5m]))', purpose: 'statements per second' },
  { id: 'cpu_by_component', providers: CLINIC, asks: ['per component'], operation: 'promql_range', expression: 'sum by (component) (rate(process_cpu_seconds_total{cluster_id="$CLUSTER"}[5m]))', purpose: 'CPU seconds per second by component' },
  { id: 'store_cpu', providers: CLINIC, asks: ['stores'], operation: 'promql_range', expression: perStore('rate(tikv_thread_cpu_seconds_total{cluster_id="$CLUSTER"}[5m])'), purpose: 'TiKV CPU seconds per second per store' },
  { id: 'store_requests', providers: CLINIC, asks: ['traffic'], operation: 'promql_range', expression: perStore('rate(tikv_grpc_msg_duration_seconds_count{cluster_id="$CLUSTER"}[5m])'), purpose: 'TiKV gRPC requests per second per store' },
  { id: 'top_statements', providers: CLINIC, asks: ['top statements', 'statements consuming'], operation: 'top_sql', expression: '{"limit":10}', purpose: 'top statements by CPU time (TopSQL)' },
  { id: 'slow_queries_after', providers: CLINIC, asks: ['slow statements'], operation: 'slow_query', expression: SLOW_QUERY_PARAMETERS, windowPart: 'second-half', purpose: 'slow statements by digest, second half of the window' },
  { id: 'slow_queries_before', providers: CLINIC, asks: ['slow statements'], operation: 'slow_query', expression: SLOW_QUERY_PARAMETERS, windowPart: 'first-half', purpose: 'slow statements by digest, first half of the window' },
  { id: 'changefeed_lag', providers: CLINIC, asks: ['checkpoint', 'changefeed', 'lag'], operation: 'promql_range', expression: 'max by (changefeed) (ticdc_owner_checkpoint_ts_lag{cluster_id="$CLUSTER"})', purpose: 'changefeed checkpoint lag in seconds' },
  { id: 'sink_duration', providers: CLINIC, asks: ['sink'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(ticdc_sink_txn_exec_duration_bucket{cluster_id="$CLUSTER"}[5m])))', purpose: 'p99 sink write duration' },
  { id: 'errors', providers: CLINIC, asks: ['error', 'health'], operation: 'promql_range', expression: 'sum by (type) (rate(tidb_server_execute_error_total{cluster_id="$CLUSTER"}[5m]))', purpose: 'execution errors per second by type' },
  { id: 'restarts', providers: CLINIC, asks: ['restart', 'component health'], operation: 'promql_range', expression: 'changes(process_start_time_seconds{cluster_id="$CLUSTER"}[1h])', purpose: 'process restarts per instance' },
  { id: 'storage_used', providers: CLINIC, asks: ['storage'], operation: 'promql_range', expression: perStore('tikv_store_size_bytes{cluster_id="$CLUSTER",type="used"}'), purpose: 'used storage per store' },
];

/** Templates written for a provider, in catalog order. */
export function templatesFor(provider: ProviderName): QueryTemplate[] {
  return QUERY_TEMPLATES.filter((t) => t.providers.includes(provider));
}

/** Placeholder values of a frozen target; Clinic targets split into org and cluster. */
function placeholders(target: string): Record<string, string> {
  const [org, cluster] = target.split('/');
  return { TARGET: target, ORG: cluster === undefined ? '' : org, CLUSTER: cluster ?? target };
}

/** Replaces `$TARGET`, `$ORG` and `$CLUSTER` (PromQL's own `$1` references stay as they are). */
export function bindTarget(expression: string, target: string): string {
  const values = placeholders(target);
  return expression.replace(/\$(TARGET|ORG|CLUSTER)\b/g, (_m, name: string) => values[name] ?? '');
}

/** The window a template reads inside the frozen window (null: the whole frozen window). */
export function templateWindow(template: Pick<QueryTemplate, 'windowPart'>, window: TimeWindow): TimeWindow | null {
  if (!template.windowPart) return null;
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const mid = new Date(from + Math.floor((to - from) / 2 / 60_000) * 60_000).toISOString();
  return template.windowPart === 'first-half' ? { from: new Date(from).toISOString(), to: mid } : { from: mid, to: new Date(to).toISOString() };
}

/** A template bound to the frozen target and window, as the planner drafts it. */
export function bindTemplate(template: QueryTemplate, target: string, window: TimeWindow): { id: string; operation: string; expression: string; purpose: string; window: TimeWindow | null } {
  return { id: template.id, operation: template.operation, expression: bindTarget(template.expression, target), purpose: template.purpose, window: templateWindow(template, window) };
}
