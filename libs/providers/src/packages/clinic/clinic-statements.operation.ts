import { escapeId, format } from 'mysql2';
import type { ClinicSlowQueryItem } from '../../connectors/clinic-api-connector';
import { runReadOnlySql, type SqlCell } from '../../connectors/mysql-connector';
import { ProviderError } from '../../core/provider-error';
import { opaqueRef } from '../../core/sanitize';
import type { ClinicSqlConfig } from './clinic.config';
import type { ClinicQueryOf } from './clinic-input.schema';
import { requireSqlEndpoint, statementTypeOf, tracked, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { SlowQueryResult, StatementsTransport, TopSqlResult } from './clinic-output.schema';

/** Tiers whose statement diagnostics Clinic collects and serves over its HTTP API. */
const API_TIERS = new Set(['dedicated', 'premium', 'enterprise', 'byoc']);
/** Tiers where only the cluster's own diagnostic tables hold them (read over SQL). */
const SQL_TIERS = new Set(['serverless', 'starter', 'essential', 'developer']);

const DEFAULT_LIMIT = 10;
/** Raw slow-query entries read from Clinic before grouping by digest. */
const SLOW_QUERY_FETCH_LIMIT = 1000;

/** The package, not the caller, decides how statement diagnostics are read, from verified metadata. */
export function statementsTransportFor(tier: string): StatementsTransport {
  const t = tier.trim().toLowerCase();
  if (API_TIERS.has(t)) return 'clinic_api';
  if (SQL_TIERS.has(t)) return 'sql';
  throw new ProviderError('PROVIDER.TARGET_REJECTED', `statement diagnostics are not available for the cluster tier "${tier.slice(0, 32)}"`);
}

const digestRef = (digest: string) => opaqueRef('digest', digest.toLowerCase());
const planRef = (digest: string | null | undefined) => (digest ? opaqueRef('plan_digest', digest.toLowerCase()) : null);
const sqlTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const num = (v: SqlCell | undefined): number | null => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** What the statement builders read: the configured system schema and the window. */
interface StatementContext {
  config: { sql?: Pick<ClinicSqlConfig, 'systemSchema'> };
  window: ClinicOperationContext['window'];
}

function systemTable(ctx: Pick<StatementContext, 'config'>, table: string): string {
  return `${escapeId(ctx.config.sql?.systemSchema ?? 'information_schema')}.${escapeId(table)}`;
}

/** TopSQL over `statements_summary` (the current interval) and `_history` (the earlier ones), by digest. */
export function topSqlStatement(ctx: StatementContext, limit: number): string {
  const columns = '`DIGEST`, `PLAN_DIGEST`, `STMT_TYPE`, `EXEC_COUNT`, `SUM_LATENCY`, `MAX_LATENCY`, `MAX_MEM`, `SUM_ERRORS`';
  const where = format('`SUMMARY_BEGIN_TIME` < ? AND `SUMMARY_END_TIME` > ?', [sqlTime(ctx.window.toMs), sqlTime(ctx.window.fromMs)]);
  return (
    'SELECT `DIGEST` AS digest, MAX(`PLAN_DIGEST`) AS plan_digest, MAX(`STMT_TYPE`) AS stmt_type, SUM(`EXEC_COUNT`) AS exec_count, ' +
    'SUM(`SUM_LATENCY`) AS sum_latency, MAX(`MAX_LATENCY`) AS max_latency, MAX(`MAX_MEM`) AS max_mem, SUM(`SUM_ERRORS`) AS errors ' +
    `FROM (SELECT ${columns} FROM ${systemTable(ctx, 'statements_summary')} WHERE ${where} ` +
    `UNION ALL SELECT ${columns} FROM ${systemTable(ctx, 'statements_summary_history')} WHERE ${where}) AS aoc_summary ` +
    `WHERE \`DIGEST\` IS NOT NULL GROUP BY \`DIGEST\` ORDER BY sum_latency DESC LIMIT ${limit}`
  );
}

/** The slow log of the window grouped by digest (one row more than `limit`, to tell truncation), and its total count. */
export function slowQueryStatements(ctx: StatementContext, limit: number, minTime: number): { groups: string; count: string } {
  const table = systemTable(ctx, 'slow_query');
  const where = format('`Time` >= ? AND `Time` < ? AND `Query_time` >= ?', [sqlTime(ctx.window.fromMs), sqlTime(ctx.window.toMs), minTime]);
  const groups =
    'SELECT `Digest` AS digest, COUNT(*) AS cnt, SUM(CASE WHEN `Succ` = 0 THEN 1 ELSE 0 END) AS failed, SUM(CASE WHEN `Is_internal` = 1 THEN 1 ELSE 0 END) AS internal, ' +
    'SUM(`Query_time`) AS total_time, MAX(`Query_time`) AS max_time, MAX(`Mem_max`) AS max_mem, MAX(`Process_keys`) AS max_keys, MIN(`Time`) AS first_seen, MAX(`Time`) AS last_seen, ' +
    "MAX(UPPER(SUBSTRING_INDEX(TRIM(`Query`), ' ', 1))) AS stmt_kind " +
    `FROM ${table} WHERE ${where} GROUP BY \`Digest\` ORDER BY total_time DESC LIMIT ${limit + 1}`;
  return { groups, count: `SELECT COUNT(*) AS total FROM ${table} WHERE ${where}` };
}

async function runInternalSql(ctx: ClinicOperationContext, sqlText: string) {
  const { endpoint, sql } = requireSqlEndpoint(ctx);
  const result = await runReadOnlySql(endpoint, sqlText, { signal: ctx.signal, limits: sql.limits, field: `${ctx.field} (diagnostic tables)` });
  const index = new Map(result.columns.map((c, i) => [c.toLowerCase(), i]));
  return result.rows.map((row) => (name: string): SqlCell | undefined => row[index.get(name) ?? -1]);
}

export async function runTopSqlQuery(q: ClinicQueryOf<'top_sql'>, ctx: ClinicOperationContext): Promise<OperationOutcome<TopSqlResult>> {
  const transport = statementsTransportFor(ctx.metadata.tier);
  const limit = q.limit ?? DEFAULT_LIMIT;
  let result: TopSqlResult;
  if (transport === 'clinic_api') {
    const { data } = await tracked(ctx, ctx.api.topSql({ startMs: ctx.window.fromMs, endMs: ctx.window.toMs, limit }, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }));
    const entries = [...data]
      .sort((a, b) => b.cpu_time_ms - a.cpu_time_ms)
      .slice(0, limit)
      .map((e) => ({
        digest_ref: digestRef(e.sql_digest),
        plan_digest_ref: planRef(e.plan_digest),
        statement_type: statementTypeOf(e.stmt_type),
        exec_count: e.exec_count,
        cpu_time_ms: round(e.cpu_time_ms),
        total_latency_ms: null,
        avg_latency_ms: e.avg_latency_ms ?? null,
        max_latency_ms: null,
        max_mem_bytes: null,
        error_count: null,
      }));
    result = { transport, order_by: 'cpu_time', entries };
  } else {
    const sqlText = topSqlStatement(ctx, limit);
    const rows = await runInternalSql(ctx, sqlText);
    const ms = (ns: number | null) => (ns === null ? null : round(ns / 1e6));
    const entries = rows.map((r) => {
      const exec = num(r('exec_count')) ?? 0;
      const sum = num(r('sum_latency'));
      return {
        digest_ref: digestRef(String(r('digest') ?? '')),
        plan_digest_ref: planRef(typeof r('plan_digest') === 'string' ? String(r('plan_digest')) : null),
        statement_type: statementTypeOf(typeof r('stmt_type') === 'string' ? String(r('stmt_type')) : null),
        exec_count: exec,
        cpu_time_ms: null,
        total_latency_ms: ms(sum),
        avg_latency_ms: sum !== null && exec > 0 ? ms(sum / exec) : null,
        max_latency_ms: ms(num(r('max_latency'))),
        max_mem_bytes: num(r('max_mem')),
        error_count: num(r('errors')),
      };
    });
    result = { transport, order_by: 'total_latency', entries };
  }
  return { status: result.entries.length === 0 ? 'empty' : 'complete', result };
}

type SlowGroup = SlowQueryResult['groups'][number];

/** Groups raw slow-query entries by digest; the statement and the entries themselves are dropped. */
function groupSlowQueries(items: readonly ClinicSlowQueryItem[], limit: number): SlowGroup[] {
  const groups = new Map<string, SlowGroup & { firstMs: number; lastMs: number }>();
  for (const item of items) {
    const key = item.digest.toLowerCase();
    const at = Date.parse(item.timestamp);
    const g = groups.get(key) ?? {
      digest_ref: digestRef(key),
      statement_type: statementTypeOf(item.stmt_type),
      count: 0,
      failed_count: 0,
      internal_count: 0,
      total_query_time_s: 0,
      max_query_time_s: 0,
      avg_query_time_s: 0,
      max_mem_bytes: null,
      max_process_keys: null,
      first_seen: null,
      last_seen: null,
      firstMs: Infinity,
      lastMs: -Infinity,
    };
    g.count += 1;
    if (item.succ === false) g.failed_count += 1;
    if (item.is_internal === true) g.internal_count += 1;
    g.total_query_time_s += item.query_time_s;
    g.max_query_time_s = Math.max(g.max_query_time_s, item.query_time_s);
    if (typeof item.mem_max_bytes === 'number') g.max_mem_bytes = Math.max(g.max_mem_bytes ?? 0, item.mem_max_bytes);
    if (typeof item.process_keys === 'number') g.max_process_keys = Math.max(g.max_process_keys ?? 0, item.process_keys);
    if (!Number.isNaN(at)) {
      g.firstMs = Math.min(g.firstMs, at);
      g.lastMs = Math.max(g.lastMs, at);
    }
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.total_query_time_s - a.total_query_time_s)
    .slice(0, limit)
    .map(({ firstMs, lastMs, ...g }) => ({
      ...g,
      total_query_time_s: round(g.total_query_time_s),
      max_query_time_s: round(g.max_query_time_s),
      avg_query_time_s: round(g.total_query_time_s / g.count),
      first_seen: Number.isFinite(firstMs) ? new Date(firstMs).toISOString() : null,
      last_seen: Number.isFinite(lastMs) ? new Date(lastMs).toISOString() : null,
    }));
}

export async function runSlowQueryQuery(q: ClinicQueryOf<'slow_query'>, ctx: ClinicOperationContext): Promise<OperationOutcome<SlowQueryResult>> {
  const transport = statementsTransportFor(ctx.metadata.tier);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const minTime = q.min_query_time_seconds ?? 0;
  let result: SlowQueryResult;
  if (transport === 'clinic_api') {
    const { data, truncated } = await tracked(
      ctx,
      ctx.api.slowQueries({ startMs: ctx.window.fromMs, endMs: ctx.window.toMs, limit: SLOW_QUERY_FETCH_LIMIT, minQueryTimeS: minTime }, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }),
    );
    // Clinic is asked for the window; entries outside it or under the threshold are not evidence.
    const inWindow = data.filter((i) => {
      const at = Date.parse(i.timestamp);
      return at >= ctx.window.fromMs && at < ctx.window.toMs && i.query_time_s >= minTime;
    });
    result = { transport, total_slow_queries: inWindow.length, truncated: truncated || data.length >= SLOW_QUERY_FETCH_LIMIT, groups: groupSlowQueries(inWindow, limit) };
  } else {
    const { groups: groupsSql, count: countSql } = slowQueryStatements(ctx, limit, minTime);
    const [rows, totals] = await Promise.all([runInternalSql(ctx, groupsSql), runInternalSql(ctx, countSql)]);
    const groups = rows.slice(0, limit).map((r) => {
      const count = num(r('cnt')) ?? 0;
      const total = num(r('total_time')) ?? 0;
      const first = r('first_seen');
      const last = r('last_seen');
      return {
        digest_ref: digestRef(String(r('digest') ?? '')),
        statement_type: statementTypeOf(typeof r('stmt_kind') === 'string' ? String(r('stmt_kind')) : null),
        count,
        failed_count: num(r('failed')) ?? 0,
        internal_count: num(r('internal')) ?? 0,
        total_query_time_s: round(total),
        max_query_time_s: round(num(r('max_time')) ?? 0),
        avg_query_time_s: count > 0 ? round(total / count) : 0,
        max_mem_bytes: num(r('max_mem')),
        max_process_keys: num(r('max_keys')),
        first_seen: typeof first === 'string' ? first : null,
        last_seen: typeof last === 'string' ? last : null,
      };
    });
    result = { transport, total_slow_queries: num(totals[0]?.('total')) ?? 0, truncated: rows.length > limit, groups };
  }
  return { status: result.groups.length === 0 ? 'empty' : 'complete', result };
}
