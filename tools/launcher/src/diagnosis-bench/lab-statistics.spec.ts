import { sampleCase, sampleMariadbCase } from './lab-fixture';
import { PG_UNRECORDED_VIEWS, myReplayScript, pgReplayScript, replayDatabase, rewriteMySqlForReplay } from './lab-statistics';

const pgCase = sampleCase({
  statements: {
    pg_stat_statements: [{ queryid: '-77', query: 'SELECT count(*) FROM t WHERE a = $1', calls: '36', total_exec_time: 1500.5, mean_exec_time: 41.68, rows: '36' }],
    pg_stat_activity: [
      { state: 'active', wait_event_type: 'Lock', backend_type: 'client backend', count: 3 },
      { state: 'idle in transaction', wait_event_type: 'Client', backend_type: 'client backend', count: 2 },
      { state: 'none', wait_event_type: 'Activity', backend_type: 'checkpointer', count: 1 },
    ],
    pg_stat_replication: [{ application_name: 'walreceiver', state: 'streaming', sync_state: 'async', sent_lag_bytes: 100, replay_lag_bytes: 5100, write_lag_s: 0.5, flush_lag_s: 0.5, replay_lag_s: 2 }],
    pg_stat_bgwriter: { error: 'permission denied' },
    settings: [{ name: 'max_connections', setting: '60' }],
  },
});

const myCase = sampleMariadbCase('my-cpu-statement-04');

describe('replayDatabase', () => {
  it('names one database per lab cluster and refuses anything else', () => {
    expect(replayDatabase('lab-pg-07')).toBe('aoc_lab_pg_07');
    expect(replayDatabase('lab-my-104')).toBe('aoc_lab_my_104');
    expect(() => replayDatabase('prod-1"; DROP')).toThrow(/not a lab cluster/);
  });
});

describe('pgReplayScript', () => {
  const script = pgReplayScript(pgCase);
  const sql = script.map((s) => s.sql);

  it('replaces the recorded views and drops every unrecorded one, so no query reads the replay server itself', () => {
    expect(sql).toContain('DROP VIEW pg_catalog.pg_stat_activity CASCADE');
    expect(sql.some((s) => s.startsWith('CREATE VIEW pg_catalog.pg_stat_activity AS'))).toBe(true);
    expect(sql.some((s) => s.startsWith('CREATE VIEW pg_catalog.pg_stat_replication AS'))).toBe(true);
    // pg_stat_bgwriter could not be read when recording: dropped, not replaced.
    expect(sql).toContain('DROP VIEW pg_catalog.pg_stat_bgwriter CASCADE');
    expect(sql.some((s) => s.startsWith('CREATE VIEW pg_catalog.pg_stat_bgwriter'))).toBe(false);
    for (const v of PG_UNRECORDED_VIEWS) expect(sql).toContain(`DROP VIEW IF EXISTS pg_catalog.${v} CASCADE`);
    expect(sql).toContain('CREATE TABLE public.pg_stat_statements (queryid text, query text, calls bigint, rows bigint, shared_blks_hit bigint, shared_blks_read bigint, shared_blks_written bigint, temp_blks_read bigint, temp_blks_written bigint, wal_bytes bigint, total_exec_time double precision, mean_exec_time double precision)');
  });

  it('expands the grouped sessions into one row each, NULL where the recorder wrote none', () => {
    const sessions = script.filter((s) => s.sql.startsWith('INSERT INTO lab_snapshot.pg_stat_activity')).map((s) => s.params);
    expect(sessions).toHaveLength(6);
    expect(sessions.filter((p) => p?.[3] === 'Lock')).toHaveLength(3);
    expect(sessions.find((p) => p?.[4] === 'checkpointer')).toEqual([100005, null, null, 'Activity', 'checkpointer']);
  });

  it('stretches the replica lags like the age gauges of the case and keeps byte positions', () => {
    const row = script.find((s) => s.sql.startsWith('INSERT INTO lab_snapshot.pg_stat_replication'))?.params;
    expect(row).toEqual(['walreceiver', 'streaming', 'async', 100, 5100, '20 seconds', '20 seconds', '80 seconds']);
  });

  it('is for Postgres cases only', () => {
    expect(() => pgReplayScript(myCase)).toThrow(/not a Postgres case/);
  });
});

describe('myReplayScript', () => {
  const script = myReplayScript(myCase);

  it('keeps digest timers in picoseconds, as performance_schema does', () => {
    const row = script.find((s) => s.sql.startsWith('INSERT INTO ps_events_statements_summary_by_digest'))?.params;
    expect(row?.slice(0, 6)).toEqual(['shop', 'ab12', 'SELECT SUM ( `x` ) FROM `orders`', 84, 150.5e12, Math.round(150.5e12 / 84)]);
  });

  it('expands the process list and spells information_schema names in upper case', () => {
    expect(script.filter((s) => s.sql.startsWith('INSERT INTO is_processlist'))).toHaveLength(7);
    expect(script.find((s) => s.sql.startsWith('INSERT INTO is_global_status'))?.params).toEqual(['THREADS_CONNECTED', '7']);
    expect(script.find((s) => s.sql.startsWith('INSERT INTO ps_global_status'))?.params).toEqual(['Threads_connected', '7']);
    expect(script.find((s) => s.sql.startsWith('INSERT INTO is_global_variables'))?.params).toEqual(['MAX_CONNECTIONS', '60']);
  });
});

describe('rewriteMySqlForReplay', () => {
  it('names the case tables for schema-qualified statistics tables and reads @@GLOBAL from the recorded variables', () => {
    const out = rewriteMySqlForReplay('SELECT DIGEST FROM performance_schema.events_statements_summary_by_digest, `information_schema`.`PROCESSLIST` WHERE @@GLOBAL.max_connections > 1', 'aoc_lab_my_04');
    expect(out).toBe(
      "SELECT DIGEST FROM `aoc_lab_my_04`.`ps_events_statements_summary_by_digest`, `aoc_lab_my_04`.`is_processlist` WHERE (SELECT VARIABLE_VALUE FROM `aoc_lab_my_04`.`is_global_variables` WHERE VARIABLE_NAME = 'MAX_CONNECTIONS') > 1",
    );
  });

  it('leaves session statements to the real server', () => {
    expect(rewriteMySqlForReplay('SELECT @@session.transaction_read_only AS ro', 'aoc_lab_my_04')).toBe('SELECT @@session.transaction_read_only AS ro');
    expect(rewriteMySqlForReplay('SET SESSION TRANSACTION READ ONLY', 'aoc_lab_my_04')).toBe('SET SESSION TRANSACTION READ ONLY');
  });

  it('refuses a database that is not a replay database', () => {
    expect(() => rewriteMySqlForReplay('SELECT 1', 'mysql')).toThrow(/not a replay database/);
  });
});
