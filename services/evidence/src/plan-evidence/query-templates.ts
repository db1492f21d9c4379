import type { PlannedQueryV1, ProviderName, TimeWindow } from '@aoc/contracts';
import type { MetricFamilyId } from '@aoc/metric-ontology';

/**
 * Query templates v2, chosen by what the question asks to measure (the planner never sees why
 * it is asked). Placeholders are replaced after the target passed the safe-identifier check:
 * `$TARGET` by the whole frozen target, and for Clinic targets (`<org>/<cluster>`) `$ORG` and
 * `$CLUSTER` by its parts. A template names the providers it is written for; the generic
 * Prometheus templates keep their v1 ids and expressions (recordings are keyed by expression).
 * `$LOGS_LABEL` is the label of log stream selectors (the catalogue's `logsLabel`, else `cluster`).
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
  /**
   * Planned only when the catalogue's `operations` for the target list this template's operation
   * (the generic package serves `sql` and `logs` only where the target's endpoint has PostgreSQL
   * or Loki settings). `templatesFor` leaves such templates out unless it is given those operations.
   */
  needsCatalogOperation?: true;
  /**
   * Channel templates (`needsCatalogOperation`): the metric families whose hypotheses the query can
   * confirm or rule out. The planner plans it when the question names one of them (ontology words,
   * `familiesInText`), not only on the exact `asks` words.
   */
  families?: readonly MetricFamilyId[];
  /** `sql` channel templates: the server dialect the statement is written for. */
  dialect?: SqlDialect;
}

/** The SQL server behind a target's `sql` operation. */
export type SqlDialect = 'postgresql' | 'mysql';

export const QUERY_TEMPLATES_VERSION = 'templates-v2';

/** The generic package; Manus and Wetech take the same metric templates, re-scoped below. */
const GENERIC: readonly ProviderName[] = ['prometheus'];
const CLINIC: readonly ProviderName[] = ['clinic'];
/** The generic package where the target's endpoint has PostgreSQL statistics (`sql`) or Loki (`logs`). */
const GENERIC_PACKAGE: readonly ProviderName[] = ['prometheus'];
/** The common part of a generic-package `sql` channel template of one dialect. */
const sqlChannel = (dialect: SqlDialect) => (families: readonly MetricFamilyId[]) => ({ providers: GENERIC_PACKAGE, needsCatalogOperation: true as const, operation: 'sql' as const, dialect, families });
const pg = sqlChannel('postgresql');
const my = sqlChannel('mysql');

/** Clinic TiKV series carry the instance address; the store is its first host label (e.g. `tikv-2`). */
const perStore = (inner: string) => `sum by (store) (label_replace(${inner}, "store", "$1", "instance", "([^.:]+).*"))`;
/** Slow-log entries at or above TiDB's default slow threshold, grouped by digest. */
const SLOW_QUERY_PARAMETERS = '{"limit":10,"min_query_time_seconds":0.3}';

// PostgreSQL statistics (the generic package's `sql`). Each passes `validateReadOnlyPgSql`; statement
// text (`query`) comes back only as a digest and its first keyword.
const PG_CONNECTIONS_SQL =
  "SELECT coalesce(state, 'unknown') AS state, count(*) AS sessions, max(now() - state_change) AS longest_in_state FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state ORDER BY sessions DESC";
const PG_BLOCKED_SQL =
  'SELECT pid, state, wait_event_type, wait_event, cardinality(pg_blocking_pids(pid)) AS blocked_by, now() - query_start AS running_for, query FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0 ORDER BY running_for DESC LIMIT 20';
const PG_LOCKS_SQL = 'SELECT locktype, mode, granted, count(*) AS locks FROM pg_locks GROUP BY locktype, mode, granted ORDER BY granted, locks DESC LIMIT 20';
const PG_REPLICATION_SQL =
  'SELECT application_name, state, sync_state, write_lag, flush_lag, replay_lag, pg_wal_lsn_diff(sent_lsn, replay_lsn) AS replay_lag_bytes FROM pg_stat_replication ORDER BY replay_lag DESC NULLS LAST';
const PG_SETTINGS_SQL =
  "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections', 'superuser_reserved_connections', 'idle_in_transaction_session_timeout', 'statement_timeout', 'lock_timeout', 'deadlock_timeout', 'shared_buffers', 'work_mem') ORDER BY name";
/** Top statements by total time, with the time of all statements so each one's share is of the whole. */
const PG_TOP_STATEMENTS_SQL =
  'SELECT query, calls, total_exec_time, mean_exec_time, rows, (SELECT sum(total_exec_time) FROM pg_stat_statements) AS all_exec_time FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10';
/** Sessions by state and wait class, with the oldest open transaction of each (seconds). */
const PG_ACTIVITY_WAITS_SQL =
  "SELECT coalesce(state, 'unknown') AS state, coalesce(wait_event_type, 'none') AS wait_event_type, count(*) AS sessions, max(extract(epoch FROM now() - xact_start)) AS oldest_xact_age_s FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state, wait_event_type ORDER BY sessions DESC LIMIT 30";
/** Checkpoints requested vs timed: PostgreSQL 16 and older keep them in pg_stat_bgwriter, 17 in pg_stat_checkpointer. */
const PG_BGWRITER_SQL = 'SELECT checkpoints_timed, checkpoints_req, checkpoint_write_time, checkpoint_sync_time, buffers_checkpoint, buffers_backend, stats_reset FROM pg_stat_bgwriter';
const PG_CHECKPOINTER_SQL = 'SELECT num_timed AS checkpoints_timed, num_requested AS checkpoints_req, write_time AS checkpoint_write_time, sync_time AS checkpoint_sync_time, buffers_written AS buffers_checkpoint, stats_reset FROM pg_stat_checkpointer';
const PG_DATABASE_SQL = 'SELECT datname, temp_files, temp_bytes, deadlocks, conflicts, xact_commit, xact_rollback, stats_reset FROM pg_stat_database WHERE datname IS NOT NULL ORDER BY temp_bytes DESC LIMIT 20';

// MySQL/MariaDB statistics (the generic package's `sql` on a `mysql` endpoint). Each passes
// `validateReadOnlyMySqlStats`; statement text (`DIGEST_TEXT`) comes back only as a digest reference.
const MYSQL_TOP_STATEMENTS_SQL =
  'SELECT DIGEST AS digest, DIGEST_TEXT, COUNT_STAR AS calls, SUM_TIMER_WAIT / 1000000000 AS total_ms, AVG_TIMER_WAIT / 1000000000 AS mean_ms, SUM_ROWS_EXAMINED AS rows_examined, SUM_ROWS_SENT AS rows_sent, SUM_NO_INDEX_USED AS no_index_used, SUM_ERRORS AS errors, (SELECT SUM(SUM_TIMER_WAIT) FROM performance_schema.events_statements_summary_by_digest) / 1000000000 AS all_statements_ms FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST IS NOT NULL ORDER BY SUM_TIMER_WAIT DESC LIMIT 10';
const MYSQL_PROCESSLIST_SQL =
  "SELECT COMMAND AS command, COALESCE(STATE, '') AS state, COUNT(*) AS sessions, MAX(TIME) AS longest_s FROM information_schema.PROCESSLIST GROUP BY COMMAND, STATE ORDER BY sessions DESC LIMIT 30";
const MYSQL_TRANSACTIONS_SQL =
  "SELECT COUNT(*) AS transactions, SUM(CASE WHEN trx_state = 'LOCK WAIT' THEN 1 ELSE 0 END) AS lock_waits, MAX(CASE WHEN trx_state = 'LOCK WAIT' THEN TIMESTAMPDIFF(SECOND, trx_wait_started, NOW()) END) AS longest_lock_wait_s, SUM(CASE WHEN TIMESTAMPDIFF(SECOND, trx_started, NOW()) >= 60 THEN 1 ELSE 0 END) AS long_transactions, MAX(TIMESTAMPDIFF(SECOND, trx_started, NOW())) AS oldest_transaction_s, SUM(trx_rows_locked) AS rows_locked FROM information_schema.INNODB_TRX";
const MYSQL_INNODB_METRICS_SQL =
  "SELECT NAME AS name, `COUNT` AS value FROM information_schema.INNODB_METRICS WHERE NAME IN ('lock_deadlocks', 'lock_timeouts', 'lock_row_lock_current_waits', 'lock_row_lock_waits', 'buffer_pool_wait_free', 'log_waits', 'log_lsn_checkpoint_age', 'trx_rseg_history_len') ORDER BY NAME";
const MYSQL_STATUS_SQL =
  "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM performance_schema.global_status WHERE VARIABLE_NAME IN ('Threads_connected', 'Threads_running', 'Max_used_connections', 'Aborted_connects', 'Aborted_clients', 'Connection_errors_max_connections', 'Innodb_row_lock_current_waits', 'Innodb_row_lock_waits', 'Innodb_deadlocks', 'Slow_queries', 'Created_tmp_disk_tables', 'Innodb_buffer_pool_wait_free', 'Innodb_log_waits', 'Uptime') ORDER BY VARIABLE_NAME";
const MYSQL_SETTINGS_SQL =
  'SELECT @@GLOBAL.max_connections AS max_connections, @@GLOBAL.max_user_connections AS max_user_connections, @@GLOBAL.innodb_lock_wait_timeout AS innodb_lock_wait_timeout, @@GLOBAL.wait_timeout AS wait_timeout, @@GLOBAL.long_query_time AS long_query_time, @@GLOBAL.read_only AS read_only, @@GLOBAL.performance_schema AS performance_schema';
const MYSQL_REPLICATION_SQL = 'SELECT CHANNEL_NAME AS channel, SERVICE_STATE AS service_state, LAST_ERROR_NUMBER AS last_error_number, LAST_ERROR_TIMESTAMP AS last_error_at FROM performance_schema.replication_applier_status_by_worker';
/**
 * Error, restart and failover lines of the target (the selector is the exact target matcher), with
 * the warnings engineers look for: checkpoints too frequent, temporary files, autovacuum, MySQL's
 * `[Warning]`/`[ERROR]` lines (InnoDB log sequence, aborted connections, replica SQL thread).
 */
const LOG_ERRORS_LOGQL =
  '{$LOGS_LABEL="$TARGET"} |~ "(?i)(error|fatal|panic|warn|restart|shut ?down|ready to accept|terminat|fail ?over|promot|deadlock|checkpoint|temporary file|autovacuum|too many|no space|disk is full|aborted connection|slave|replica|wal)"';

/** Families the log channel can confirm or rule out. */
const LOG_FAMILIES: readonly MetricFamilyId[] = [
  'errors', 'restarts', 'failover', 'availability', 'uptime', 'deadlocks', 'connections', 'connection_limit', 'storage_free', 'storage_used', 'replication_lag', 'checkpoints', 'wal', 'memory',
  'lock_waits', 'maintenance', 'io_throughput',
];
const STATEMENT_FAMILIES: readonly MetricFamilyId[] = ['statement_latency', 'cpu', 'statement_rate', 'rows_read', 'active_sessions'];

/** Generic package templates (TiDB metric names, `cluster` label), kept as v1 wrote them: recordings are keyed by expression. */
const GENERIC_TEMPLATES: readonly QueryTemplate[] = [
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
];

/**
 * The generic metric templates for Manus and Wetech. A Manus datasource is one cluster (`vida`,
 * `monica`), so its series need no cluster matcher; a Wetech region's datasource holds several
 * clusters, matched by the cluster part of the `<region>/<cluster>` target.
 */
const MANUS: readonly ProviderName[] = ['manus'];
const WETECH: readonly ProviderName[] = ['wetech'];
const withoutClusterMatcher = (expression: string) => expression.replace(/\{cluster="\$TARGET"\}/g, '').replace(/cluster="\$TARGET",/g, '');
const byRegionCluster = (expression: string) => expression.replace(/cluster="\$TARGET"/g, 'cluster="$CLUSTER"');
const rescoped = (providers: readonly ProviderName[], rewrite: (expression: string) => string): QueryTemplate[] =>
  GENERIC_TEMPLATES.filter((t) => t.operation === 'promql_range').map((t) => ({ ...t, providers, expression: rewrite(t.expression) }));
/** Wetech's TiDB Dashboard surfaces; Statements only add context to what TopSQL or the slow log found. */
const WETECH_SLOW_QUERY = '{"orderBy":"query_time","limit":10}';

export const QUERY_TEMPLATES: readonly QueryTemplate[] = [
  ...GENERIC_TEMPLATES,
  ...rescoped(MANUS, withoutClusterMatcher),
  ...rescoped(WETECH, byRegionCluster),
  { id: 'slow_queries_after', providers: WETECH, asks: ['slow statements', 'top statements', 'statements consuming'], operation: 'slow_query', expression: WETECH_SLOW_QUERY, windowPart: 'second-half', purpose: 'slowest statements of the slow log, second half of the window' },
  { id: 'slow_queries_before', providers: WETECH, asks: ['slow statements', 'top statements', 'statements consuming'], operation: 'slow_query', expression: WETECH_SLOW_QUERY, windowPart: 'first-half', purpose: 'slowest statements of the slow log, first half of the window' },
  { id: 'statements', providers: WETECH, asks: ['top statements', 'statements consuming'], operation: 'statements', expression: '{"orderBy":"total_latency","limit":10}', purpose: 'statements by total latency (supplemental: sampled)' },

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

  // Generic package, PostgreSQL statistics (`sql`: one allowlisted SELECT; the views hold the state
  // at execution time, not the window's) and Loki (`logs`, summary mode), where the catalogue offers them.
  { id: 'log_errors', providers: GENERIC_PACKAGE, needsCatalogOperation: true, families: LOG_FAMILIES, asks: ['error', 'restart', 'failover'], operation: 'logs', expression: LOG_ERRORS_LOGQL, purpose: 'error, restart and failover log lines by level and pattern' },
  { id: 'pg_connections', ...pg(['connections', 'connection_limit', 'active_sessions']), asks: ['connection', 'active sessions', 'too many clients'], expression: PG_CONNECTIONS_SQL, purpose: 'client sessions by connection state (PostgreSQL, at execution time)' },
  { id: 'pg_top_statements', ...pg(STATEMENT_FAMILIES), asks: ['top statements', 'statements consuming'], expression: PG_TOP_STATEMENTS_SQL, purpose: 'top statements by total execution time since the statistics reset (pg_stat_statements)' },
  { id: 'pg_blocked_sessions', ...pg(['lock_waits', 'locks', 'deadlocks']), asks: ['lock'], expression: PG_BLOCKED_SQL, purpose: 'sessions waiting on another session\'s lock (PostgreSQL, at execution time)' },
  { id: 'pg_replication', ...pg(['replication_lag', 'failover', 'wal']), asks: ['replica lag', 'replication'], expression: PG_REPLICATION_SQL, purpose: 'streaming replicas and their lag (PostgreSQL, at execution time)' },
  { id: 'pg_checkpoints', ...pg(['checkpoints', 'wal']), asks: ['checkpoint'], expression: PG_BGWRITER_SQL, purpose: 'checkpoints requested vs timed since the statistics reset (pg_stat_bgwriter, PostgreSQL 16 and older)' },
  { id: 'pg_checkpointer', ...pg(['checkpoints', 'wal']), asks: ['checkpoint'], expression: PG_CHECKPOINTER_SQL, purpose: 'checkpoints requested vs timed since the statistics reset (pg_stat_checkpointer, PostgreSQL 17 and newer)' },
  { id: 'pg_database_stats', ...pg(['deadlocks', 'io_throughput', 'storage_used', 'rollbacks']), asks: ['deadlock', 'temp'], expression: PG_DATABASE_SQL, purpose: 'temporary files and bytes, deadlocks and rollbacks per database since the statistics reset (pg_stat_database)' },
  { id: 'pg_activity_waits', ...pg(['active_sessions', 'lock_waits', 'statement_latency']), asks: ['wait event', 'idle in transaction'], expression: PG_ACTIVITY_WAITS_SQL, purpose: 'sessions by state and wait event type, with the oldest transaction age (PostgreSQL, at execution time)' },
  { id: 'pg_lock_modes', ...pg(['locks', 'lock_waits']), asks: ['lock'], expression: PG_LOCKS_SQL, purpose: 'locks held and awaited by mode (PostgreSQL, at execution time)' },
  { id: 'pg_connection_limit', ...pg(['connection_limit']), asks: ['connection limit', 'too many clients'], expression: PG_SETTINGS_SQL, purpose: 'max_connections and related settings (PostgreSQL)' },
  { id: 'mysql_processlist', ...my(['connections', 'connection_limit', 'active_sessions']), asks: ['connection'], expression: MYSQL_PROCESSLIST_SQL, purpose: 'sessions by command and state (MySQL processlist, at execution time)' },
  { id: 'mysql_top_statements', ...my(STATEMENT_FAMILIES), asks: ['top statements', 'statements consuming'], expression: MYSQL_TOP_STATEMENTS_SQL, purpose: 'top statement digests by total time since the statistics reset (performance_schema)' },
  { id: 'mysql_transactions', ...my(['lock_waits', 'locks', 'deadlocks', 'maintenance']), asks: ['lock', 'transaction'], expression: MYSQL_TRANSACTIONS_SQL, purpose: 'open InnoDB transactions: lock waits and long transactions (at execution time)' },
  { id: 'mysql_replication', ...my(['replication_lag', 'failover']), asks: ['replication', 'replica'], expression: MYSQL_REPLICATION_SQL, purpose: 'replica applier workers: state and last error number (performance_schema)' },
  { id: 'mysql_innodb_metrics', ...my(['deadlocks', 'lock_waits', 'checkpoints', 'wal', 'maintenance']), asks: ['deadlock', 'checkpoint'], expression: MYSQL_INNODB_METRICS_SQL, purpose: 'InnoDB deadlock, lock-wait, log and history counters (information_schema.INNODB_METRICS)' },
  { id: 'mysql_status', ...my(['connections', 'connection_limit', 'errors', 'uptime', 'restarts', 'io_throughput']), asks: ['status', 'aborted'], expression: MYSQL_STATUS_SQL, purpose: 'global status counters: threads, aborted connections, row lock waits, uptime (performance_schema)' },
  { id: 'mysql_settings', ...my(['connection_limit', 'lock_waits']), asks: ['connection limit', 'max_connections'], expression: MYSQL_SETTINGS_SQL, purpose: 'max_connections, lock wait timeout and related settings (MySQL)' },
];

/**
 * Templates written for a provider, in catalog order. Templates that need an operation from the
 * catalogue (`needsCatalogOperation`) are included only when `operations` lists it, `sql` ones only
 * for the target's dialect (PostgreSQL unless said otherwise).
 */
export function templatesFor(provider: ProviderName, operations: readonly string[] = [], dialect: SqlDialect = 'postgresql'): QueryTemplate[] {
  return QUERY_TEMPLATES.filter((t) => t.providers.includes(provider) && (!t.needsCatalogOperation || operations.includes(t.operation)) && (!t.dialect || t.dialect === dialect));
}

/** Labels of a catalogue the templates bind besides the target (`$LOGS_LABEL`, default `cluster`). */
export interface TemplateLabels {
  logsLabel?: string | null;
}

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Placeholder values of a frozen target; Clinic targets split into org and cluster. */
function placeholders(target: string, labels: TemplateLabels): Record<string, string> {
  const [org, cluster] = target.split('/');
  const logsLabel = labels.logsLabel && LABEL_NAME.test(labels.logsLabel) ? labels.logsLabel : 'cluster';
  return { TARGET: target, ORG: cluster === undefined ? '' : org, CLUSTER: cluster ?? target, LOGS_LABEL: logsLabel };
}

/** Replaces `$TARGET`, `$ORG`, `$CLUSTER` and `$LOGS_LABEL` (PromQL's own `$1` references stay as they are). */
export function bindTarget(expression: string, target: string, labels: TemplateLabels = {}): string {
  const values = placeholders(target, labels);
  return expression.replace(/\$(TARGET|ORG|CLUSTER|LOGS_LABEL)\b/g, (_m, name: string) => values[name] ?? '');
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
export function bindTemplate(template: QueryTemplate, target: string, window: TimeWindow, labels: TemplateLabels = {}): { id: string; operation: string; expression: string; purpose: string; window: TimeWindow | null } {
  return { id: template.id, operation: template.operation, expression: bindTarget(template.expression, target, labels), purpose: template.purpose, window: templateWindow(template, window) };
}
