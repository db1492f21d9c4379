// Incident lab recorder: the Postgres lane. Schema, the application's workload, clean state
// between cases and the end-of-case statistics snapshots.
import type { Client } from 'pg';
import { PORTS } from './config';
import { all, lab, loop, pgClient, pgQuery, rand, run, sleep, type Handle } from './db';
import { normaliseSql } from './sanitize';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Which member is the primary now (a failover case moves it to b until the lab is rebuilt). */
export const pgState = { primary: PORTS.pgA as number, replica: PORTS.pgB as number | null };

export async function setupPostgres(): Promise<void> {
  const have = await pgQuery<{ n: string }>(PORTS.pgA, `SELECT count(*) AS n FROM pg_class WHERE relname IN ('pgbench_accounts', 'lab_orders', 'lab_inventory', 'lab_counters', 'lab_bulk', 'lab_report', 'lab_uploads_seed')`);
  await pgQuery(PORTS.pgA, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await pgQuery(PORTS.pgA, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements', 'postgres');
  await pgQuery(PORTS.pgA, `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app') THEN CREATE ROLE app LOGIN; END IF; END $$`);
  for (const sql of [
    'GRANT ALL ON ALL TABLES IN SCHEMA public TO app',
    'GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO app',
    'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO app',
    'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO app',
    'GRANT CREATE ON TABLESPACE lab_ts, lab_temp TO app',
  ])
    await pgQuery(PORTS.pgA, sql);
  if (Number(have[0].n) === 7) return;
  await run(`${PG_BIN}/pgbench`, ['-i', '-q', '-s', '5', '-h', '127.0.0.1', '-p', String(PORTS.pgA), '-U', 'aoclab', 'lab'], 300_000);
  for (const sql of [
    'DROP TABLE IF EXISTS lab_orders, lab_inventory, lab_counters, lab_bulk, lab_report, lab_uploads_seed',
    `CREATE TABLE lab_orders (id serial PRIMARY KEY, customer_id int NOT NULL, amount numeric(10,2) NOT NULL, created timestamptz NOT NULL DEFAULT now(), note text)`,
    `INSERT INTO lab_orders (customer_id, amount, note) SELECT 1 + (g::bigint * 7919) % 20000, (g % 997) / 10.0, md5(g::text) FROM generate_series(1, 400000) g`,
    'CREATE INDEX lab_orders_customer_idx ON lab_orders (customer_id)',
    'CREATE TABLE lab_inventory (id int PRIMARY KEY, qty int NOT NULL)',
    'INSERT INTO lab_inventory SELECT g, 1000000 FROM generate_series(1, 100) g',
    'CREATE TABLE lab_counters (id int PRIMARY KEY, n bigint NOT NULL)',
    'INSERT INTO lab_counters SELECT g, 0 FROM generate_series(1, 10) g',
    'CREATE TABLE lab_bulk (id bigint, payload text)',
    'CREATE TABLE lab_report (id serial, day date, total numeric)',
    'CREATE TABLE lab_uploads_seed (id int)',
    'VACUUM ANALYZE',
    'GRANT ALL ON ALL TABLES IN SCHEMA public TO app',
    'GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO app',
  ])
    await pgQuery(PORTS.pgA, sql);
}

/** The application: four workers at ~10 transactions/s each, plus a connect-per-request health check. */
export function pgApp(): Handle {
  const workers = Array.from({ length: 4 }, () => {
    let client: Client | null = null;
    return loop(async () => {
      const started = Date.now();
      try {
        client ??= await pgClient(pgState.primary, 'lab', 'checkout');
        const aid = rand(1, 500000);
        const delta = rand(-5000, 5000);
        await client.query('BEGIN');
        await client.query('UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2', [delta, aid]);
        await client.query('SELECT abalance FROM pgbench_accounts WHERE aid = $1', [aid]);
        await client.query('INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, now())', [rand(1, 50), rand(1, 5), aid, delta]);
        await client.query('COMMIT');
        await client.query('SELECT count(*), coalesce(sum(amount), 0) FROM lab_orders WHERE customer_id = $1', [rand(1, 20000)]);
      } catch (error) {
        const c = client;
        client = null;
        await c?.end().catch(() => undefined);
        throw error;
      }
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }, 500);
  });
  const health = loop(async () => {
    const c = await pgClient(pgState.primary, 'lab', 'healthcheck');
    try {
      await c.query('SELECT count(*) FROM pgbench_branches');
    } finally {
      await c.end().catch(() => undefined);
    }
    await sleep(300);
  }, 300);
  return all([...workers, health]);
}

async function terminateClients(port: number): Promise<void> {
  await pgQuery(port, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND usename IS NOT NULL`, 'postgres').catch(() => undefined);
}

/** Ends every session but the exporters' (the loops reconnect), then waits for them to go. */
export async function dropSessions(): Promise<void> {
  await terminateClients(pgState.primary);
  if (pgState.replica !== null) await terminateClients(pgState.replica);
}

/** Back to the clean lab: a primary on a, a streaming replica on b, no fault left over, statement statistics reset. */
export async function resetPostgres(): Promise<void> {
  if (pgState.primary !== PORTS.pgA) {
    // After a failover: b was promoted; a is the primary again and b is re-cloned from it.
    await lab('pg-stop', 'b', 'immediate');
    await lab('pg-start', 'a');
    await lab('pg-rebuild-replica');
    pgState.primary = PORTS.pgA;
    pgState.replica = PORTS.pgB;
  }
  await lab('pg-start', 'a');
  await lab('pg-start', 'b');
  await dropSessions();
  const b = PORTS.pgB;
  await pgQuery(b, 'SELECT pg_wal_replay_resume()', 'postgres').catch(() => undefined);
  // Only the settings the faults change: primary_conninfo lives in the same file (pg_basebackup -R).
  for (const name of ['recovery_min_apply_delay', 'max_standby_streaming_delay']) await pgQuery(b, `ALTER SYSTEM RESET ${name}`, 'postgres');
  await pgQuery(b, `ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=${PORTS.pgA} user=aoclab application_name=walreceiver'`, 'postgres');
  await pgQuery(b, 'SELECT pg_reload_conf()', 'postgres');
  for (const sql of [
    'DROP TABLE IF EXISTS lab_uploads',
    'TRUNCATE lab_bulk, lab_report',
    'CREATE INDEX IF NOT EXISTS lab_orders_customer_idx ON lab_orders (customer_id)',
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'pgbench_accounts_pkey') THEN ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid); END IF; END $$`,
    `DELETE FROM pgbench_history WHERE mtime < now() - interval '10 minutes'`,
    'UPDATE lab_inventory SET qty = 1000000',
    'VACUUM ANALYZE pgbench_accounts, pgbench_history, lab_orders, lab_bulk',
    'CHECKPOINT',
    'SELECT pg_stat_statements_reset()',
  ])
    await pgQuery(PORTS.pgA, sql);
  // Let the replica catch up on the cleanup before the next case starts.
  for (let i = 0; i < 30; i++) {
    const lag = await pgQuery<{ lag: string | null }>(PORTS.pgA, `SELECT max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn))::text AS lag FROM pg_stat_replication`, 'postgres');
    if (lag[0] && lag[0].lag !== null && Number(lag[0].lag) < 1_000_000) break;
    await sleep(1000);
  }
}

/** End-of-case statistics: normalised statement text only (pg_stat_statements keeps literals as $n). */
export async function snapshotPostgres(): Promise<Record<string, unknown>> {
  const p = pgState.primary;
  const safe = async <T>(f: () => Promise<T>): Promise<T | { error: string }> => {
    try {
      return await f();
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const statements = await safe(async () =>
    (
      await pgQuery<Record<string, unknown>>(
        p,
        `SELECT queryid::text AS queryid, query, calls, total_exec_time, mean_exec_time, rows, shared_blks_hit, shared_blks_read, shared_blks_written, temp_blks_read, temp_blks_written, wal_bytes::float8 AS wal_bytes
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'lab') ORDER BY total_exec_time DESC LIMIT 20`,
      )
    ).map((r) => ({ ...r, query: normaliseSql(String(r['query'])) })),
  );
  return {
    pg_stat_statements: statements,
    pg_stat_activity: await safe(() =>
      pgQuery(p, `SELECT coalesce(state, 'none') AS state, coalesce(wait_event_type, 'none') AS wait_event_type, backend_type, count(*)::int AS count FROM pg_stat_activity GROUP BY 1, 2, 3 ORDER BY 4 DESC`, 'postgres'),
    ),
    pg_stat_replication: await safe(() =>
      pgQuery(
        p,
        `SELECT application_name, state, sync_state, pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn)::float8 AS sent_lag_bytes, pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 AS replay_lag_bytes,
                extract(epoch FROM write_lag)::float8 AS write_lag_s, extract(epoch FROM flush_lag)::float8 AS flush_lag_s, extract(epoch FROM replay_lag)::float8 AS replay_lag_s FROM pg_stat_replication`,
        'postgres',
      ),
    ),
    pg_stat_bgwriter: await safe(() => pgQuery(p, 'SELECT checkpoints_timed, checkpoints_req, checkpoint_write_time, checkpoint_sync_time, buffers_checkpoint, buffers_clean, maxwritten_clean, buffers_backend, buffers_alloc FROM pg_stat_bgwriter', 'postgres')),
    pg_stat_database: await safe(() =>
      pgQuery(p, `SELECT datname, numbackends, xact_commit, xact_rollback, blks_read, blks_hit, tup_fetched, tup_inserted, tup_updated, deadlocks, temp_files, temp_bytes, conflicts FROM pg_stat_database WHERE datname = 'lab'`, 'postgres'),
    ),
    pg_stat_database_conflicts_replica:
      pgState.replica === null ? [] : await safe(() => pgQuery(pgState.replica as number, `SELECT datname, confl_snapshot, confl_lock, confl_bufferpin FROM pg_stat_database_conflicts WHERE datname = 'lab'`, 'postgres')),
    settings: await safe(() => pgQuery(p, `SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'max_wal_size', 'work_mem', 'shared_buffers', 'checkpoint_timeout', 'temp_tablespaces')`, 'postgres')),
  };
}
