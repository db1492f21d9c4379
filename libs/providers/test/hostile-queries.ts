import fc from 'fast-check';

/**
 * Generators of hostile SQL (MySQL/TiDB and PostgreSQL) and PromQL for the property tests and the
 * integration specs, and the legitimate statements the product builds, which must keep passing.
 * Every generated hostile text must be refused wherever its hostile part lands, so fragments are
 * inserted only where they stay outside quoted text (or are refused anywhere).
 */

// ---------------------------------------------------------------------------------------------
// Shared pieces

/** The word with each letter's case chosen at random. */
export const anyCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((flags) => [...word].map((c, i) => (flags[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

const gap = fc.constantFrom(' ', '  ', '\n', '\t', ' \r\n ');

/** Characters refused anywhere, even inside a string: zero-width, bidi, BOM, NUL, NBSP, separators, controls. */
export const INVISIBLE_CHARACTERS: readonly string[] = ['\u200b', '\u200c', '\u200d', '\u2060', '\u202e', '\u202a', '\u2066', '\u2069', '\ufeff', '\u0000', '\u00a0', '\u2028', '\u2029', '\u0007', '\u001b', '\u00ad', '\u3000'];
/** Letters that look like ASCII ones (Cyrillic, Greek, fullwidth). */
const HOMOGLYPHS: Readonly<Record<string, string>> = { a: '\u0430', e: '\u0435', o: '\u043e', p: '\u0440', c: '\u0441', s: '\u0455', i: '\u0456', l: '\u04cf', E: '\u0395', S: '\uff33' };

/** `word` with at least one letter swapped for its look-alike. */
const homoglyphOf = (word: string): fc.Arbitrary<string> => {
  const swappable = [...word].map((c, i) => (HOMOGLYPHS[c] ? i : -1)).filter((i) => i >= 0);
  return fc.subarray(swappable, { minLength: 1 }).map((picked) => [...word].map((c, i) => (picked.includes(i) ? HOMOGLYPHS[c] : c)).join(''));
};

/** Offsets of spaces outside quoted text ('…', "…", `…`): where a fragment stays unquoted. */
function unquotedSpaces(sql: string): number[] {
  const out: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === ' ') out.push(i);
  }
  return out;
}

/** The base with the fragment at one of its unquoted spaces. */
const insertUnquoted = (bases: readonly string[], fragment: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.constantFrom(...bases).chain((base) => {
    const spaces = unquotedSpaces(base);
    return fc.tuple(fc.constantFrom(...spaces), fragment).map(([at, f]) => `${base.slice(0, at)} ${f} ${base.slice(at + 1)}`);
  });

/** The base with the character anywhere (refused even inside quoted text). */
const insertAnywhere = (bases: readonly string[], ch: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.constantFrom(...bases).chain((base) => fc.tuple(fc.integer({ min: 0, max: base.length }), ch).map(([at, c]) => `${base.slice(0, at)}${c}${base.slice(at)}`));

/** `inner` inside `depth` of the given wrappers (`%s` marks the hole). */
const wrapped = (inner: fc.Arbitrary<string>, wrappers: readonly string[], maxDepth = 4): fc.Arbitrary<string> =>
  fc.tuple(inner, fc.array(fc.constantFrom(...wrappers), { maxLength: maxDepth })).map(([core, ws]) => ws.reduce((acc, w) => w.replace('%s', acc), core));

/** A SELECT nested `depth` deep in FROM subqueries around the innermost select list. */
const nestedSelect = (innermost: fc.Arbitrary<string>, keyword: string): fc.Arbitrary<string> =>
  fc.tuple(innermost, fc.integer({ min: 0, max: 5 })).map(([core, depth]) => {
    let sql = `${keyword} ${core}`;
    for (let d = 0; d < depth; d++) sql = `${keyword} * FROM (${sql}) AS n${d}`;
    return sql;
  });

// ---------------------------------------------------------------------------------------------
// MySQL / TiDB / MariaDB

/** Statements the product itself sends over the MySQL protocol (templates, the lab, Clinic tests). */
export const LEGIT_MYSQL: readonly string[] = [
  'SELECT DIGEST AS digest, DIGEST_TEXT, COUNT_STAR AS calls, SUM_TIMER_WAIT / 1000000000 AS total_ms, AVG_TIMER_WAIT / 1000000000 AS mean_ms, SUM_ROWS_EXAMINED AS rows_examined, SUM_ROWS_SENT AS rows_sent, SUM_NO_INDEX_USED AS no_index_used, SUM_ERRORS AS errors, (SELECT SUM(SUM_TIMER_WAIT) FROM performance_schema.events_statements_summary_by_digest) / 1000000000 AS all_statements_ms FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST IS NOT NULL ORDER BY SUM_TIMER_WAIT DESC LIMIT 10',
  "SELECT COMMAND AS command, COALESCE(STATE, '') AS state, COUNT(*) AS sessions, MAX(TIME) AS longest_s FROM information_schema.PROCESSLIST GROUP BY COMMAND, STATE ORDER BY sessions DESC LIMIT 30",
  "SELECT COUNT(*) AS transactions, SUM(CASE WHEN trx_state = 'LOCK WAIT' THEN 1 ELSE 0 END) AS lock_waits, MAX(CASE WHEN trx_state = 'LOCK WAIT' THEN TIMESTAMPDIFF(SECOND, trx_wait_started, NOW()) END) AS longest_lock_wait_s, SUM(CASE WHEN TIMESTAMPDIFF(SECOND, trx_started, NOW()) >= 60 THEN 1 ELSE 0 END) AS long_transactions, MAX(TIMESTAMPDIFF(SECOND, trx_started, NOW())) AS oldest_transaction_s, SUM(trx_rows_locked) AS rows_locked FROM information_schema.INNODB_TRX",
  "SELECT NAME AS name, `COUNT` AS value FROM information_schema.INNODB_METRICS WHERE NAME IN ('lock_deadlocks', 'lock_timeouts', 'lock_row_lock_current_waits', 'lock_row_lock_waits', 'buffer_pool_wait_free', 'log_waits', 'log_lsn_checkpoint_age', 'trx_rseg_history_len') ORDER BY NAME",
  "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM performance_schema.global_status WHERE VARIABLE_NAME IN ('Threads_connected', 'Threads_running', 'Max_used_connections', 'Aborted_connects', 'Uptime') ORDER BY VARIABLE_NAME",
  'SELECT @@GLOBAL.max_connections AS max_connections, @@GLOBAL.max_user_connections AS max_user_connections, @@GLOBAL.innodb_lock_wait_timeout AS innodb_lock_wait_timeout, @@GLOBAL.wait_timeout AS wait_timeout, @@GLOBAL.long_query_time AS long_query_time, @@GLOBAL.read_only AS read_only, @@GLOBAL.performance_schema AS performance_schema',
  'SELECT CHANNEL_NAME AS channel, SERVICE_STATE AS service_state, LAST_ERROR_NUMBER AS last_error_number, LAST_ERROR_TIMESTAMP AS last_error_at FROM performance_schema.replication_applier_status_by_worker',
  'SELECT 1 AS channel_check',
];

/** Statements only the general path (Clinic's `sql`, the connector) takes: any table, SHOW, EXPLAIN. */
export const LEGIT_MYSQL_GENERAL: readonly string[] = [
  ...LEGIT_MYSQL,
  'SELECT region, COUNT(*) AS orders, SUM(amount) AS total, MAX(created_at) AS latest, MAX(note) AS sample_note FROM orders GROUP BY region ORDER BY region',
  'SELECT region, amount, note, created_at FROM orders ORDER BY id',
  'SELECT @@session.tx_read_only AS read_only_flag',
  'SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b',
  "SELECT REPEAT('x', 1000) AS filler FROM seq_1_to_1000",
  'SELECT digest, sum_latency FROM information_schema.statements_summary LIMIT 10',
  "SELECT DIGEST, EXEC_COUNT, ROUND(AVG_LATENCY / 1e6, 2) AS avg_ms FROM information_schema.cluster_statements_summary WHERE SUMMARY_BEGIN_TIME > DATE_SUB(NOW(), INTERVAL 1 HOUR) ORDER BY SUM_LATENCY DESC LIMIT 10",
  "SELECT INSTANCE, `Query_time`, `Digest` FROM information_schema.cluster_slow_query WHERE `Time` BETWEEN '2026-11-20 10:00:00' AND '2026-11-20 11:00:00' ORDER BY `Query_time` DESC LIMIT 20",
  'SELECT TYPE, INSTANCE, VERSION, UPTIME FROM information_schema.cluster_info',
  'SELECT table_schema, COUNT(*) AS n_tables FROM information_schema.tables GROUP BY table_schema',
  'EXPLAIN SELECT * FROM orders WHERE created_at > NOW()',
  'SHOW TABLES',
  "SHOW GLOBAL VARIABLES LIKE 'tidb_%'",
  'SHOW FULL PROCESSLIST',
  'WITH a AS (SELECT 1 AS x) SELECT x FROM a',
  'SELECT 1;',
];

/** Functions that wait, lock, read files, write state or sequences: none is allowlisted. */
export const DENIED_MYSQL_FUNCTIONS: readonly string[] = [
  'sleep', 'benchmark', 'get_lock', 'release_lock', 'release_all_locks', 'is_free_lock', 'is_used_lock', 'load_file', 'master_pos_wait', 'source_pos_wait',
  'master_gtid_wait', 'wait_for_executed_gtid_set', 'wait_until_sql_thread_after_gtids', 'last_insert_id', 'nextval', 'setval', 'lastval', 'sys_exec', 'sys_eval',
  'pg_sleep', 'extractvalue', 'updatexml', 'name_const', 'uuid_short', 'tidb_decode_sql_digests', 'aoc_write_probe', 'st_astext', 'found_rows', 'row_count',
];

const MYSQL_FRAGMENTS: readonly string[] = [
  '/*!50000 , SLEEP(10) */', "/*! INTO OUTFILE '/tmp/x' */", '/*! FOR UPDATE */', '/*M!100000 , SLEEP(1) */', '/*T![clustered_index] , SLEEP(1) */', '/*!*/', '/**/', '/* plain */',
  '/*+ SET_VAR(max_execution_time=0) */', '/*+ MAX_EXECUTION_TIME(0) */', '/*+ NO_INDEX_MERGE(t) */', '-- x\n', '--\n', '# x\n', '#\n',
  '; DROP TABLE orders', ';SELECT 1', "INTO OUTFILE '/tmp/x'", "INTO DUMPFILE '/tmp/x'", 'INTO @v', 'FOR UPDATE', 'FOR SHARE', 'FOR UPDATE NOWAIT', 'LOCK IN SHARE MODE',
  'PROCEDURE ANALYSE()', '@x', "@'x'", '@`x`', '@x := 1', ', LOAD_FILE(\'/etc/passwd\')', 'HANDLER', '\\', "'a\\' , SLEEP(1) -- '",
];

const MYSQL_WRAPPERS: readonly string[] = ['COALESCE(%s, 0)', 'IFNULL(%s, 0)', 'ROUND(%s)', 'ABS(%s)', 'MAX(%s)', 'IF(%s, 1, 0)', "CONCAT(%s, 'x')", '(SELECT %s)', 'CASE WHEN %s THEN 1 END', 'GREATEST(%s, 1)', '(%s)'];

/** One denied call, spelled any way MySQL accepts: any case, space before `(`, qualified, backticked. */
const deniedMySqlCall = fc
  .tuple(fc.constantFrom(...DENIED_MYSQL_FUNCTIONS), fc.constantFrom('', ' ', '\n'), fc.constantFrom('plain', 'qualified', 'backticked'), fc.constantFrom('1', "'x', 1", '', '1000000, MD5(1)'))
  .chain(([name, space, form, args]) =>
    anyCase(name).map((n) => {
      const callee = form === 'qualified' ? `mysql.${n}` : form === 'backticked' ? `\`${n}\`` : n;
      return `${callee}${space}(${args})`;
    }),
  );

const MYSQL_WRITES: readonly string[] = [
  'INSERT INTO orders VALUES (1)', 'UPDATE orders SET a = 1', 'DELETE FROM orders', 'REPLACE INTO orders VALUES (1)', 'CALL p()', 'DO SLEEP(1)', 'SET @a = 1',
  'SET SESSION TRANSACTION READ WRITE', 'HANDLER orders OPEN', "LOAD DATA INFILE '/etc/passwd' INTO TABLE orders", 'LOCK TABLES orders READ', 'UNLOCK TABLES',
  "SELECT 1 UNION SELECT 2 INTO OUTFILE '/x'", 'TABLE orders', 'VALUES ROW(1)', 'EXPLAIN ANALYZE DELETE FROM orders', 'WITH x AS (SELECT 1) DELETE FROM orders',
  '(SELECT 1) FOR UPDATE', 'KILL 1', 'FLUSH TABLES', 'PREPARE s FROM \'SELECT 1\'', 'EXECUTE s', 'GRANT ALL ON *.* TO x', 'DROP TABLE orders', 'CREATE TABLE t (a INT)',
  'SELECT NEXT VALUE FOR s', 'SHOW GRANTS FOR root', 'SELECT * FROM orders WHERE id = 1 FOR UPDATE SKIP LOCKED', 'BEGIN', 'COMMIT',
];

/** Hostile MySQL/TiDB statements by family; each must be refused by `validateReadOnlySql`. */
export const hostileMySql = {
  fragments: insertUnquoted(LEGIT_MYSQL_GENERAL.filter((s) => s.includes(' ')), fc.constantFrom(...MYSQL_FRAGMENTS).chain(anyCase)),
  stacked: fc.tuple(fc.constantFrom(...LEGIT_MYSQL_GENERAL), gap, fc.constantFrom(...MYSQL_WRITES, 'SELECT 1')).map(([a, g, b]) => `${a.replace(/;$/, '')};${g}${b}`),
  invisible: insertAnywhere(LEGIT_MYSQL_GENERAL, fc.constantFrom(...INVISIBLE_CHARACTERS)),
  homoglyphs: fc.tuple(fc.constantFrom('sleep', 'select', 'benchmark', 'count', 'now', 'coalesce'), fc.constantFrom(...LEGIT_MYSQL_GENERAL.filter((s) => s.startsWith('SELECT ')))).chain(([word, base]) =>
    homoglyphOf(word).map((h) => base.replace(/^SELECT /, `SELECT ${h}(1) AS h, `)),
  ),
  deniedInsideAllowed: wrapped(deniedMySqlCall, MYSQL_WRAPPERS).chain((expr) => fc.constantFrom(`SELECT ${expr} AS x`, `SELECT a FROM orders WHERE ${expr} > 0`, `SELECT COUNT(*) FROM orders GROUP BY a HAVING ${expr}`, `SELECT a FROM orders ORDER BY ${expr}`)),
  nested: nestedSelect(
    fc.oneof(deniedMySqlCall, fc.constantFrom('1 FOR UPDATE', '1 INTO @x', '1 LOCK IN SHARE MODE', "1 INTO OUTFILE '/tmp/x'", '1 /*!50000 , SLEEP(1) */', '@x')),
    'SELECT',
  ).chain((s) => anyCase('select').map((kw) => s.replace(/^SELECT/, kw))),
  writes: fc.tuple(fc.constantFrom(...MYSQL_WRITES), fc.boolean()).chain(([w, paren]) => anyCase(w).map((c) => (paren ? `(${c})` : c))),
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** The PostgreSQL statistics templates the planner uses. */
export const LEGIT_PG: readonly string[] = [
  "SELECT coalesce(state, 'unknown') AS state, count(*) AS sessions, max(now() - state_change) AS longest_in_state FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state ORDER BY sessions DESC",
  'SELECT pid, state, wait_event_type, wait_event, cardinality(pg_blocking_pids(pid)) AS blocked_by, now() - query_start AS running_for, query FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0 ORDER BY running_for DESC LIMIT 20',
  'SELECT locktype, mode, granted, count(*) AS locks FROM pg_locks GROUP BY locktype, mode, granted ORDER BY granted, locks DESC LIMIT 20',
  'SELECT application_name, state, sync_state, write_lag, flush_lag, replay_lag, pg_wal_lsn_diff(sent_lsn, replay_lsn) AS replay_lag_bytes FROM pg_stat_replication ORDER BY replay_lag DESC NULLS LAST',
  "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections', 'superuser_reserved_connections', 'idle_in_transaction_session_timeout', 'statement_timeout', 'lock_timeout', 'deadlock_timeout', 'shared_buffers', 'work_mem') ORDER BY name",
  'SELECT query, calls, total_exec_time, mean_exec_time, rows, (SELECT sum(total_exec_time) FROM pg_stat_statements) AS all_exec_time FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10',
  "SELECT coalesce(state, 'unknown') AS state, coalesce(wait_event_type, 'none') AS wait_event_type, count(*) AS sessions, max(extract(epoch FROM now() - xact_start)) AS oldest_xact_age_s FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state, wait_event_type ORDER BY sessions DESC LIMIT 30",
  'SELECT checkpoints_timed, checkpoints_req, checkpoint_write_time, checkpoint_sync_time, buffers_checkpoint, buffers_backend, stats_reset FROM pg_stat_bgwriter',
  'SELECT num_timed AS checkpoints_timed, num_requested AS checkpoints_req, write_time AS checkpoint_write_time, sync_time AS checkpoint_sync_time, buffers_written AS buffers_checkpoint, stats_reset FROM pg_stat_checkpointer',
  'SELECT datname, temp_files, temp_bytes, deadlocks, conflicts, xact_commit, xact_rollback, stats_reset FROM pg_stat_database WHERE datname IS NOT NULL ORDER BY temp_bytes DESC LIMIT 20',
  'SELECT 1 AS channel_check',
];

export const DENIED_PG_FUNCTIONS: readonly string[] = [
  'pg_sleep', 'pg_sleep_for', 'pg_sleep_until', 'dblink', 'dblink_exec', 'lo_import', 'lo_export', 'lo_get', 'lo_put', 'lo_unlink', 'lo_creat', 'lo_from_bytea', 'pg_read_file',
  'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file', 'set_config', 'current_setting', 'nextval', 'setval', 'pg_advisory_lock', 'pg_advisory_xact_lock', 'pg_try_advisory_lock',
  'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'txid_current', 'query_to_xml', 'pg_notify', 'pg_switch_wal', 'pg_logical_emit_message',
];

const PG_FRAGMENTS: readonly string[] = [
  '/* x */', '/**/', '-- x\n', '; DROP TABLE t', ';SELECT 1', '$$x$$', '$1', 'FOR UPDATE', 'FOR NO KEY UPDATE', 'FOR SHARE', 'FOR KEY SHARE', 'FOR READ ONLY', 'INTO t2',
  "E'\\x41'", "U&'d'", '\\', ", (DELETE FROM t RETURNING 1)",
];
const PG_WRAPPERS: readonly string[] = ['coalesce(%s, 0)', 'round(%s)', 'greatest(%s, 1)', 'max(%s)', 'count(%s)', '(SELECT %s)', 'CASE WHEN %s IS NULL THEN 1 END', '%s::text', 'nullif(%s, 0)', '(%s)'];

const deniedPgCall = fc
  .tuple(fc.constantFrom(...DENIED_PG_FUNCTIONS), fc.constantFrom('plain', 'pg_catalog', 'public', 'quoted'), fc.constantFrom('1', "'x'", ''))
  .chain(([name, form, args]) =>
    (form === 'quoted' ? fc.constant(name) : anyCase(name)).map((n) => `${form === 'plain' ? n : form === 'quoted' ? `"${n}"` : `${form}.${n}`}(${args})`),
  );

const PG_WRITES: readonly string[] = [
  'WITH x AS (DELETE FROM t RETURNING 1) SELECT * FROM x', 'WITH x AS (UPDATE t SET a = 1 RETURNING 1) SELECT 1', 'WITH x AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT 1',
  'WITH x AS (MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE) SELECT 1', 'SELECT * INTO t2 FROM pg_locks', 'INSERT INTO t VALUES (1)', 'COPY t TO \'/tmp/x\'',
  'SET statement_timeout = 0', 'SET default_transaction_read_only = off', 'BEGIN', 'COMMIT', 'DO $$BEGIN PERFORM pg_sleep(1); END$$', 'VACUUM', 'LOCK TABLE t', 'NOTIFY x',
  'TABLE pg_authid', 'VALUES (1)', 'EXPLAIN ANALYZE DELETE FROM t', 'SELECT * FROM pg_locks FOR UPDATE OF pg_locks', 'CALL p()',
];

/** Hostile PostgreSQL statements by family; each must be refused by `validateReadOnlyPgSql`. */
export const hostilePg = {
  fragments: insertUnquoted(LEGIT_PG.filter((s) => s.includes(' ')), fc.constantFrom(...PG_FRAGMENTS).chain(anyCase)),
  stacked: fc.tuple(fc.constantFrom(...LEGIT_PG), gap, fc.constantFrom(...PG_WRITES, 'SELECT 1')).map(([a, g, b]) => `${a};${g}${b}`),
  invisible: insertAnywhere(LEGIT_PG, fc.constantFrom(...INVISIBLE_CHARACTERS)),
  homoglyphs: fc.tuple(fc.constantFrom('pg_sleep', 'select', 'coalesce', 'now'), fc.constantFrom(...LEGIT_PG)).chain(([word, base]) => homoglyphOf(word).map((h) => base.replace(/^SELECT /, `SELECT ${h}(1) AS h, `))),
  deniedInsideAllowed: wrapped(deniedPgCall, PG_WRAPPERS).chain((expr) => fc.constantFrom(`SELECT ${expr} AS x`, `SELECT pid FROM pg_locks WHERE ${expr} IS NOT NULL`, `SELECT * FROM ${expr}`, `SELECT pid FROM pg_stat_activity ORDER BY ${expr}`)),
  nested: nestedSelect(fc.oneof(deniedPgCall, fc.constantFrom('1 FOR UPDATE', '* INTO t2', '1 FROM pg_locks FOR SHARE', '1 -- x')), 'SELECT').chain((s) => anyCase('select').map((kw) => s.replace(/^SELECT/, kw))),
  writes: fc.tuple(fc.constantFrom(...PG_WRITES), fc.boolean()).chain(([w, paren]) => anyCase(w).map((c) => (paren ? `(${c})` : c))),
};

// ---------------------------------------------------------------------------------------------
// PromQL

/** PromQL the product builds: templates, family plans (with `@ start()` / `@ end()`), the packages' own. */
export const LEGIT_PROMQL: readonly string[] = [
  'histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster="c1"}[5m])))',
  'sum(rate(tidb_server_query_total{cluster="c1"}[5m]))',
  'sum by (component) (rate(process_cpu_seconds_total{cluster="c1"}[5m]))',
  'changes(process_start_time_seconds{cluster="c1"}[1h])',
  'sum by (store) (label_replace(rate(tikv_thread_cpu_seconds_total{cluster_id="c1"}[5m]), "store", "$1", "instance", "([^.:]+).*"))',
  'max by (changefeed) (ticdc_owner_checkpoint_ts_lag{cluster="c1"})',
  'sum(rate(pg_stat_database_xact_commit{cluster="db1"}[5m])) / clamp_min(sum(rate(pg_stat_database_xact_rollback{cluster="db1"}[5m])), 0.001)',
  'max by (alertname, severity) (ALERTS{alertstate="firing",cluster="db1"})',
  'max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"}) and on(__name__) (max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"} @ end()) != on(__name__) max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"} @ start()))',
  'max_over_time(rate(tidb_server_cpu_seconds_total[2m])[10m:1m])',
  'max_over_time(up{instance="10.0.0.1:10080"}[1h:5m])',
  'sum by (instance) (rate(a{instance="10.0.0.1:10080"}[1m])) / sum(b{instance="10.0.0.1:10080"} offset 5m)',
  'max_over_time(x[1h:1m])',
  'up',
  // at the limits
  'max_over_time(x[30d])',
  'x offset 30d',
  'rate(x[15d] offset 15d)',
  'max_over_time(x[720h:1h])',
  'max_over_time(x[3h:1s])',
  'max_over_time(max_over_time(x[10m:1m])[16h:1m])',
];

const DAY = 86_400;
const LOOKBACK = 30 * DAY;

/** A duration literal longer than `min` seconds, in any unit PromQL takes. */
const durationOver = (min: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: Math.floor(min / DAY) + 1, max: 100_000 }).map((d) => `${d}d`),
    fc.integer({ min: Math.floor(min / 3600) + 1, max: 10_000_000 }).map((h) => `${h}h`),
    fc.integer({ min: Math.floor(min / (7 * DAY)) + 1, max: 5000 }).map((w) => `${w}w`),
    fc.integer({ min: 1, max: 100 }).map((y) => `${y}y`),
    fc.integer({ min: min + 1, max: 2_000_000_000 }).map((s) => `${s}s`),
    fc.integer({ min: min + 1, max: 2_000_000_000 }).map((s) => `${s}`),
    fc.integer({ min: Math.floor(min / DAY) + 1, max: 999 }).map((d) => `${d}d12h30m`),
  );

const PROM_WRAPPERS: readonly string[] = ['sum(%s)', 'sum by (instance) (%s)', 'max_over_time(%s)', 'rate(%s)', '(%s)', '%s + 1', 'abs(%s)', '-%s', 'histogram_quantile(0.99, %s)', 'label_replace(%s, "a", "$1", "b", "(.*)")', 'topk(5, %s)', '%s / on(instance) group_left up'];
const selector = fc.constantFrom('x', 'up{cluster="c1"}', 'rate(y[5m])', 'tidb_server_query_total{cluster_id="c"}');

const promCores = {
  hugeRange: fc.tuple(fc.constantFrom('x', 'up{cluster="c1"}'), durationOver(LOOKBACK)).map(([s, d]) => `${s}[${d}]`),
  hugeSubqueryRange: fc.tuple(selector, durationOver(LOOKBACK), fc.constantFrom('1m', '1h', '1d', '5m')).map(([s, d, step]) => `${s}[${d}:${step}]`),
  tooManyPoints: fc
    .integer({ min: 1, max: Math.floor(LOOKBACK / 11_001) })
    .chain((step) => fc.integer({ min: 11_000 * step, max: LOOKBACK }).map((range) => `x[${range}s:${step}s]`)),
  nestedTooDeep: fc.tuple(fc.integer({ min: 3, max: 6 }), selector).map(([depth, s]) => {
    let e: string = s;
    for (let i = 0; i < depth; i++) e = `max_over_time(${e}[10m:1m])`;
    return e;
  }),
  nestedPointsMultiply: fc
    .tuple(fc.integer({ min: 105, max: 11_000 }), fc.integer({ min: 105, max: 11_000 }))
    .filter(([a, b]) => (a + 1) * (b + 1) > 11_000 && a * 60 + b * 60 <= LOOKBACK)
    .map(([a, b]) => `max_over_time(rate(x[5m])[${a}m:1m])[${b}m:1m]`),
  hugeOffset: fc.tuple(selector, durationOver(LOOKBACK), fc.constantFrom('', '-')).map(([s, d, sign]) => `${s} offset ${sign}${d}`),
  rangePlusOffset: fc
    .tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 30 }))
    .filter(([a, b]) => a + b > 30)
    .map(([a, b]) => `rate(x[${a}d] offset ${b}d)`),
  atTimestamp: fc.tuple(selector, fc.oneof(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }).map(String), fc.constantFrom('1700000000.5', '0x10', 'inf', '-inf', '+1e9'))).map(([s, t]) => `${s} @ ${t}`),
  comment: fc.tuple(selector, fc.string({ maxLength: 20 }).filter((c) => !c.includes('\n'))).map(([s, c]) => `${s} # ${c}\n + 1`),
  subqueryWithoutStep: fc.tuple(selector, fc.constantFrom('1h', '5m', '1d')).map(([s, d]) => `${s}[${d}:]`),
  computedDuration: fc.tuple(selector, fc.constantFrom('[5m * 2]', '[step()]', '[range()]', '[min_of(1h, 2h)]', '[1h:step()]', '[(5m)]', '[1h + 1h]', '[-5m]')).map(([s, d]) => `${s}${d}`),
};

/** Hostile PromQL by family, each inside random wrappers; each must be refused by `validatePromQl`. */
export const hostilePromQl: Record<keyof typeof promCores, fc.Arbitrary<string>> = Object.fromEntries(
  Object.entries(promCores).map(([name, core]) => [name, wrapped(core, PROM_WRAPPERS, 3)]),
) as Record<keyof typeof promCores, fc.Arbitrary<string>>;
