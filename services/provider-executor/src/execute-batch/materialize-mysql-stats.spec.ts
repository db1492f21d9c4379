import { EvidenceFactV1 } from '@aoc/contracts';
import { LOG_PATTERNS } from '@aoc/providers';
import { materializeFacts } from './materialize-facts';
import { materializeChannelNote, PATTERN_FAMILY } from './materialize-logs';
import { materializeMySqlStats } from './materialize-mysql-stats';
import { materializePgStats } from './materialize-pg-stats';

const READ_AT = '2026-12-01T09:48:16.153Z';
const sql = (relations: string[], columns: string[], rows: unknown[][], dialect: 'mysql' | 'postgresql' = 'mysql') => ({ operation: 'sql', dialect, readAt: READ_AT, relations, columns, rows, rowCount: rows.length, truncated: false });
type M = NonNullable<ReturnType<typeof materializeMySqlStats>>;
const must = (value: ReturnType<typeof materializeMySqlStats>): M => {
  if (!value) throw new Error('expected a sql materialisation');
  for (const f of value.facts) EvidenceFactV1.parse(f);
  return value;
};
const fact = (m: M, subject: string) => m.facts.find((f) => f.subject === subject);
const DIGESTS = 'performance_schema.events_statements_summary_by_digest';
const TOP_COLUMNS = ['digest', 'digest_text_digest', 'digest_text_kind', 'calls', 'total_ms', 'mean_ms', 'rows_examined', 'rows_sent', 'no_index_used', 'errors', 'all_statements_ms'];

describe('sql (MySQL/MariaDB statistics) facts', () => {
  it('top digests become top_item facts with digest refs, share of all statement time, calls and rows examined per row sent', () => {
    const m = must(
      materializeMySqlStats('mysql_top_statements', 'top digests', sql([DIGESTS], TOP_COLUMNS, [
        ['aa11', 'digest:aaaaaaaaaaaaaaaa', 'SELECT', 1200, 60_000, 50, 9_000_000, 1200, 1200, 0, 100_000],
        ['bb22', 'digest:bbbbbbbbbbbbbbbb', 'UPDATE', 300, 20_000, 66.7, 300, 0, 0, 2, 100_000],
      ])),
    );
    const [lead, next] = m.facts.filter((f) => f.kind === 'top_item');
    expect(lead).toMatchObject({
      subject: 'statement digest:aaaaaaaaaaaaaaaa (SELECT)',
      value: 60,
      unit: '% of statement time',
      attributes: { family: 'statement_latency', digest: 'digest:aaaaaaaaaaaaaaaa', rank: 1, share: 60, shareBasis: 'all statements', execCount: 1200, totalLatencyMs: 60_000, rowsExaminedPerSent: 7500, source: 'sql', dialect: 'mysql', readAt: READ_AT, basis: 'since statistics reset' },
    });
    expect(next.attributes).not.toHaveProperty('rowsExaminedPerSent');
    expect(fact(m, 'mysql_top_statements: statements')).toMatchObject({ kind: 'count', value: 2, attributes: { family: 'statement_latency' } });
    expect(m.observations[0]).toMatch(/^top digests: digest:aaaaaaaaaaaaaaaa \(SELECT\) took 60% of all statement time .* 7,500 rows examined per row sent.* Read at 09:48Z/);
  });

  it('an empty digest table is a zero reading plus a gap (performance_schema may be off), never a ranking', () => {
    const m = must(materializeMySqlStats('top', 'top digests', sql([DIGESTS], TOP_COLUMNS, [])));
    expect(m.facts).toEqual([expect.objectContaining({ kind: 'count', value: 0, attributes: expect.objectContaining({ reads: 'statement_latency' }) })]);
    expect(m.gaps[0]).toMatch(/performance_schema may be off/);
  });

  it('sessions by command, lock waits and long transactions are counts with their family', () => {
    const plist = must(materializeMySqlStats('plist', 'sessions', sql(['information_schema.processlist'], ['command', 'state', 'sessions', 'longest_s'], [['Sleep', '', 140, 3000], ['Query', 'Waiting for table metadata lock', 12, 95], ['Daemon', 'InnoDB purge worker', 4, 9000]])));
    expect(fact(plist, 'connections total')).toMatchObject({ value: 152, attributes: { family: 'connections' } });
    expect(fact(plist, 'connections command=Query state=Waiting for table metadata lock')).toMatchObject({ value: 12, attributes: { family: 'active_sessions', longestS: 95 } });
    const trx = must(materializeMySqlStats('trx', 'transactions', sql(['information_schema.innodb_trx'], ['transactions', 'lock_waits', 'longest_lock_wait_s', 'long_transactions', 'oldest_transaction_s', 'rows_locked'], [[9, 3, 41, 2, 620, 12000]])));
    expect(fact(trx, 'transactions waiting on a lock')).toMatchObject({ kind: 'count', value: 3, unit: 'transactions', attributes: { family: 'lock_waits', longestWaitS: 41 } });
    expect(fact(trx, 'long transactions')).toMatchObject({ value: 2, attributes: { family: 'locks', thresholdS: 60 } });
    expect(fact(trx, 'oldest open transaction age')).toMatchObject({ value: 620, unit: 's', attributes: { family: 'locks' } });
    const calm = must(materializeMySqlStats('trx', 'transactions', sql(['information_schema.innodb_trx'], ['transactions', 'lock_waits', 'long_transactions', 'oldest_transaction_s'], [[0, 0, 0, null]])));
    expect(fact(calm, 'transactions waiting on a lock')?.attributes).toMatchObject({ reads: 'lock_waits' });
    expect(fact(calm, 'transactions waiting on a lock')?.attributes).not.toHaveProperty('family');
  });

  it('InnoDB metrics and global status become counts by counter; settings become config_value facts', () => {
    const metrics = must(materializeMySqlStats('im', 'innodb', sql(['information_schema.innodb_metrics'], ['name', 'value'], [['lock_deadlocks', 7], ['lock_timeouts', 0], ['trx_rseg_history_len', 90000], ['something_else', 5]])));
    expect(fact(metrics, 'deadlocks since server start')).toMatchObject({ value: 7, attributes: { family: 'deadlocks', counter: 'lock_deadlocks', basis: 'since server start' } });
    expect(fact(metrics, 'lock wait timeouts since server start')?.attributes).toMatchObject({ reads: 'lock_waits' });
    expect(metrics.facts).toHaveLength(3);
    const status = must(materializeMySqlStats('st', 'status', sql(['performance_schema.global_status'], ['name', 'value'], [['Threads_connected', '148'], ['Connection_errors_max_connections', '31']])));
    expect(fact(status, 'connections total')).toMatchObject({ value: 148, attributes: { family: 'connections', basis: 'now' } });
    expect(fact(status, 'connections refused at max_connections')).toMatchObject({ value: 31, attributes: { family: 'connection_limit' } });
    const settings = must(materializeMySqlStats('set', 'settings', sql([], ['max_connections', 'innodb_lock_wait_timeout', 'read_only'], [[151, 50, 0]])));
    expect(fact(settings, 'setting max_connections')).toMatchObject({ kind: 'config_value', value: 151, unit: null, attributes: { family: 'connection_limit', setting: 'max_connections' } });
    expect(fact(settings, 'setting innodb_lock_wait_timeout')?.attributes).toMatchObject({ family: 'lock_waits' });
  });

  it('replica applier workers: counts of workers, stopped ones and ones with an error', () => {
    const m = must(materializeMySqlStats('rep', 'replica', sql(['performance_schema.replication_applier_status_by_worker'], ['channel', 'service_state', 'last_error_number', 'last_error_at'], [['', 'OFF', 1062, '2026-12-01T09:40:00.000Z'], ['', 'ON', 0, null]])));
    expect(fact(m, 'replica applier workers not running')).toMatchObject({ value: 1, attributes: { family: 'replication_lag' } });
    expect(fact(m, 'replica applier workers with an error')).toMatchObject({ value: 1, attributes: { family: 'errors', lastErrorNumber: 1062 } });
  });

  it('leaves PostgreSQL results to the PostgreSQL materialiser and the other way round', () => {
    expect(materializeMySqlStats('x', 'x', sql(['pg_stat_activity'], ['state', 'sessions'], [['idle', 1]], 'postgresql'))).toBeNull();
    expect(materializeMySqlStats('x', 'x', { ...sql(['pg_stat_activity'], ['state', 'sessions'], []), dialect: undefined })).toBeNull();
  });
});

describe('new PostgreSQL statistics shapes', () => {
  const pg = (relations: string[], columns: string[], rows: unknown[][]) => {
    const m = materializePgStats('q', 'purpose', sql(relations, columns, rows, 'postgresql'));
    if (!m) throw new Error('expected a sql materialisation');
    for (const f of m.facts) EvidenceFactV1.parse(f);
    return m;
  };
  it('top statements with the time of all statements: the share is of the whole', () => {
    const top = pg(['pg_stat_statements'], ['query_digest', 'query_kind', 'calls', 'total_exec_time', 'mean_exec_time', 'rows', 'all_exec_time'], [['digest:1111111111111111', 'SELECT', 1000, 9000, 9, 1000, 36000]]);
    expect(top.facts[0]).toMatchObject({ kind: 'top_item', value: 25, attributes: { share: 25, shareBasis: 'all statements', digest: 'digest:1111111111111111', family: 'statement_latency' } });
    expect(top.observations[0]).toContain('took 25% of all statement execution time');
  });

  it('checkpoints requested vs timed, temp files, deadlocks and sessions by wait class', () => {
    const cp = pg(['pg_stat_checkpointer'], ['checkpoints_timed', 'checkpoints_req', 'checkpoint_write_time', 'checkpoint_sync_time', 'buffers_checkpoint', 'stats_reset'], [[10, 30, 1, 1, 1, '2026-11-30T00:00:00.000Z']]);
    expect(cp.facts.find((f) => f.subject === 'checkpoints requested')).toMatchObject({ value: 30, attributes: { family: 'checkpoints', requestedShare: 75 } });
    const db = pg(['pg_stat_database'], ['datname', 'temp_files', 'temp_bytes', 'deadlocks', 'conflicts', 'xact_commit', 'xact_rollback', 'stats_reset'], [['shop', 12, 3_145_728, 2, 0, 100, 5, null], ['postgres', 0, 0, 0, 0, 10, 0, null]]);
    expect(db.facts.find((f) => f.subject === 'deadlocks')).toMatchObject({ value: 2, attributes: { family: 'deadlocks' } });
    expect(db.facts.find((f) => f.subject === 'temporary files')).toMatchObject({ value: 12, attributes: { family: 'io_throughput', tempBytes: 3_145_728 } });
    const waits = pg(['pg_stat_activity'], ['state', 'wait_event_type', 'sessions', 'oldest_xact_age_s'], [['active', 'Lock', 7, 95], ['idle in transaction', 'Client', 3, 1800], ['idle', 'none', 40, null]]);
    expect(waits.facts.find((f) => f.subject === 'sessions waiting on locks')).toMatchObject({ value: 7, attributes: { family: 'lock_waits' } });
    expect(waits.facts.find((f) => f.subject === 'oldest open transaction age')).toMatchObject({ value: 1800, unit: 's', attributes: { family: 'locks' } });
  });
});

describe('channels that are not configured', () => {
  it('become a note fact and a gap, never a reading', () => {
    const m = materializeChannelNote('channel_logs', 'whether the database log can be read', { operation: 'channel', channel: 'logs', availability: 'not_configured', setting: 'loki' });
    expect(m?.facts).toEqual([
      { queryId: 'channel_logs', kind: 'note', subject: 'channel logs not configured', value: 'not_configured', unit: null, attributes: { source: 'channel', channel: 'logs', setting: 'loki', confirms: expect.stringContaining('restarts') } },
    ]);
    expect(m?.gaps[0]).toMatch(/the database log is not configured for this target \(its endpoint has no loki settings\)/);
    const viaBatch = materializeFacts(
      [{ id: 'channel_statements', operation: 'sql', expression: 'SELECT 1 AS channel_check', purpose: 'statements' }],
      [{ id: 'channel_statements', status: 'empty', result: { operation: 'channel', channel: 'statements', availability: 'not_configured', setting: 'postgres or mysql' } }],
    );
    expect(viaBatch.facts).toEqual([expect.objectContaining({ kind: 'note', subject: 'channel statements not configured', value: 'not_configured', attributes: expect.objectContaining({ channel: 'statements' }) })]);
    expect(viaBatch.gaps).toEqual([expect.stringMatching(/statement statistics are not configured for this target/)]);
  });

  it('every log pattern of the package has a family or is knowingly an error', () => {
    const errors = ['oom', 'panic', 'statement_timeout', 'connection', 'authentication', 'disk', 'replication', 'other'];
    for (const p of LOG_PATTERNS) expect([p, PATTERN_FAMILY[p] ?? (errors.includes(p) ? 'errors' : undefined)]).toEqual([p, expect.any(String)]);
  });
});
