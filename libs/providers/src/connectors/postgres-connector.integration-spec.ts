import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { opaqueRef } from '../core/sanitize';
import { rejectionOf as caught, startPgAuthFixture, startTrapServer } from '../../test/pg-fixture';
import { queryPostgresStats, type PostgresStatsEndpoint, type PostgresStatsResult } from './postgres-connector';

const column = (result: PostgresStatsResult, name: string) => {
  const index = result.columns.indexOf(name);
  if (index < 0) throw new Error(`no column ${name} in ${result.columns.join(', ')}`);
  return result.rows.map((r) => r[index]);
};
const rowOf = (result: PostgresStatsResult, key: string, value: unknown) => {
  const row = result.rows.find((r) => r[result.columns.indexOf(key)] === value);
  return row ? Object.fromEntries(result.columns.map((c, i) => [c, row[i]])) : undefined;
};

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Postgres statistics connector against the real local PostgreSQL', () => {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const schema = `aoc_pgstats_${randomBytes(4).toString('hex')}`;
  let endpoint: PostgresStatsEndpoint;
  let admin: Pool;
  const seen: string[] = [];
  const stats = async (sql: string, options?: Parameters<typeof queryPostgresStats>[2]) => {
    const result = await queryPostgresStats(endpoint, sql, options);
    seen.push(JSON.stringify(result));
    return result;
  };
  const connectClient = async () => {
    const client = new Client({ connectionString: process.env.DATABASE_URL, application_name: 'aoc-pgstats-test' });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: run bash deploy/local/postgres-ensure.sh');
    const parsed = new URL(url);
    endpoint = { host: parsed.hostname, port: Number(parsed.port || 5432), user: decodeURIComponent(parsed.username), database: parsed.pathname.slice(1), password };
    admin = new Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.accounts (id int PRIMARY KEY, note text)`);
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
    // Neither the host nor the password ever appeared in a result.
    for (const text of seen) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(endpoint.host);
    }
  });

  it('top statements from pg_stat_activity: a running statement comes back as a digest reference', async () => {
    const sleeper = await connectClient();
    try {
      const { rows } = await sleeper.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const pid = rows[0].pid;
      const sleeping = sleeper.query('SELECT pg_sleep(2)');
      const sql = `SELECT pid, usename, client_addr, state, wait_event_type, wait_event, now() - query_start AS running_for, query_start, query FROM pg_stat_activity WHERE state = 'active' AND pid = ${pid}`;
      const result = await until(async () => {
        const r = await stats(sql);
        return r.rowCount === 1 && rowOf(r, 'pid', pid)?.['wait_event'] === 'PgSleep' ? r : undefined;
      }, 'the pg_sleep session');
      expect(result.columns).toEqual(['pid', 'usename', 'client_addr', 'state', 'wait_event_type', 'wait_event', 'running_for', 'query_start', 'query_digest', 'query_kind']);
      const row = rowOf(result, 'pid', pid)!;
      expect(row).toMatchObject({ state: 'active', wait_event_type: 'Timeout', query_digest: opaqueRef('digest', 'SELECT pg_sleep(2)'), query_kind: 'SELECT', client_addr: '[redacted]' });
      expect(row['query_digest']).toMatch(/^digest:[0-9a-f]{16}$/);
      expect(row['usename']).toMatch(/^user:[0-9a-f]{16}$/);
      expect(typeof row['running_for']).toBe('number');
      expect(row['query_start']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(JSON.stringify(result)).not.toMatch(/pg_sleep|postgres"/);
      // Ranked by run time across the whole view, the statement text never leaves either.
      const top = await stats("SELECT pid, query, extract(epoch FROM now() - query_start) AS seconds FROM pg_stat_activity WHERE state = 'active' ORDER BY query_start LIMIT 5");
      expect(column(top, 'query_digest')).toContain(opaqueRef('digest', 'SELECT pg_sleep(2)'));
      expect(JSON.stringify(top)).not.toContain('pg_sleep');
      await sleeping;
    } finally {
      await sleeper.end();
    }
  });

  it('waits and locks: pg_locks shows the held and the waiting lock, pg_blocking_pids the blocker', async () => {
    const holder = await connectClient();
    const waiter = await connectClient();
    try {
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const waiterPid = (await waiter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${schema}.accounts IN ACCESS EXCLUSIVE MODE`);
      const waiting = waiter.query(`SELECT count(*) FROM ${schema}.accounts`);
      const locks = await until(async () => {
        const r = await stats(`SELECT pid, locktype, mode, granted, relation::regclass AS rel FROM pg_locks WHERE relation = '${schema}.accounts'::regclass ORDER BY granted DESC`);
        return r.rowCount === 2 ? r : undefined;
      }, 'the waiting lock');
      expect(rowOf(locks, 'pid', holderPid)).toMatchObject({ locktype: 'relation', mode: 'AccessExclusiveLock', granted: true, rel: `${schema}.accounts` });
      expect(rowOf(locks, 'pid', waiterPid)).toMatchObject({ mode: 'AccessShareLock', granted: false });
      const blocked = await stats(`SELECT pid, wait_event_type, pg_blocking_pids(pid) AS blocked_by, cardinality(pg_blocking_pids(pid)) AS blockers FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0`);
      expect(rowOf(blocked, 'pid', waiterPid)).toEqual({ pid: waiterPid, wait_event_type: 'Lock', blocked_by: `{${holderPid}}`, blockers: 1 });
      await holder.query('ROLLBACK');
      await waiting;
    } finally {
      await holder.end();
      await waiter.end();
    }
  });

  it('pg_settings: max_connections, typed', async () => {
    const expected = Number((await admin.query<{ max_connections: string }>('SHOW max_connections')).rows[0].max_connections);
    const result = await stats("SELECT name, setting::int AS value, setting, unit, context FROM pg_settings WHERE name = 'max_connections'");
    expect(result).toEqual({ columns: ['name', 'value', 'setting', 'unit', 'context'], rows: [['max_connections', expected, String(expected), null, 'postmaster']], rowCount: 1, truncated: false });
  });

  it('pg_stat_database: counters and sizes come back as numbers', async () => {
    const result = await stats(`SELECT datname, numbackends, xact_commit, blks_hit, tup_returned, deadlocks, pg_database_size(datname) AS size_bytes, round(blks_hit * 100.0 / greatest(blks_hit + blks_read, 1), 2) AS hit_pct FROM pg_stat_database WHERE datname = '${endpoint.database}'`);
    const row = rowOf(result, 'datname', endpoint.database)!;
    for (const key of ['numbackends', 'xact_commit', 'blks_hit', 'tup_returned', 'deadlocks', 'size_bytes', 'hit_pct']) expect(typeof row[key]).toBe('number');
    expect(row['size_bytes'] as number).toBeGreaterThan(1_000_000);
    expect(row['numbackends'] as number).toBeGreaterThanOrEqual(1);
  });

  it('replication state on a primary without replicas: empty results, not errors', async () => {
    const replication = await stats('SELECT pid, state, client_addr, sent_lsn, replay_lsn, pg_wal_lsn_diff(sent_lsn, replay_lsn) AS lag_bytes, replay_lag FROM pg_stat_replication');
    expect(replication).toEqual({ columns: ['pid', 'state', 'client_addr', 'sent_lsn', 'replay_lsn', 'lag_bytes', 'replay_lag'], rows: [], rowCount: 0, truncated: false });
    expect((await stats('SELECT slot_name, active, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn) AS retained FROM pg_replication_slots')).rowCount).toBe(0);
    expect((await stats('SELECT status, written_lsn FROM pg_stat_wal_receiver')).rowCount).toBe(0);
    const standby = await stats('SELECT pg_last_wal_receive_lsn() AS received, now() - pg_last_xact_replay_timestamp() AS replay_delay');
    expect(standby.rows).toEqual([[null, null]]);
  });

  it('writes are refused before they reach any server', async () => {
    const trap = await startTrapServer();
    try {
      const trapEndpoint = { ...endpoint, host: '127.0.0.1', port: trap.port };
      for (const [sql, why] of [
        [`INSERT INTO ${schema}.accounts VALUES (1, 'x')`, /found INSERT/],
        [`WITH changed AS (UPDATE ${schema}.accounts SET note = 'x' RETURNING id) SELECT count(*) FROM changed`, /UPDATE is not allowed/],
        ["SELECT set_config('default_transaction_read_only', 'off', false)", /function set_config\(\)/],
        ['SELECT pg_terminate_backend(pid) FROM pg_stat_activity', /function pg_terminate_backend\(\)/],
        ['SELECT 1; SELECT 2', /exactly one statement/],
      ] as const) {
        const error = await caught(queryPostgresStats(trapEndpoint, sql, { field: 'queries.0.sql' }));
        expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
        expect(error.detail).toMatch(why);
      }
      expect(trap.connections()).toBe(0);
    } finally {
      await trap.close();
    }
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.accounts`)).rows[0].n).toBe(0);
  });

  it('a statement timeout on the server maps to PROVIDER.TIMEOUT', async () => {
    const started = Date.now();
    const error = await caught(stats('SELECT count(*) FROM pg_settings a, pg_settings b, pg_settings c, pg_settings d', { timeoutMs: 300 }));
    expect(error.code).toBe('PROVIDER.TIMEOUT');
    expect(error.detail).toMatch(/statement timeout/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('the abort signal cancels at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await caught(stats('SELECT count(*) FROM pg_settings a, pg_settings b, pg_settings c, pg_settings d', { timeoutMs: 1500, signal: controller.signal }));
    expect(error.code).toBe('PROVIDER.TIMEOUT');
    expect(error.detail).toMatch(/cancelled/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('rows and bytes are bounded', async () => {
    const few = await stats('SELECT name, setting FROM pg_settings ORDER BY name', { maxRows: 5 });
    expect(few).toMatchObject({ rowCount: 5, truncated: true });
    expect(few.rows).toHaveLength(5);
    const all = await stats('SELECT name FROM pg_settings', { maxRows: 100_000 });
    expect(all.rowCount).toBeLessThanOrEqual(500);
    const wide = await stats('SELECT * FROM pg_settings', { maxRows: 500, maxBytes: 4096 });
    expect(wide.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(wide))).toBeLessThanOrEqual(4096);
  });

  it('pg_stat_statements missing or unloaded maps to a clear code', async () => {
    const installed = (await admin.query("SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_stat_statements'")).rows[0].n === 1;
    const loaded = /pg_stat_statements/.test((await admin.query('SHOW shared_preload_libraries')).rows[0].shared_preload_libraries);
    const sql = 'SELECT queryid, calls, total_exec_time, query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 5';
    if (installed && loaded) {
      const result = await stats(sql);
      for (const digest of column(result, 'query_digest')) expect(digest).toMatch(/^digest:[0-9a-f]{16}$/);
    } else {
      const error = await caught(stats(sql));
      expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
      expect(error.detail).toMatch(/^pg_stat_statements is not available: /);
    }
  });

  it('credentials and connection failures map to their codes with no host or password in the detail', async () => {
    const noRole = await caught(queryPostgresStats({ ...endpoint, user: `aoc_no_such_role_${randomBytes(3).toString('hex')}` }, 'SELECT 1'));
    expect(noRole.code).toBe('PROVIDER.AUTH_FAILED');
    const noDatabase = await caught(queryPostgresStats({ ...endpoint, database: 'aoc_no_such_database' }, 'SELECT 1'));
    expect(noDatabase.code).toBe('PROVIDER.UNREACHABLE');
    expect(noDatabase.detail).toMatch(/database does not exist/);

    // The local cluster trusts 127.0.0.1; a protocol-level stand-in asks for the password.
    const fixture = await startPgAuthFixture({ sqlstate: '28P01', message: `password authentication failed for user "${endpoint.user}" (got ${password} from 127.0.0.1)` });
    try {
      const denied = await caught(queryPostgresStats({ ...endpoint, host: '127.0.0.1', port: fixture.port }, 'SELECT 1'));
      expect(fixture.passwords).toEqual([password]);
      expect(denied.code).toBe('PROVIDER.AUTH_FAILED');
      expect(denied.detail).not.toContain(password);
      expect(denied.detail).not.toContain('127.0.0.1');
    } finally {
      await fixture.close();
    }
    const hostile = await startPgAuthFixture({ sqlstate: 'XX000', message: `internal error talking to 127.0.0.1:${endpoint.port} with ${password}` });
    try {
      const error = await caught(queryPostgresStats({ ...endpoint, host: '127.0.0.1', port: hostile.port }, 'SELECT 1'));
      expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
      expect(error.detail).toMatch(/internal error/);
      expect(error.detail).not.toContain(password);
      expect(error.detail).not.toContain('127.0.0.1');
    } finally {
      await hostile.close();
    }

    const closed = await startTrapServer();
    await closed.close();
    const refused = await caught(queryPostgresStats({ ...endpoint, host: '127.0.0.1', port: closed.port }, 'SELECT 1'));
    expect(refused.code).toBe('PROVIDER.UNREACHABLE');
    expect(refused.retryable).toBe(true);
    expect(refused.detail).toMatch(/connection refused/);
    expect(refused.detail).not.toContain('127.0.0.1');
  });

  it('leaves no session behind', async () => {
    await stats('SELECT 1 AS one');
    await until(async () => {
      const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'aoc-pg-stats'");
      return rows[0].n === 0 ? true : undefined;
    }, 'the connector sessions to close');
  });
});
