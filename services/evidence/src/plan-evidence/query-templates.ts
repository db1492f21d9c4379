import type { PlannedQueryV1 } from '@aoc/contracts';

/**
 * Query templates v1, chosen by what the question asks to measure (the planner never sees why
 * it is asked). `$TARGET` is replaced by the frozen target after it passed the safe-label check.
 */
export interface QueryTemplate {
  id: string;
  /** Lower-case words of the question that call for this query. */
  asks: string[];
  operation: PlannedQueryV1['operation'];
  expression: string;
  purpose: string;
}

export const QUERY_TEMPLATES_VERSION = 'templates-v1';

export const QUERY_TEMPLATES: readonly QueryTemplate[] = [
  { id: 'duration_p99', asks: ['duration', 'percentile', 'latency'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster="$TARGET"}[5m])))', purpose: 'p99 statement duration' },
  { id: 'qps', asks: ['qps', 'traffic', 'write rate', 'health'], operation: 'promql_range', expression: 'sum(rate(tidb_server_query_total{cluster="$TARGET"}[5m]))', purpose: 'statements per second' },
  { id: 'cpu_by_component', asks: ['cpu'], operation: 'promql_range', expression: 'sum by (component) (rate(process_cpu_seconds_total{cluster="$TARGET"}[5m]))', purpose: 'CPU seconds per second by component' },
  { id: 'store_cpu', asks: ['stores', 'regions', 'distributed'], operation: 'promql_range', expression: 'sum by (instance) (rate(tikv_thread_cpu_seconds_total{cluster="$TARGET"}[5m]))', purpose: 'TiKV CPU per store' },
  { id: 'top_statements', asks: ['top statements', 'statements consuming', 'statements by'], operation: 'top_sql', expression: 'top 10 by total time', purpose: 'statements with the most time or CPU' },
  { id: 'changefeed_lag', asks: ['checkpoint', 'changefeed', 'lag'], operation: 'promql_range', expression: 'max by (changefeed) (ticdc_owner_checkpoint_ts_lag{cluster="$TARGET"})', purpose: 'changefeed checkpoint lag in seconds' },
  { id: 'sink_duration', asks: ['sink'], operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(ticdc_sink_txn_exec_duration_bucket{cluster="$TARGET"}[5m])))', purpose: 'p99 sink write duration' },
  { id: 'errors', asks: ['error', 'health'], operation: 'promql_range', expression: 'sum by (type) (rate(tidb_server_execute_error_total{cluster="$TARGET"}[5m]))', purpose: 'execution errors per second by type' },
  { id: 'restarts', asks: ['restart', 'component health'], operation: 'promql_range', expression: 'changes(process_start_time_seconds{cluster="$TARGET"}[1h])', purpose: 'process restarts per instance' },
  { id: 'storage_used', asks: ['storage'], operation: 'promql_range', expression: 'sum by (instance) (tikv_store_size_bytes{cluster="$TARGET",type="used"})', purpose: 'used storage per store' },
];
