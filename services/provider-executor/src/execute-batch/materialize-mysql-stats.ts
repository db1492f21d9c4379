import type { EvidenceFactV1 } from '@aoc/contracts';
import { GenericSqlResult } from '@aoc/providers';
import { countFact as count, finishSql, fmt, label, longTransaction, num, plural, round, sqlContext, type Context, type Row, type SqlMaterialized } from './materialize-pg-stats';

/**
 * Compact facts from the generic package's `sql` on a MySQL/MariaDB target (`dialect: 'mysql'`):
 * top statement digests, sessions by command, InnoDB transactions (lock waits, long
 * transactions), InnoDB metrics and global status counters, settings and replica applier state.
 * The package already turned statement text into digest references, hosts into `[redacted]` and
 * accounts into references; only counts, ranked digests and settings are kept here. Like the
 * PostgreSQL views these tables are "now" (`readAt`); counters are cumulative since the server
 * started or the statistics were reset, and say so in `basis`.
 */

const MAX_ITEMS = 5;
const has = (ctx: Context, ...columns: string[]) => columns.every((c) => ctx.result.columns.includes(c));
const reads = (ctx: Context, relation: string) => ctx.result.relations.includes(relation);

/** Counter names (INNODB_METRICS and global status) worth a fact, with what they read. */
const COUNTERS: ReadonlyMap<string, { subject: string; family: string; unit: string }> = new Map(
  Object.entries({
    lock_deadlocks: { subject: 'deadlocks since server start', family: 'deadlocks', unit: 'deadlocks' },
    innodb_deadlocks: { subject: 'deadlocks since server start', family: 'deadlocks', unit: 'deadlocks' },
    lock_timeouts: { subject: 'lock wait timeouts since server start', family: 'lock_waits', unit: 'timeouts' },
    lock_row_lock_current_waits: { subject: 'row lock waits now', family: 'lock_waits', unit: 'waits' },
    innodb_row_lock_current_waits: { subject: 'row lock waits now', family: 'lock_waits', unit: 'waits' },
    lock_row_lock_waits: { subject: 'row lock waits since server start', family: 'lock_waits', unit: 'waits' },
    innodb_row_lock_waits: { subject: 'row lock waits since server start', family: 'lock_waits', unit: 'waits' },
    buffer_pool_wait_free: { subject: 'buffer pool free-page waits', family: 'cache_hit', unit: 'waits' },
    innodb_buffer_pool_wait_free: { subject: 'buffer pool free-page waits', family: 'cache_hit', unit: 'waits' },
    log_waits: { subject: 'redo log waits', family: 'wal', unit: 'waits' },
    innodb_log_waits: { subject: 'redo log waits', family: 'wal', unit: 'waits' },
    log_lsn_checkpoint_age: { subject: 'checkpoint age', family: 'checkpoints', unit: 'bytes' },
    trx_rseg_history_len: { subject: 'undo history length', family: 'maintenance', unit: 'transactions' },
    threads_connected: { subject: 'connections total', family: 'connections', unit: 'sessions' },
    threads_running: { subject: 'running threads', family: 'active_sessions', unit: 'sessions' },
    max_used_connections: { subject: 'most connections since server start', family: 'connections', unit: 'sessions' },
    aborted_connects: { subject: 'aborted connection attempts', family: 'errors', unit: 'connections' },
    aborted_clients: { subject: 'aborted client connections', family: 'errors', unit: 'connections' },
    connection_errors_max_connections: { subject: 'connections refused at max_connections', family: 'connection_limit', unit: 'connections' },
    slow_queries: { subject: 'slow queries since server start', family: 'statement_latency', unit: 'statements' },
    created_tmp_disk_tables: { subject: 'temporary tables on disk', family: 'io_throughput', unit: 'tables' },
    uptime: { subject: 'server uptime', family: 'uptime', unit: 's' },
  }),
);

/** Settings read as `@@GLOBAL.<name> AS <name>`, with the family they bound. */
const SETTINGS: ReadonlyMap<string, string | null> = new Map([
  ['max_connections', 'connection_limit'],
  ['max_user_connections', 'connection_limit'],
  ['innodb_lock_wait_timeout', 'lock_waits'],
  ['lock_wait_timeout', 'lock_waits'],
  ['wait_timeout', 'connections'],
  ['interactive_timeout', 'connections'],
  ['long_query_time', 'statement_latency'],
  ['max_execution_time', 'statement_latency'],
  ['max_statement_time', 'statement_latency'],
  ['read_only', 'failover'],
  ['super_read_only', 'failover'],
  ['innodb_buffer_pool_size', 'memory'],
  ['performance_schema', null],
]);

function topStatements(ctx: Context): SqlMaterialized {
  const total = (r: Row) => num(r['total_ms']) ?? 0;
  const ranked = [...ctx.rows].sort((a, b) => total(b) - total(a));
  const all = num(ranked[0]?.['all_statements_ms']);
  const sum = all !== null && all > 0 ? all : ranked.reduce((s, r) => s + total(r), 0);
  const shareBasis = all !== null && all > 0 ? 'all statements' : 'top statements';
  const countFact = count(ctx, `${ctx.queryId}: statements`, ranked.length, 'statements', 'statement_latency');
  if (ranked.length === 0 || sum <= 0) {
    return {
      facts: [countFact],
      observations: [`${ctx.purpose}: no statement digest recorded since the statistics reset.`],
      // MariaDB ships with performance_schema off: an empty digest table is no reading of the workload.
      gaps: [`${ctx.purpose} (${ctx.queryId}): the statement digest table is empty (performance_schema may be off), so statement time cannot be ranked`],
    };
  }
  const share = (r: Row) => round((100 * total(r)) / sum, 1);
  const facts = ranked.slice(0, MAX_ITEMS).map((row, i): EvidenceFactV1 => {
    const digest = label(row['digest_text_digest'], 'digest:unknown');
    const kind = label(row['digest_text_kind'], 'OTHER');
    const examined = num(row['rows_examined']);
    const sent = num(row['rows_sent']);
    const calls = num(row['calls']) ?? 0;
    return {
      queryId: ctx.queryId,
      kind: 'top_item',
      subject: `statement ${digest} (${kind})`.slice(0, 200),
      value: share(row),
      unit: '% of statement time',
      attributes: {
        ...ctx.base,
        family: 'statement_latency',
        digest,
        rank: i + 1,
        statementType: kind,
        share: share(row),
        shareBasis,
        execCount: calls,
        totalLatencyMs: round(total(row)),
        ...(num(row['mean_ms']) !== null ? { avgLatencyMs: round(num(row['mean_ms']) as number) } : {}),
        ...(examined !== null ? { rowsExamined: examined } : {}),
        ...(sent !== null ? { rowsSent: sent } : {}),
        ...(examined !== null && sent !== null && sent > 0 ? { rowsExaminedPerSent: round(examined / sent, 1) } : {}),
        // Rows a call reads: a bulk write or a scan touches thousands, a point lookup one.
        ...(examined !== null && calls > 0 ? { rowsPerCall: round(examined / calls, 1) } : {}),
        ...(num(row['no_index_used']) !== null ? { noIndexUsed: num(row['no_index_used']) as number } : {}),
        ...(num(row['errors']) !== null ? { errors: num(row['errors']) as number } : {}),
        basis: 'since statistics reset',
      },
    };
  });
  const lead = ranked[0];
  const ratio = num(lead['rows_examined']) !== null && (num(lead['rows_sent']) ?? 0) > 0 ? `, ${fmt((num(lead['rows_examined']) as number) / (num(lead['rows_sent']) as number))} rows examined per row sent` : '';
  const text = `${ctx.purpose}: ${label(lead['digest_text_digest'], 'digest:unknown')} (${label(lead['digest_text_kind'], 'OTHER')}) took ${fmt(share(lead))}% of ${shareBasis === 'all statements' ? 'all statement time' : `the time of the ${ranked.length} top statements`} (${fmt(total(lead) / 1000)} s over ${fmt(num(lead['calls']), 0)} calls${ratio}); cumulative since the statistics reset.`;
  return { facts: [...facts, countFact], observations: [text.slice(0, 500)], gaps: [] };
}

function processlist(ctx: Context): SqlMaterialized {
  const groups = ctx.rows.map((r) => ({ command: label(r['command']), state: label(r['state'], 'none') || 'none', sessions: num(r['sessions']) ?? 0, longest: num(r['longest_s']) })).sort((a, b) => b.sessions - a.sessions);
  const clients = groups.filter((g) => g.command !== 'Daemon' && !g.command.startsWith('Binlog'));
  const total = clients.reduce((s, g) => s + g.sessions, 0);
  const facts: EvidenceFactV1[] = [
    count(ctx, 'connections total', total, 'sessions', 'connections'),
    ...groups.slice(0, 8).map((g) => count(ctx, `connections command=${g.command} state=${g.state}`, g.sessions, 'sessions', g.command === 'Query' ? 'active_sessions' : 'connections', { command: g.command, state: g.state, ...(g.longest !== null ? { longestS: g.longest } : {}) })),
  ];
  const text = `${ctx.purpose}: ${plural(total, 'client session')} (${groups.slice(0, 4).map((g) => `${fmt(g.sessions, 0)} ${g.command}${g.state !== 'none' ? `/${g.state}` : ''}`).join(', ')}).`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function transactions(ctx: Context): SqlMaterialized {
  const row = ctx.rows[0] ?? {};
  const waits = num(row['lock_waits']) ?? 0;
  const long = num(row['long_transactions']) ?? 0;
  const oldest = num(row['oldest_transaction_s']);
  const facts: EvidenceFactV1[] = [
    count(ctx, 'transactions waiting on a lock', waits, 'transactions', 'lock_waits', num(row['longest_lock_wait_s']) !== null ? { longestWaitS: num(row['longest_lock_wait_s']) as number } : {}),
    count(ctx, 'long transactions', long, 'transactions', 'locks', { thresholdS: 60, openTransactions: num(row['transactions']) ?? 0 }),
    ...(oldest !== null ? [longTransaction(ctx, oldest)] : []),
  ];
  const text = `${ctx.purpose}: ${plural(num(row['transactions']) ?? 0, 'open transaction')}, ${fmt(waits, 0)} waiting on a lock, ${fmt(long, 0)} open a minute or more${oldest !== null ? `, the oldest ${fmt(oldest)} s` : ''}.`;
  return { facts, observations: [text], gaps: [] };
}

function counters(ctx: Context): SqlMaterialized {
  const facts: EvidenceFactV1[] = [];
  const shown: string[] = [];
  for (const row of ctx.rows) {
    const name = label(row['name'], '').toLowerCase();
    const known = COUNTERS.get(name);
    const value = num(row['value']);
    if (!known || value === null) continue;
    facts.push(count(ctx, known.subject, value, known.unit, known.family, { counter: name, basis: name.endsWith('current_waits') || name.startsWith('threads') ? 'now' : 'since server start' }));
    if (shown.length < 6) shown.push(`${name} ${fmt(value, 0)}`);
  }
  if (ctx.rows.length === 0) {
    return { facts, observations: [`${ctx.purpose}: no counter was returned.`], gaps: [`${ctx.purpose} (${ctx.queryId}): the server returned none of the asked counters (performance_schema may be off)`] };
  }
  return { facts, observations: [`${ctx.purpose}: ${shown.join(', ') || 'none of the known counters'}.`.slice(0, 500)], gaps: [] };
}

function settings(ctx: Context): SqlMaterialized {
  const row = ctx.rows[0] ?? {};
  const facts = ctx.result.columns
    .filter((c) => SETTINGS.has(c))
    .map((name): EvidenceFactV1 => {
      const fam = SETTINGS.get(name);
      const value = num(row[name]);
      return { queryId: ctx.queryId, kind: 'config_value', subject: `setting ${name}`, value: value ?? label(row[name], '[not shown]'), unit: null, attributes: { ...ctx.base, setting: name, ...(fam ? { family: fam } : {}) } };
    });
  const text = `${ctx.purpose}: ${facts.map((f) => `${f.subject.slice(8)} = ${String(f.value)}`).join(', ') || 'none of the asked settings'}.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function replication(ctx: Context): SqlMaterialized {
  const off = ctx.rows.filter((r) => label(r['service_state']) !== 'ON').length;
  const failing = ctx.rows.filter((r) => (num(r['last_error_number']) ?? 0) > 0);
  const facts: EvidenceFactV1[] = [
    count(ctx, 'replica applier workers', ctx.rows.length, 'workers', 'replication_lag'),
    count(ctx, 'replica applier workers not running', off, 'workers', 'replication_lag'),
    count(ctx, 'replica applier workers with an error', failing.length, 'workers', 'errors', failing[0] ? { lastErrorNumber: num(failing[0]['last_error_number']) as number } : {}),
  ];
  const text =
    ctx.rows.length === 0
      ? `${ctx.purpose}: the server is not a replica (no applier worker).`
      : `${ctx.purpose}: ${plural(ctx.rows.length, 'applier worker')}, ${fmt(off, 0)} not running, ${fmt(failing.length, 0)} with an error${failing[0] ? ` (error ${fmt(num(failing[0]['last_error_number']), 0)})` : ''}.`;
  return { facts, observations: [text], gaps: [] };
}

function otherRows(ctx: Context): SqlMaterialized {
  const total = ctx.result.rowCount;
  const lockWaits = reads(ctx, 'performance_schema.data_lock_waits') || reads(ctx, 'information_schema.innodb_lock_waits');
  return {
    facts: [lockWaits ? count(ctx, 'lock waits', total, 'waits', 'lock_waits') : { queryId: ctx.queryId, kind: 'count', subject: `${ctx.queryId}: rows`, value: total, unit: 'rows', attributes: { ...ctx.base, columns: ctx.result.columns.length } }],
    observations: [`${ctx.purpose}: ${plural(total, lockWaits ? 'lock wait' : 'row')} from ${ctx.result.relations.join(', ') || 'server settings'}.`.slice(0, 500)],
    gaps: [],
  };
}

/** Facts, one observation and gaps of a MySQL `sql` result (complete or empty); null for anything else. */
export function materializeMySqlStats(queryId: string, purpose: string, raw: unknown): SqlMaterialized | null {
  const parsed = GenericSqlResult.safeParse(raw);
  if (!parsed.success || parsed.data.dialect !== 'mysql') return null;
  const ctx = sqlContext(queryId, purpose, parsed.data);
  const out = reads(ctx, 'performance_schema.events_statements_summary_by_digest') && has(ctx, 'digest_text_digest', 'total_ms')
    ? topStatements(ctx)
    : reads(ctx, 'information_schema.processlist') && has(ctx, 'command', 'sessions')
      ? processlist(ctx)
      : reads(ctx, 'information_schema.innodb_trx') && has(ctx, 'lock_waits')
        ? transactions(ctx)
        : (reads(ctx, 'information_schema.innodb_metrics') || reads(ctx, 'performance_schema.global_status') || reads(ctx, 'information_schema.global_status')) && has(ctx, 'name', 'value')
          ? counters(ctx)
          : ctx.result.relations.length === 0 && ctx.result.columns.some((c) => SETTINGS.has(c))
            ? settings(ctx)
            : reads(ctx, 'performance_schema.replication_applier_status_by_worker') && has(ctx, 'service_state')
              ? replication(ctx)
              : otherRows(ctx);
  return finishSql(out, ctx);
}
