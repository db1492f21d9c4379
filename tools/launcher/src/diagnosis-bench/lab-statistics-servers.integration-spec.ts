// The lab cases' statement snapshots served by real Postgres (DATABASE_URL) and real MariaDB
// (127.0.0.1:3306, or BENCH_LAB_MYSQL), read through the platform's own read-only connectors.
import { queryPostgresStats, runReadOnlySql } from '@aoc/providers';
import { sampleCase, sampleMariadbCase } from './lab-fixture';
import { startLabStatistics, type LabStatistics, type SqlEndpoints } from './lab-statistics-servers';

const pgCase = sampleCase({
  id: 'pg-lock-contention-91',
  cluster: 'lab-pg-91',
  statements: {
    pg_stat_statements: [
      { queryid: '1', query: 'UPDATE accounts SET balance = balance + $1 WHERE id = $2', calls: '400', total_exec_time: 9000.5, mean_exec_time: 22.5, rows: '400' },
      { queryid: '2', query: 'SELECT * FROM orders WHERE customer = $1', calls: '90', total_exec_time: 1000, mean_exec_time: 11.1, rows: '900' },
    ],
    pg_stat_activity: [
      { state: 'active', wait_event_type: 'Lock', backend_type: 'client backend', count: 4 },
      { state: 'idle in transaction', wait_event_type: 'Client', backend_type: 'client backend', count: 1 },
      { state: 'none', wait_event_type: 'Activity', backend_type: 'walwriter', count: 1 },
    ],
    pg_stat_replication: [{ application_name: 'walreceiver', state: 'streaming', sync_state: 'async', sent_lag_bytes: 0, replay_lag_bytes: 8192, write_lag_s: 0.1, flush_lag_s: 0.1, replay_lag_s: 0.5 }],
    settings: [{ name: 'max_connections', setting: '60' }],
  },
});

const myCase = sampleMariadbCase('my-cpu-statement-92');

let stats: LabStatistics;
beforeAll(async () => {
  stats = await startLabStatistics([{ case: pgCase }, { case: myCase }], () => undefined);
  expect(stats.notes).toEqual([]);
});
afterAll(async () => {
  await stats?.stop();
});

function sqlEndpoint<K extends keyof SqlEndpoints>(cluster: string, kind: K): NonNullable<SqlEndpoints[K]> {
  const e = stats.endpoints.get(cluster)?.[kind];
  if (!e) throw new Error(`no ${kind} endpoint for ${cluster}`);
  return e;
}

describe('Postgres replay of a snapshot', () => {
  const endpoint = () => sqlEndpoint('lab-pg-91', 'postgres');

  it('answers the session templates from the snapshot; the lock waiters show by wait class (their blockers were not recorded)', async () => {
    const sessions = await queryPostgresStats(endpoint(), "SELECT coalesce(state, 'unknown') AS state, count(*) AS sessions FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state ORDER BY sessions DESC");
    expect(sessions.rows).toEqual([
      ['active', 4],
      ['idle in transaction', 1],
    ]);
    const waits = await queryPostgresStats(endpoint(), "SELECT coalesce(wait_event_type, 'none') AS wait_event_type, count(*) AS sessions FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1 ORDER BY 2 DESC");
    expect(waits.rows).toEqual([
      ['Lock', 4],
      ['Client', 1],
    ]);
    const blocked = await queryPostgresStats(endpoint(), 'SELECT pid FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0');
    expect(blocked.rowCount).toBe(0);
  });

  it('answers pg_stat_statements, replication lag and settings as recorded', async () => {
    const top = await queryPostgresStats(endpoint(), 'SELECT query, calls, total_exec_time, (SELECT sum(total_exec_time) FROM pg_stat_statements) AS all_exec_time FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10');
    // Statement text leaves the connector as a digest and its first keyword only.
    expect(top.rows.map((r) => r.slice(1))).toEqual([
      ['UPDATE', 400, 9000.5, 10000.5],
      ['SELECT', 90, 1000, 10000.5],
    ]);
    const repl = await queryPostgresStats(endpoint(), 'SELECT application_name, replay_lag, pg_wal_lsn_diff(sent_lsn, replay_lsn) AS replay_lag_bytes FROM pg_stat_replication');
    expect(repl.rows[0][0]).toBe('walreceiver');
    expect(repl.rows[0][2]).toBe(8192);
    const settings = await queryPostgresStats(endpoint(), "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections', 'work_mem') ORDER BY name");
    expect(settings.rows).toEqual([['max_connections', '60', null]]);
  });

  it('has no view the case did not record: reading one fails instead of showing the replay server', async () => {
    await expect(queryPostgresStats(endpoint(), 'SELECT count(*) FROM pg_locks')).rejects.toThrow(/pg_locks|does not exist|relation/i);
    await expect(queryPostgresStats(endpoint(), 'SELECT checkpoints_req FROM pg_stat_bgwriter')).rejects.toThrow();
  });
});

describe('MariaDB replay of a snapshot behind the MySQL-protocol front', () => {
  const endpoint = () => sqlEndpoint('lab-my-92', 'mysql');

  it('answers performance_schema digests and the process list in a real read-only session', async () => {
    const top = await runReadOnlySql(endpoint(), 'SELECT DIGEST AS digest, COUNT_STAR AS calls, SUM_TIMER_WAIT / 1000000000 AS total_ms, SUM_NO_INDEX_USED AS no_index_used FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST IS NOT NULL ORDER BY SUM_TIMER_WAIT DESC LIMIT 10');
    expect(top.columns).toEqual(['digest', 'calls', 'total_ms', 'no_index_used']);
    expect(top.rows.map((r) => [r[0], Number(r[1]), Number(r[2]), Number(r[3])])).toEqual([['ab12', 84, 150500, 84]]);
    const sessions = await runReadOnlySql(endpoint(), 'SELECT COMMAND AS command, COUNT(*) AS sessions FROM information_schema.PROCESSLIST GROUP BY COMMAND ORDER BY sessions DESC');
    expect(sessions.rows.map((r) => [r[0], Number(r[1])])).toEqual([
      ['Sleep', 5],
      ['Query', 2],
    ]);
  });

  it('reads @@GLOBAL settings from the recorded variables (NULL when not recorded)', async () => {
    const r = await runReadOnlySql(endpoint(), 'SELECT @@GLOBAL.max_connections AS max_connections, @@GLOBAL.wait_timeout AS wait_timeout');
    expect(r.rows).toEqual([['60', null]]);
  });

  it('fails on a table the case did not record', async () => {
    await expect(runReadOnlySql(endpoint(), 'SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX')).rejects.toThrow();
  });
});
