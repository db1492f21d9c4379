import type { EvidenceFactV1 } from '@aoc/contracts';
import { GenericSqlResult } from '@aoc/providers';

/**
 * Compact facts from the generic package's `sql` results (PostgreSQL statistics views). The
 * package already turned statement text into digests, addresses into `[redacted]` and role names
 * into references; here only counts, ranked items, settings and a few safe labels are kept, never
 * the rows themselves. The views hold the server's state when the batch ran (`readAt`), not the
 * incident window's, and every observation says so.
 *
 * A zero count carries its family as `reads`, not `family`: `family` on a zero count means "the
 * provider returned no series of this family", while zero blocked sessions is a reading.
 */

export interface SqlMaterialized {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
}

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

const MAX_ITEMS = 5;
const SAFE_LABEL = /^[A-Za-z0-9 _.:/()-]{1,64}$/;

/** Settings worth a `config_value`, with the family they bound where one is obvious. */
const SETTING_FAMILIES: ReadonlyMap<string, string | null> = new Map([
  ['max_connections', 'connection_limit'],
  ['superuser_reserved_connections', 'connection_limit'],
  ['reserved_connections', 'connection_limit'],
  ['max_locks_per_transaction', 'locks'],
  ['deadlock_timeout', 'deadlocks'],
  ['lock_timeout', 'lock_waits'],
  ['shared_buffers', 'memory'],
  ['work_mem', 'memory'],
  ['maintenance_work_mem', 'memory'],
  ['effective_cache_size', 'memory'],
  ['max_wal_size', 'wal'],
  ['min_wal_size', 'wal'],
  ['checkpoint_timeout', 'checkpoints'],
  ['max_wal_senders', 'replication_lag'],
  ['max_replication_slots', 'replication_lag'],
  ['statement_timeout', null],
  ['idle_in_transaction_session_timeout', null],
]);

const COUNT_COLUMNS = ['sessions', 'connections', 'count', 'locks', 'n', 'total'];

export const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
export const num = (v: Cell | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : null);
export const label = (v: Cell | undefined, fallback = 'unknown'): string => (typeof v === 'string' && SAFE_LABEL.test(v) ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback);
const hhmm = (iso: string) => `${iso.slice(11, 16)}Z`;
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function fmt(n: number | null, digits = 1): string {
  if (n === null) return 'n/a';
  const abs = Math.abs(n);
  const rounded = abs >= 100 ? Math.round(n) : Math.round(n * 10 ** digits) / 10 ** digits;
  return rounded.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** `family` on a count above zero, `reads` on a zero reading (see the module comment). */
export function family(value: number, name: string): Record<string, string> {
  return value > 0 ? { family: name } : { reads: name };
}

/** A count fact of a `sql` result: `family` above zero, `reads` at zero, the result's base attributes. */
export function countFact(ctx: Pick<Context, 'queryId' | 'base'>, subject: string, value: number, unit: string, fam: string, extra: Record<string, string | number | boolean> = {}): EvidenceFactV1 {
  return { queryId: ctx.queryId, kind: 'count', subject: subject.slice(0, 200), value, unit, attributes: { ...ctx.base, ...family(value, fam), ...extra } };
}

export interface Context {
  queryId: string;
  purpose: string;
  result: GenericSqlResult;
  rows: Row[];
  base: Record<string, string | number | boolean>;
}

export function rowsOf(result: GenericSqlResult): Row[] {
  return result.rows.map((r) => Object.fromEntries(result.columns.map((c, i) => [c, r[i] ?? null])));
}

const has = (result: GenericSqlResult, ...columns: string[]) => columns.every((c) => result.columns.includes(c));
const reads = (result: GenericSqlResult, relation: string) => result.relations.includes(relation);

function countColumn(result: GenericSqlResult): string | null {
  return COUNT_COLUMNS.find((c) => result.columns.includes(c)) ?? null;
}

function settings(ctx: Context): SqlMaterialized {
  const facts: EvidenceFactV1[] = [];
  const shown: string[] = [];
  for (const row of ctx.rows) {
    const name = label(row['name'], '');
    if (!name) continue;
    const raw = row['setting'];
    const value = num(raw);
    const unit = typeof row['unit'] === 'string' && /^[A-Za-z0-9]{1,16}$/.test(row['unit']) ? row['unit'] : null;
    const fam = SETTING_FAMILIES.get(name);
    facts.push({
      queryId: ctx.queryId,
      kind: 'config_value',
      subject: `setting ${name}`.slice(0, 200),
      value: value ?? label(raw, '[not shown]'),
      unit,
      attributes: { ...ctx.base, setting: name, ...(fam ? { family: fam } : {}) },
    });
    if (shown.length < 6) shown.push(`${name} = ${value !== null ? fmt(value, 2) : label(raw, '?')}${unit ? ` ${unit}` : ''}`);
  }
  const text = `${ctx.purpose}: ${shown.length > 0 ? shown.join(', ') : 'none of the asked settings exists'}.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function blockedSessions(ctx: Context): SqlMaterialized {
  const total = ctx.rows.length;
  const facts: EvidenceFactV1[] = [{ queryId: ctx.queryId, kind: 'count', subject: 'blocked sessions', value: total, unit: 'sessions', attributes: { ...ctx.base, ...family(total, 'lock_waits') } }];
  const ranked = [...ctx.rows].sort((a, b) => (num(b['running_for']) ?? 0) - (num(a['running_for']) ?? 0));
  ranked.slice(0, MAX_ITEMS).forEach((row, i) => {
    const digest = label(row['query_digest'], 'digest:unknown');
    const kind = label(row['query_kind'], 'OTHER');
    facts.push({
      queryId: ctx.queryId,
      kind: 'top_item',
      subject: `blocked session ${digest} (${kind})`.slice(0, 200),
      value: num(row['running_for']),
      unit: 's',
      attributes: {
        ...ctx.base,
        family: 'lock_waits',
        rank: i + 1,
        digest,
        statementType: kind,
        blockedBy: num(row['blocked_by']) ?? 0,
        waitEventType: label(row['wait_event_type'], 'none'),
        waitEvent: label(row['wait_event'], 'none'),
        state: label(row['state']),
      },
    });
  });
  const lead = ranked[0];
  const text = lead
    ? `${ctx.purpose}: ${plural(total, 'session')} waiting on another session's lock; the longest for ${fmt(num(lead['running_for']))} s (${label(lead['query_digest'], 'digest:unknown')}, ${label(lead['query_kind'], 'OTHER')}, waiting on ${label(lead['wait_event_type'], 'none')}/${label(lead['wait_event'], 'none')}, blocked by ${plural(num(lead['blocked_by']) ?? 0, 'session')}).`
    : `${ctx.purpose}: no session was waiting on another session's lock.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function lockModes(ctx: Context, column: string): SqlMaterialized {
  const granted = (r: Row) => r['granted'] === true || r['granted'] === 't' || r['granted'] === 'true';
  const sum = (rows: Row[]) => rows.reduce((s, r) => s + (num(r[column]) ?? 0), 0);
  const held = sum(ctx.rows.filter(granted));
  const waiting = ctx.rows.filter((r) => !granted(r));
  const awaited = sum(waiting);
  const facts: EvidenceFactV1[] = [
    { queryId: ctx.queryId, kind: 'count', subject: 'locks awaited', value: awaited, unit: 'locks', attributes: { ...ctx.base, ...family(awaited, 'lock_waits') } },
    { queryId: ctx.queryId, kind: 'count', subject: 'locks held', value: held, unit: 'locks', attributes: { ...ctx.base, ...family(held, 'locks') } },
  ];
  const byWait = [...waiting].sort((a, b) => (num(b[column]) ?? 0) - (num(a[column]) ?? 0));
  byWait.slice(0, MAX_ITEMS).forEach((row, i) =>
    facts.push({
      queryId: ctx.queryId,
      kind: 'top_item',
      subject: `awaited ${label(row['mode'])} on ${label(row['locktype'])}`.slice(0, 200),
      value: num(row[column]),
      unit: 'locks',
      attributes: { ...ctx.base, family: 'lock_waits', rank: i + 1, mode: label(row['mode']), lockType: label(row['locktype']) },
    }),
  );
  const lead = byWait[0];
  const text = `${ctx.purpose}: ${plural(held, 'lock')} held and ${fmt(awaited, 0)} awaited${lead ? `, most awaited ${label(lead['mode'])} on ${label(lead['locktype'])} (${fmt(num(lead[column]), 0)})` : ''}.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function replication(ctx: Context): SqlMaterialized {
  const total = ctx.rows.length;
  const lagOf = (r: Row) => num(r['replay_lag']) ?? num(r['flush_lag']) ?? num(r['write_lag']);
  const facts: EvidenceFactV1[] = [{ queryId: ctx.queryId, kind: 'count', subject: 'streaming replicas', value: total, unit: 'replicas', attributes: { ...ctx.base, ...family(total, 'replication_lag') } }];
  const ranked = [...ctx.rows].sort((a, b) => (lagOf(b) ?? -1) - (lagOf(a) ?? -1));
  ranked.slice(0, MAX_ITEMS).forEach((row, i) => {
    const bytes = num(row['replay_lag_bytes']);
    facts.push({
      queryId: ctx.queryId,
      kind: 'top_item',
      subject: `replica ${label(row['application_name'], `#${i + 1}`)}`.slice(0, 200),
      value: lagOf(row),
      unit: 's',
      attributes: {
        ...ctx.base,
        family: 'replication_lag',
        rank: i + 1,
        state: label(row['state']),
        syncState: label(row['sync_state']),
        ...(num(row['write_lag']) !== null ? { writeLagS: round(num(row['write_lag']) as number) } : {}),
        ...(num(row['flush_lag']) !== null ? { flushLagS: round(num(row['flush_lag']) as number) } : {}),
        ...(bytes !== null ? { replayLagBytes: bytes } : {}),
      },
    });
  });
  const lead = ranked[0];
  const text = lead
    ? `${ctx.purpose}: ${plural(total, 'streaming replica')}; the furthest behind (${label(lead['application_name'], '#1')}, ${label(lead['state'])}, ${label(lead['sync_state'])}) replays ${fmt(lagOf(lead), 2)} s behind${num(lead['replay_lag_bytes']) !== null ? ` and ${fmt(num(lead['replay_lag_bytes']), 0)} bytes` : ''}.`
    : `${ctx.purpose}: no streaming replica was attached.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

function topStatements(ctx: Context, totalColumn: string): SqlMaterialized {
  const calls = (r: Row) => num(r['calls']) ?? 0;
  const total = (r: Row) => num(r[totalColumn]) ?? 0;
  const mean = (r: Row) => num(r['mean_exec_time']) ?? num(r['mean_time']);
  const ranked = [...ctx.rows].sort((a, b) => total(b) - total(a));
  // With `all_exec_time` (the sum over every statement) a share is of all statement time, else of the top rows.
  const all = num(ranked[0]?.['all_exec_time']);
  const shareBasis = all !== null && all > 0 ? 'all statements' : 'top statements';
  const sum = all !== null && all > 0 ? all : ranked.reduce((s, r) => s + total(r), 0);
  const countFact: EvidenceFactV1 = { queryId: ctx.queryId, kind: 'count', subject: `${ctx.queryId}: statements`, value: ranked.length, unit: 'statements', attributes: { ...ctx.base, ...family(ranked.length, 'statement_latency') } };
  if (ranked.length === 0 || sum <= 0) {
    return { facts: [countFact], observations: [`${ctx.purpose}: no statement time recorded since the statistics reset.`], gaps: [] };
  }
  const share = (r: Row) => round((100 * total(r)) / sum, 1);
  const facts: EvidenceFactV1[] = ranked.slice(0, MAX_ITEMS).map((row, i) => ({
    queryId: ctx.queryId,
    kind: 'top_item',
    subject: `statement ${label(row['query_digest'], 'digest:unknown')} (${label(row['query_kind'], 'OTHER')})`.slice(0, 200),
    value: share(row),
    unit: '% of top statement time',
    attributes: {
      ...ctx.base,
      family: 'statement_latency',
      digest: label(row['query_digest'], 'digest:unknown'),
      rank: i + 1,
      statementType: label(row['query_kind'], 'OTHER'),
      share: share(row),
      ...(shareBasis === 'all statements' ? { shareBasis } : {}),
      execCount: calls(row),
      totalLatencyMs: round(total(row)),
      ...(mean(row) !== null ? { avgLatencyMs: round(mean(row) as number) } : {}),
      // Rows a call returned or changed: a bulk write touches thousands, a point lookup one.
      ...(num(row['rows']) !== null && calls(row) > 0 ? { rowsPerCall: round((num(row['rows']) as number) / calls(row), 1) } : {}),
      basis: 'since statistics reset',
    },
  }));
  const lead = ranked[0];
  const next = ranked[1];
  const text =
    `${ctx.purpose}: ${label(lead['query_digest'], 'digest:unknown')} (${label(lead['query_kind'], 'OTHER')}) took ${fmt(share(lead))}% of ${shareBasis === 'all statements' ? 'all statement execution time' : `the execution time of the ${ranked.length} top statements`} ` +
    `(${fmt(total(lead) / 1000)} s over ${fmt(calls(lead), 0)} calls, avg ${fmt(mean(lead))} ms)${next ? `; next ${label(next['query_digest'], 'digest:unknown')} ${fmt(share(next))}%` : ''}; cumulative since the statistics reset, read.`;
  return { facts: [...facts, countFact], observations: [text.slice(0, 500)], gaps: [] };
}

function connectionStates(ctx: Context, column: string): SqlMaterialized {
  const states = ctx.rows.map((r) => ({ state: label(r['state']), sessions: num(r[column]) ?? 0, longest: num(r['longest_in_state']) })).sort((a, b) => b.sessions - a.sessions);
  const total = states.reduce((s, r) => s + r.sessions, 0);
  const facts: EvidenceFactV1[] = [
    { queryId: ctx.queryId, kind: 'count', subject: 'connections total', value: total, unit: 'sessions', attributes: { ...ctx.base, ...family(total, 'connections') } },
    ...states.slice(0, 8).map(
      (s): EvidenceFactV1 => ({
        queryId: ctx.queryId,
        kind: 'count',
        subject: `connections state=${s.state}`.slice(0, 200),
        value: s.sessions,
        unit: 'sessions',
        attributes: { ...ctx.base, ...family(s.sessions, s.state === 'active' ? 'active_sessions' : 'connections'), state: s.state, ...(s.longest !== null ? { longestInStateS: round(s.longest) } : {}) },
      }),
    ),
  ];
  const stuck = states.find((s) => s.state.startsWith('idle in transaction') && s.sessions > 0);
  const parts = states.slice(0, 4).map((s) => `${fmt(s.sessions, 0)} ${s.state}`);
  const text = `${ctx.purpose}: ${plural(total, 'client session')}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}${stuck && stuck.longest !== null ? `; the longest ${stuck.state} for ${fmt(stuck.longest)} s` : ''}.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

/** Sessions by state and wait class (pg_stat_activity with `wait_event_type`), with the oldest transaction. */
function activityWaits(ctx: Context, column: string): SqlMaterialized {
  const groups = ctx.rows.map((r) => ({ state: label(r['state']), wait: label(r['wait_event_type'], 'none'), sessions: num(r[column]) ?? 0, oldest: num(r['oldest_xact_age_s']) })).sort((a, b) => b.sessions - a.sessions);
  const waitingOnLocks = groups.filter((g) => g.wait === 'Lock').reduce((s, g) => s + g.sessions, 0);
  const oldest = groups.reduce<number | null>((m, g) => (g.oldest !== null && (m === null || g.oldest > m) ? g.oldest : m), null);
  const facts: EvidenceFactV1[] = [
    countFact(ctx, 'sessions waiting on locks', waitingOnLocks, 'sessions', 'lock_waits'),
    ...groups.slice(0, 8).map((g) => countFact(ctx, `sessions state=${g.state} wait=${g.wait}`, g.sessions, 'sessions', g.wait === 'Lock' ? 'lock_waits' : g.state === 'active' ? 'active_sessions' : 'connections', { state: g.state, waitEventType: g.wait })),
  ];
  if (oldest !== null) facts.push(longTransaction(ctx, oldest));
  const text = `${ctx.purpose}: ${groups.slice(0, 4).map((g) => `${fmt(g.sessions, 0)} ${g.state}/${g.wait}`).join(', ') || 'no client session'}${oldest !== null ? `; the oldest open transaction is ${fmt(oldest)} s old` : ''}.`;
  return { facts, observations: [text.slice(0, 500)], gaps: [] };
}

/** Long transactions hold locks and keep old row versions: a transaction open a minute or more counts as long. */
export const LONG_TRANSACTION_S = 60;
export function longTransaction(ctx: Pick<Context, 'queryId' | 'base'>, ageS: number): EvidenceFactV1 {
  const fact = countFact(ctx, 'oldest open transaction age', round(ageS, 1), 's', 'locks', { thresholdS: LONG_TRANSACTION_S });
  // Younger than the threshold is a reading of "no long transaction", not a finding.
  return ageS >= LONG_TRANSACTION_S ? fact : { ...fact, attributes: { ...ctx.base, reads: 'locks', thresholdS: LONG_TRANSACTION_S } };
}

/** Checkpoints requested (WAL volume, explicit) vs timed, since the statistics reset. */
function checkpoints(ctx: Context): SqlMaterialized {
  const row = ctx.rows[0] ?? {};
  const timed = num(row['checkpoints_timed']) ?? 0;
  const requested = num(row['checkpoints_req']) ?? 0;
  const total = timed + requested;
  const share = total > 0 ? round((100 * requested) / total, 1) : 0;
  const basis = { basis: 'since statistics reset', ...(typeof row['stats_reset'] === 'string' ? { statsReset: label(row['stats_reset'], '') } : {}) };
  const facts: EvidenceFactV1[] = [
    countFact(ctx, 'checkpoints requested', requested, 'checkpoints', 'checkpoints', { requestedShare: share, ...basis }),
    { queryId: ctx.queryId, kind: 'count', subject: 'checkpoints timed', value: timed, unit: 'checkpoints', attributes: { ...ctx.base, reads: 'checkpoints', ...basis } },
  ];
  const text = `${ctx.purpose}: ${plural(requested, 'requested checkpoint')} and ${fmt(timed, 0)} timed since the statistics reset (${fmt(share)}% requested).`;
  return { facts, observations: [text], gaps: [] };
}

/** Temporary files, deadlocks and rollbacks summed over the databases (pg_stat_database). */
function databaseTotals(ctx: Context): SqlMaterialized {
  const sum = (c: string) => ctx.rows.reduce((s, r) => s + (num(r[c]) ?? 0), 0);
  const [tempFiles, tempBytes, deadlocks, rollbacks] = [sum('temp_files'), sum('temp_bytes'), sum('deadlocks'), sum('xact_rollback')];
  const basis = { basis: 'since statistics reset', databases: ctx.rows.length };
  const facts: EvidenceFactV1[] = [
    countFact(ctx, 'deadlocks', deadlocks, 'deadlocks', 'deadlocks', basis),
    countFact(ctx, 'temporary files', tempFiles, 'files', 'io_throughput', { tempBytes, ...basis }),
    countFact(ctx, 'rolled back transactions', rollbacks, 'transactions', 'rollbacks', basis),
  ];
  const text = `${ctx.purpose}: ${plural(deadlocks, 'deadlock')}, ${plural(tempFiles, 'temporary file')} (${fmt(tempBytes / 1_048_576)} MiB) and ${fmt(rollbacks, 0)} rollbacks since the statistics reset.`;
  return { facts, observations: [text], gaps: [] };
}

function otherRows(ctx: Context): SqlMaterialized {
  const total = ctx.result.rowCount;
  return {
    facts: [{ queryId: ctx.queryId, kind: 'count', subject: `${ctx.queryId}: rows`, value: total, unit: 'rows', attributes: { ...ctx.base, columns: ctx.result.columns.length } }],
    observations: [`${ctx.purpose}: ${plural(total, 'row')} from ${ctx.result.relations.join(', ') || 'the statistics views'}.`.slice(0, 500)],
    gaps: [],
  };
}

/**
 * Facts, one observation and gaps of a `sql` result (complete or empty), chosen by what it read:
 * settings (`name`, `setting`), blocked sessions (`blocked_by`), lock modes (`pg_locks` with
 * `granted`), replication (`pg_stat_replication`), top statements (`pg_stat_statements`), or
 * connection states (`pg_stat_activity` with `state` and a count); otherwise a row count. Null
 * for any other result shape.
 */
export function materializePgStats(queryId: string, purpose: string, raw: unknown): SqlMaterialized | null {
  const parsed = GenericSqlResult.safeParse(raw);
  if (!parsed.success) return null;
  const result = parsed.data;
  const ctx = sqlContext(queryId, purpose, result);
  const count = countColumn(result);
  const totalColumn = ['total_exec_time', 'total_time'].find((c) => result.columns.includes(c));
  const out = has(result, 'name', 'setting')
    ? settings(ctx)
    : has(result, 'blocked_by')
      ? blockedSessions(ctx)
      : reads(result, 'pg_locks') && has(result, 'granted') && count
        ? lockModes(ctx, count)
        : reads(result, 'pg_stat_replication')
          ? replication(ctx)
          : reads(result, 'pg_stat_statements') && totalColumn && has(result, 'query_digest')
            ? topStatements(ctx, totalColumn)
            : reads(result, 'pg_stat_activity') && has(result, 'state', 'wait_event_type') && count
              ? activityWaits(ctx, count)
              : reads(result, 'pg_stat_activity') && has(result, 'state') && count
                ? connectionStates(ctx, count)
                : has(result, 'checkpoints_timed', 'checkpoints_req')
                  ? checkpoints(ctx)
                  : reads(result, 'pg_stat_database') && has(result, 'temp_files', 'deadlocks')
                    ? databaseTotals(ctx)
                    : otherRows(ctx);
  return finishSql(out, ctx);
}

/** The context of a `sql` result: its rows by column and the attributes every fact carries. */
export function sqlContext(queryId: string, purpose: string, result: GenericSqlResult): Context {
  const readAt = Number.isNaN(Date.parse(result.readAt)) ? null : new Date(Date.parse(result.readAt)).toISOString();
  const base = { source: 'sql', ...(result.dialect === 'mysql' ? { dialect: 'mysql' } : {}), ...(readAt ? { readAt } : {}), ...(result.truncated ? { truncated: true } : {}) };
  return { queryId, purpose, result, rows: rowsOf(result), base };
}

/** Says when the statistics were read (they are "now", not the window) and that a cut result gives lower bounds. */
export function finishSql(out: SqlMaterialized, ctx: Context): SqlMaterialized {
  const readAt = typeof ctx.base['readAt'] === 'string' ? ctx.base['readAt'] : null;
  const note = ` Read at ${readAt ? hhmm(readAt) : 'execution time'}: the state when the batch ran, not a reading of the window.`;
  out.observations = out.observations.map((o) => `${o.slice(0, 500 - note.length)}${note}`);
  if (ctx.result.truncated) out.gaps.push(`${ctx.purpose} (${ctx.queryId}) returned more rows than the package keeps; counts are lower bounds`);
  return out;
}
