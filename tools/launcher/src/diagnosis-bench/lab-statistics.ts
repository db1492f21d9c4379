// Diagnosis benchmark, suite L: the statement-statistics snapshot of a lab case (taken at the
// end of the recording) turned into the statements that load it into a real server, so the
// platform's own SQL connectors read it as they read a live database:
//  - Postgres: one database per case whose catalog views (pg_stat_activity, pg_stat_replication,
//    pg_stat_bgwriter, pg_stat_database, pg_settings) are replaced by views over the snapshot,
//    and public.pg_stat_statements is a table of it. Views the case did not record are dropped,
//    so a query of them fails ("does not exist") instead of reading the replay server's own.
//  - MariaDB: one database per case with `ps_<table>` / `is_<table>` tables, which the bench's
//    MySQL-protocol front (lab-statistics-servers.ts) names in place of
//    performance_schema.<table> / information_schema.<table> (rewriteMySqlForReplay).
// Pure: builds statements and parameters, runs nothing.
import { z } from 'zod';
import type { LabCase } from './lab-case';

export interface ReplayStatement {
  sql: string;
  params?: (string | number | null)[];
}

const Row = z.record(z.string(), z.unknown());
const Rows = z.array(Row);
const Flat = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

/** A recorded view: its rows, or null when the recorder could not read it (`{error}`) or never did. */
function rowsOf(statements: LabCase['statements'], key: string): Record<string, unknown>[] | null {
  const parsed = Rows.safeParse(statements[key]);
  return parsed.success ? parsed.data : null;
}

function flatOf(statements: LabCase['statements'], key: string): Record<string, string | number | null> | null {
  const v = statements[key];
  if (Array.isArray(v)) return null;
  const parsed = Flat.safeParse(v);
  return parsed.success ? parsed.data : null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
/** The recorder wrote 'none' for a NULL state / wait class (coalesce). */
const orNull = (v: unknown): string | null => (v === 'none' || v === null || v === undefined ? null : String(v));

/** Name of the replay database of a case's cluster (lab-pg-07 -> aoc_lab_pg_07). */
export function replayDatabase(cluster: string): string {
  if (!/^lab-(pg|my)-\d{2,3}$/.test(cluster)) throw new Error(`not a lab cluster: ${cluster}`);
  return `aoc_${cluster.replace(/-/g, '_')}`;
}

/** Fake session ids of the expanded snapshot rows start here (the snapshot kept counts, not sessions). */
const FIRST_PID = 100_000;

// ---------------------------------------------------------------------------------------------
// Postgres

/** Allowlisted statistics views the lab never records: dropped in the replay database. */
export const PG_UNRECORDED_VIEWS = ['pg_locks', 'pg_stat_wal_receiver', 'pg_replication_slots', 'pg_stat_database_conflicts', 'pg_stat_wal', 'pg_stat_user_tables', 'pg_stat_progress_vacuum'] as const;

interface PgTable {
  /** The catalog view it replaces (or public.pg_stat_statements). */
  view: string;
  columns: [name: string, type: string][];
  rows: (string | number | null)[][];
}

/**
 * Sessions of the snapshot, one row per session (the recorder grouped them by state, wait class
 * and backend type). Who blocks whom was not recorded, and pg_blocking_pids() is a pinned
 * built-in that answers for the replay server's own sessions: no replayed session is blocked by
 * it, though the lock waiters still show as `wait_event_type = 'Lock'`.
 */
function pgActivity(rows: Record<string, unknown>[]): PgTable {
  const out: (string | number | null)[][] = [];
  let pid = FIRST_PID;
  for (const r of rows) {
    const n = Math.min(10_000, Math.max(0, Math.floor(num(r['count']) ?? 0)));
    const backend = text(r['backend_type']);
    const wait = orNull(r['wait_event_type']);
    for (let i = 0; i < n; i++) out.push([pid++, backend === 'client backend' ? 'lab' : null, orNull(r['state']), wait, backend]);
  }
  return {
    view: 'pg_stat_activity',
    columns: [
      ['pid', 'integer'],
      ['datname', 'name'],
      ['state', 'text'],
      ['wait_event_type', 'text'],
      ['backend_type', 'text'],
    ],
    rows: out,
  };
}

/** Lags are elapsed times: stretched like the case's age gauges. Byte positions are real. */
function pgReplication(rows: Record<string, unknown>[], scale: number): PgTable {
  const seconds = (v: unknown) => {
    const s = num(v);
    return s === null ? null : `${s * scale} seconds`;
  };
  return {
    view: 'pg_stat_replication',
    columns: [
      ['application_name', 'text'],
      ['state', 'text'],
      ['sync_state', 'text'],
      ['sent_lag_bytes', 'numeric'],
      ['replay_lag_bytes', 'numeric'],
      ['write_lag', 'interval'],
      ['flush_lag', 'interval'],
      ['replay_lag', 'interval'],
    ],
    rows: rows.map((r) => [text(r['application_name']), text(r['state']), text(r['sync_state']), num(r['sent_lag_bytes']), num(r['replay_lag_bytes']), seconds(r['write_lag_s']), seconds(r['flush_lag_s']), seconds(r['replay_lag_s'])]),
  };
}

/** A snapshot's rows as a table of the given text and numeric columns (absent values NULL): counters bigint, times float8, as the catalog types them. */
function pgPlain(view: string, rows: Record<string, unknown>[], textColumns: readonly string[], counters: readonly string[], times: readonly string[] = []): PgTable {
  const integral = (v: unknown) => {
    const n = num(v);
    return n === null ? null : Math.round(n);
  };
  return {
    view,
    columns: [...textColumns.map((c) => [c, 'text'] as [string, string]), ...counters.map((c) => [c, 'bigint'] as [string, string]), ...times.map((c) => [c, 'double precision'] as [string, string])],
    rows: rows.map((r) => [...textColumns.map((c) => text(r[c])), ...counters.map((c) => integral(r[c])), ...times.map((c) => num(r[c]))]),
  };
}

/** Units of the settings the recorder reads (pg_settings.unit), for the connector's readers. */
const PG_SETTING_UNITS: Readonly<Record<string, string>> = { max_wal_size: 'MB', work_mem: 'kB', shared_buffers: '8kB', checkpoint_timeout: 's' };

function pgTables(c: LabCase): PgTable[] {
  const s = c.statements;
  const tables: PgTable[] = [];
  const statements = rowsOf(s, 'pg_stat_statements');
  if (statements) tables.push(pgPlain('pg_stat_statements', statements, ['queryid', 'query'], ['calls', 'rows', 'shared_blks_hit', 'shared_blks_read', 'shared_blks_written', 'temp_blks_read', 'temp_blks_written', 'wal_bytes'], ['total_exec_time', 'mean_exec_time']));
  const activity = rowsOf(s, 'pg_stat_activity');
  if (activity) tables.push(pgActivity(activity));
  const replication = rowsOf(s, 'pg_stat_replication');
  if (replication) tables.push(pgReplication(replication, c.recorded.timeScale));
  const bgwriter = rowsOf(s, 'pg_stat_bgwriter');
  if (bgwriter) tables.push(pgPlain('pg_stat_bgwriter', bgwriter, [], ['checkpoints_timed', 'checkpoints_req', 'buffers_checkpoint', 'buffers_clean', 'maxwritten_clean', 'buffers_backend', 'buffers_alloc'], ['checkpoint_write_time', 'checkpoint_sync_time']));
  const database = rowsOf(s, 'pg_stat_database');
  if (database) tables.push(pgPlain('pg_stat_database', database, ['datname'], ['numbackends', 'xact_commit', 'xact_rollback', 'blks_read', 'blks_hit', 'tup_fetched', 'tup_inserted', 'tup_updated', 'deadlocks', 'temp_files', 'temp_bytes', 'conflicts']));
  const settings = rowsOf(s, 'settings');
  if (settings) {
    tables.push({
      view: 'pg_settings',
      columns: [
        ['name', 'text'],
        ['setting', 'text'],
        ['unit', 'text'],
      ],
      rows: settings.map((r) => [text(r['name']), text(r['setting']), PG_SETTING_UNITS[String(r['name'])] ?? null]),
    });
  }
  return tables;
}

/** Views of pg_catalog the replay defines, in the order pgReplayScript writes them. */
const PG_VIEW_SELECT: Readonly<Record<string, string>> = {
  pg_stat_activity: 'SELECT pid, datname, state, wait_event_type, NULL::text AS wait_event, backend_type, NULL::timestamptz AS backend_start, NULL::timestamptz AS xact_start, NULL::timestamptz AS query_start, NULL::timestamptz AS state_change, NULL::text AS query, NULL::name AS usename, NULL::text AS application_name FROM lab_snapshot.pg_stat_activity',
  pg_stat_replication:
    // Positions relative to the replayed standby's: the sent position is ahead of it by the recorded replay lag less the send lag.
    "SELECT application_name, state, sync_state, write_lag, flush_lag, replay_lag, s.sent AS sent_lsn, s.sent AS write_lsn, s.sent AS flush_lsn, '0/0'::pg_lsn AS replay_lsn FROM lab_snapshot.pg_stat_replication r CROSS JOIN LATERAL (SELECT '0/0'::pg_lsn + greatest(0, r.replay_lag_bytes - coalesce(r.sent_lag_bytes, 0)) AS sent) s",
  pg_stat_bgwriter: 'SELECT *, NULL::timestamptz AS stats_reset FROM lab_snapshot.pg_stat_bgwriter',
  pg_stat_database: 'SELECT *, NULL::timestamptz AS stats_reset FROM lab_snapshot.pg_stat_database',
  pg_settings: 'SELECT * FROM lab_snapshot.pg_settings',
};

/**
 * Statements (run as a superuser, in the case's own database) that put the snapshot behind the
 * catalog names the platform's templates read. Catalog objects are per database, so nothing
 * outside that database changes.
 */
export function pgReplayScript(c: LabCase): ReplayStatement[] {
  if (c.engine !== 'postgres') throw new Error(`${c.id}: not a Postgres case`);
  const out: ReplayStatement[] = [{ sql: 'SET allow_system_table_mods = on' }, { sql: 'CREATE SCHEMA lab_snapshot' }];
  const tables = pgTables(c);
  const recorded = new Set(tables.map((t) => t.view));
  for (const t of tables) {
    const at = t.view === 'pg_stat_statements' ? 'public.pg_stat_statements' : `lab_snapshot.${t.view}`;
    out.push({ sql: `CREATE TABLE ${at} (${t.columns.map(([n, ty]) => `${n} ${ty}`).join(', ')})` });
    for (const r of t.rows) out.push({ sql: `INSERT INTO ${at} VALUES (${r.map((_, i) => `$${i + 1}`).join(', ')})`, params: r });
  }
  for (const view of Object.keys(PG_VIEW_SELECT)) {
    out.push({ sql: `DROP VIEW pg_catalog.${view} CASCADE` });
    if (recorded.has(view)) out.push({ sql: `CREATE VIEW pg_catalog.${view} AS ${PG_VIEW_SELECT[view]}` }, { sql: `GRANT SELECT ON pg_catalog.${view} TO PUBLIC` });
  }
  for (const view of PG_UNRECORDED_VIEWS) out.push({ sql: `DROP VIEW IF EXISTS pg_catalog.${view} CASCADE` });
  if (recorded.has('pg_stat_statements')) out.push({ sql: 'GRANT SELECT ON public.pg_stat_statements TO PUBLIC' });
  out.push({ sql: 'GRANT USAGE ON SCHEMA lab_snapshot TO PUBLIC' }, { sql: 'GRANT SELECT ON ALL TABLES IN SCHEMA lab_snapshot TO PUBLIC' });
  return out;
}

// ---------------------------------------------------------------------------------------------
// MariaDB

/** performance_schema / information_schema tables the lab records, by their replay table. */
export const MY_REPLAY_TABLES = ['ps_events_statements_summary_by_digest', 'is_processlist', 'ps_global_status', 'is_global_status', 'ps_global_variables', 'is_global_variables'] as const;

const PICOSECONDS = 1e12;

export function myReplayScript(c: LabCase): ReplayStatement[] {
  if (c.engine !== 'mariadb') throw new Error(`${c.id}: not a MariaDB case`);
  const s = c.statements;
  const out: ReplayStatement[] = [];
  const digests = rowsOf(s, 'events_statements_summary_by_digest');
  if (digests) {
    out.push({
      sql: 'CREATE TABLE ps_events_statements_summary_by_digest (SCHEMA_NAME VARCHAR(64), DIGEST VARCHAR(64), DIGEST_TEXT LONGTEXT, COUNT_STAR BIGINT, SUM_TIMER_WAIT BIGINT, AVG_TIMER_WAIT BIGINT, SUM_LOCK_TIME BIGINT, SUM_ROWS_EXAMINED BIGINT, SUM_ROWS_SENT BIGINT, SUM_NO_INDEX_USED BIGINT, SUM_CREATED_TMP_DISK_TABLES BIGINT, SUM_SORT_MERGE_PASSES BIGINT, SUM_ERRORS BIGINT, FIRST_SEEN TIMESTAMP NULL, LAST_SEEN TIMESTAMP NULL)',
    });
    for (const r of digests) {
      const calls = num(r['count_star']) ?? 0;
      const wait = Math.round((num(r['sum_timer_wait_s']) ?? 0) * PICOSECONDS);
      out.push({
        sql: 'INSERT INTO ps_events_statements_summary_by_digest VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)',
        params: ['shop', text(r['digest']), text(r['digest_text']), calls, wait, calls > 0 ? Math.round(wait / calls) : 0, Math.round((num(r['sum_lock_time_s']) ?? 0) * PICOSECONDS), num(r['sum_rows_examined']), num(r['sum_rows_sent']), num(r['sum_no_index_used']), num(r['sum_created_tmp_disk_tables']), num(r['sum_sort_merge_passes']), num(r['sum_errors'])],
      });
    }
  }
  const processlist = rowsOf(s, 'processlist');
  if (processlist) {
    out.push({ sql: 'CREATE TABLE is_processlist (ID BIGINT, USER VARCHAR(128), HOST VARCHAR(64), DB VARCHAR(64), COMMAND VARCHAR(16), TIME INT NULL, STATE VARCHAR(64), INFO LONGTEXT NULL)' });
    let id = FIRST_PID;
    for (const r of processlist) {
      const n = Math.min(10_000, Math.max(0, Math.floor(num(r['count']) ?? 0)));
      for (let i = 0; i < n; i++) out.push({ sql: 'INSERT INTO is_processlist VALUES (?, NULL, NULL, ?, ?, NULL, ?, NULL)', params: [id++, 'shop', text(r['command']), text(r['state']) ?? ''] });
    }
  }
  for (const [key, tables] of [
    ['global_status', ['ps_global_status', 'is_global_status']],
    ['variables', ['ps_global_variables', 'is_global_variables']],
  ] as const) {
    const flat = flatOf(s, key);
    if (!flat) continue;
    for (const t of tables) {
      out.push({ sql: `CREATE TABLE ${t} (VARIABLE_NAME VARCHAR(64), VARIABLE_VALUE VARCHAR(2048))` });
      // information_schema spells names in upper case, performance_schema as the server does.
      for (const [name, value] of Object.entries(flat)) out.push({ sql: `INSERT INTO ${t} VALUES (?, ?)`, params: [t.startsWith('is_') ? name.toUpperCase() : name, value === null ? null : String(value)] });
    }
  }
  return out;
}

/**
 * The statement the MySQL-protocol front runs on the case's database: schema-qualified
 * statistics tables become its replay tables and `@@GLOBAL.<name>` its recorded value (NULL
 * when not recorded). Session statements (`SET SESSION ...`, `@@session.*`) pass unchanged, so
 * the connector's read-only session is the real server's.
 */
export function rewriteMySqlForReplay(sql: string, database: string): string {
  if (!/^aoc_lab_my_\d{2,3}$/.test(database)) throw new Error(`not a replay database: ${database}`);
  return sql
    .replace(/`?\b(performance_schema|information_schema)\b`?\s*\.\s*`?([A-Za-z_][A-Za-z0-9_]*)`?/gi, (_m, schema: string, table: string) => `\`${database}\`.\`${schema.toLowerCase() === 'performance_schema' ? 'ps' : 'is'}_${table.toLowerCase()}\``)
    .replace(/@@GLOBAL\.`?([A-Za-z_][A-Za-z0-9_]*)`?/gi, (_m, name: string) => `(SELECT VARIABLE_VALUE FROM \`${database}\`.\`is_global_variables\` WHERE VARIABLE_NAME = '${name.toUpperCase()}')`);
}
