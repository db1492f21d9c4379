import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import type { QueryEvidence } from '@aoc/providers';
import { materializeFacts } from './materialize-facts';
import { materializePgStats } from './materialize-pg-stats';

const READ_AT = '2026-12-01T09:48:16.153Z';
const sql = (relations: string[], columns: string[], rows: unknown[][], over: Record<string, unknown> = {}) => ({ operation: 'sql', readAt: READ_AT, relations, columns, rows, rowCount: rows.length, truncated: false, ...over });
const must = (value: ReturnType<typeof materializePgStats>) => {
  if (!value) throw new Error('expected a sql materialisation');
  for (const f of value.facts) EvidenceFactV1.parse(f);
  return value;
};
const fact = (m: ReturnType<typeof must>, subject: string) => m.facts.find((f) => f.subject === subject);

describe('sql (PostgreSQL statistics) facts', () => {
  it('connection states become counts of family connections (active sessions apart), with when they were read', () => {
    const m = must(materializePgStats('pg_connections', 'client sessions by state', sql(['pg_stat_activity'], ['state', 'sessions', 'longest_in_state'], [['idle', 40, 12.5], ['active', 12, 0.2], ['idle in transaction', 5, 320.4]])));
    expect(fact(m, 'connections total')).toMatchObject({ kind: 'count', value: 57, unit: 'sessions', attributes: { family: 'connections', source: 'sql', readAt: READ_AT } });
    expect(fact(m, 'connections state=active')).toMatchObject({ value: 12, attributes: { family: 'active_sessions', state: 'active' } });
    expect(fact(m, 'connections state=idle in transaction')).toMatchObject({ value: 5, attributes: { family: 'connections', longestInStateS: 320.4 } });
    expect(m.observations).toEqual([
      'client sessions by state: 57 client sessions (40 idle, 12 active, 5 idle in transaction); the longest idle in transaction for 320 s. Read at 09:48Z: the state when the batch ran, not a reading of the window.',
    ]);
  });

  it('blocked sessions become a count and ranked top items of family lock_waits; none blocked is a reading, not missing data', () => {
    const columns = ['pid', 'state', 'wait_event_type', 'wait_event', 'blocked_by', 'running_for', 'query_digest', 'query_kind'];
    const m = must(materializePgStats('locks', 'blocked sessions', sql(['pg_stat_activity'], columns, [[31, 'active', 'Lock', 'transactionid', 1, 4.2, 'digest:aaaaaaaaaaaaaaaa', 'UPDATE'], [32, 'active', 'Lock', 'tuple', 2, 45.5, 'digest:bbbbbbbbbbbbbbbb', 'DELETE']])));
    expect(fact(m, 'blocked sessions')).toMatchObject({ kind: 'count', value: 2, attributes: { family: 'lock_waits' } });
    expect(m.facts.filter((f) => f.kind === 'top_item').map((f) => [f.subject, f.value, f.attributes['rank'], f.attributes['family']])).toEqual([
      ['blocked session digest:bbbbbbbbbbbbbbbb (DELETE)', 45.5, 1, 'lock_waits'],
      ['blocked session digest:aaaaaaaaaaaaaaaa (UPDATE)', 4.2, 2, 'lock_waits'],
    ]);
    expect(m.observations[0]).toContain('2 sessions waiting on another session\'s lock; the longest for 45.5 s (digest:bbbbbbbbbbbbbbbb, DELETE, waiting on Lock/tuple, blocked by 2 sessions)');
    const none = must(materializePgStats('locks', 'blocked sessions', sql(['pg_stat_activity'], columns, [])));
    expect(none.facts).toEqual([{ queryId: 'locks', kind: 'count', subject: 'blocked sessions', value: 0, unit: 'sessions', attributes: { source: 'sql', readAt: READ_AT, reads: 'lock_waits' } }]);
    expect(none.observations[0]).toMatch(/^blocked sessions: no session was waiting on another session's lock\. Read at 09:48Z/);
    expect(none.gaps).toEqual([]);
  });

  it('max_connections becomes a numeric config_value of family connection_limit', () => {
    const m = must(materializePgStats('limit', 'connection settings', sql(['pg_settings'], ['name', 'setting', 'unit'], [['max_connections', '100', null], ['shared_buffers', '16384', '8kB'], ['statement_timeout', '0', 'ms'], ['odd setting', 'x', null]])));
    expect(fact(m, 'setting max_connections')).toEqual({ queryId: 'limit', kind: 'config_value', subject: 'setting max_connections', value: 100, unit: null, attributes: { source: 'sql', readAt: READ_AT, setting: 'max_connections', family: 'connection_limit' } });
    expect(fact(m, 'setting shared_buffers')).toMatchObject({ value: 16384, unit: '8kB', attributes: { family: 'memory' } });
    expect(fact(m, 'setting statement_timeout')?.attributes).not.toHaveProperty('family');
    expect(m.observations[0]).toContain('max_connections = 100, shared_buffers = 16,384 8kB, statement_timeout = 0 ms');
  });

  it('lock modes, replication and top statements', () => {
    const locks = must(materializePgStats('modes', 'lock modes', sql(['pg_locks'], ['locktype', 'mode', 'granted', 'locks'], [['relation', 'AccessShareLock', true, 30], ['transactionid', 'ShareLock', false, 3], ['transactionid', 'ExclusiveLock', true, 4]])));
    expect([fact(locks, 'locks awaited')?.value, fact(locks, 'locks held')?.value]).toEqual([3, 34]);
    expect(fact(locks, 'awaited ShareLock on transactionid')).toMatchObject({ kind: 'top_item', value: 3, attributes: { family: 'lock_waits' } });

    const repl = must(materializePgStats('repl', 'replicas', sql(['pg_stat_replication'], ['application_name', 'state', 'sync_state', 'write_lag', 'flush_lag', 'replay_lag', 'replay_lag_bytes'], [['replica-a', 'streaming', 'async', 0.1, 0.2, 12.5, 5242880], ['replica-b', 'streaming', 'sync', null, null, null, 0]])));
    expect(fact(repl, 'replica replica-a')).toMatchObject({ kind: 'top_item', value: 12.5, unit: 's', attributes: { family: 'replication_lag', rank: 1, replayLagBytes: 5242880 } });
    expect(fact(repl, 'streaming replicas')).toMatchObject({ value: 2, attributes: { family: 'replication_lag' } });
    const alone = must(materializePgStats('repl', 'replicas', sql(['pg_stat_replication'], ['application_name', 'state'], [])));
    expect(alone.observations[0]).toContain('no streaming replica was attached');

    const top = must(materializePgStats('top', 'top statements', sql(['pg_stat_statements'], ['query_digest', 'query_kind', 'calls', 'total_exec_time', 'mean_exec_time', 'rows'], [['digest:1111111111111111', 'SELECT', 1000, 9000, 9, 1000], ['digest:2222222222222222', 'UPDATE', 10, 1000, 100, 10]])));
    expect(top.facts[0]).toMatchObject({ kind: 'top_item', value: 90, attributes: { digest: 'digest:1111111111111111', share: 90, execCount: 1000, totalLatencyMs: 9000, avgLatencyMs: 9, family: 'statement_latency', basis: 'since statistics reset' } });
    expect(top.observations[0]).toContain('digest:1111111111111111 (SELECT) took 90% of the execution time of the 2 top statements');
  });

  it('any other shape is a row count without values; truncation is a gap; other results are not sql', () => {
    const m = must(materializePgStats('db', 'databases', sql(['pg_stat_database'], ['datname', 'xact_commit'], [['orders', 5], ['secret_db', 7]], { truncated: true })));
    expect(m.facts).toEqual([{ queryId: 'db', kind: 'count', subject: 'db: rows', value: 2, unit: 'rows', attributes: { source: 'sql', readAt: READ_AT, truncated: true, columns: 2 } }]);
    expect(JSON.stringify(m)).not.toContain('secret_db');
    expect(m.gaps).toEqual(['databases (db) returned more rows than the package keeps; counts are lower bounds']);
    expect(materializePgStats('x', 'x', { resultType: 'matrix', seriesCount: 0, series: [] })).toBeNull();
    expect(materializePgStats('x', 'x', { ...sql([], [], []), sql: 'SELECT 1' })).toBeNull();
  });

  it('flows through materializeFacts: an empty sql result is a fact, not a missing-data gap', () => {
    const plannedSql = (id: string): PlannedQueryV1 => ({ id, operation: 'sql', expression: 'SELECT …', purpose: `purpose ${id}` });
    const evidence: QueryEvidence[] = [{ id: 'locks', status: 'empty', result: sql(['pg_stat_activity'], ['pid', 'blocked_by', 'running_for', 'query_digest', 'query_kind'], []) }];
    const out = materializeFacts([plannedSql('locks')], evidence);
    expect(out.gaps).toEqual([]);
    expect(out.facts.map((f) => [f.subject, f.value])).toEqual([['blocked sessions', 0]]);
    expect(out.observations[0]).toMatch(/^purpose locks: no session was waiting/);
    expect(JSON.stringify(out)).not.toContain('SELECT');
  });
});
