import type { EvidenceFactV1 } from '@aoc/contracts';
import { SlowQueryResult, TopSqlResult } from '@aoc/providers';
import { z } from 'zod';
import { dashboardRowsAsStatements } from './materialize-dashboard-rows';

/**
 * Compact facts from statement-level Clinic results (TopSQL, slow query by digest). Only the
 * package's opaque digest references, statement kinds and numbers are used; there is no SQL
 * text in these results to begin with. Facts are `top_item`s ranked by share, so mechanism
 * rules can read the lead statement of a query and compare a digest across two windows.
 */

export interface StatementMaterialized {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
}

/** Digests kept per query; the lead one decides, the next ones give context. */
const MAX_ITEMS = 5;

function num(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return 'n/a';
  const abs = Math.abs(n);
  const rounded = abs >= 100 ? Math.round(n) : Math.round(n * 10 ** digits) / 10 ** digits;
  return rounded.toLocaleString('en-US', { maximumFractionDigits: digits });
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const hhmm = (iso: string | null) => (iso ? `${iso.slice(11, 16)}Z` : 'n/a');

/**
 * The shapes the fact builders read: Clinic's results as they are, and other sources' statement
 * rows converted to them (`materialize-dashboard-rows.ts`), where the statement kind may be unknown.
 */
type Unkinded<T> = { [K in keyof T]: K extends 'statement_type' ? string | null : T[K] };
export type TopSql = Omit<z.infer<typeof TopSqlResult>, 'transport' | 'entries'> & { transport: string; entries: Unkinded<z.infer<typeof TopSqlResult>['entries'][number]>[] };
export type SlowQuery = Omit<z.infer<typeof SlowQueryResult>, 'transport' | 'groups'> & { transport: string; groups: Unkinded<z.infer<typeof SlowQueryResult>['groups'][number]>[] };
/** `digest (kind)`, or the digest alone where the source keeps no statement kind. */
const named = (digest: string, kind: string | null) => (kind ? `${digest} (${kind})` : digest);

interface PlanStats {
  plan: string;
  execCount: number;
  basis: number;
  avgLatencyMs: number | null;
}

interface DigestStats {
  digest: string;
  statementType: string | null;
  execCount: number;
  basis: number;
  avgLatencyMs: number | null;
  plans: PlanStats[];
}

/** Execution-weighted average of per-entry averages (null when no entry has one). */
function weightedAvg(items: readonly { execCount: number; avg: number | null | undefined }[]): number | null {
  const known = items.filter((i): i is { execCount: number; avg: number } => typeof i.avg === 'number' && i.execCount > 0);
  const execs = known.reduce((s, i) => s + i.execCount, 0);
  return execs > 0 ? known.reduce((s, i) => s + i.avg * i.execCount, 0) / execs : null;
}

function byDigest(result: TopSql): DigestStats[] {
  const basisOf = (e: TopSql['entries'][number]) => (result.order_by === 'cpu_time' ? (e.cpu_time_ms ?? 0) : (e.total_latency_ms ?? 0));
  const groups = new Map<string, TopSql['entries']>();
  for (const e of result.entries) groups.set(e.digest_ref, [...(groups.get(e.digest_ref) ?? []), e]);
  return [...groups.entries()]
    .map(([digest, entries]) => {
      const plans = new Map<string, PlanStats & { parts: TopSql['entries'] }>();
      for (const e of entries) {
        if (!e.plan_digest_ref) continue;
        const p = plans.get(e.plan_digest_ref) ?? { plan: e.plan_digest_ref, execCount: 0, basis: 0, avgLatencyMs: null, parts: [] };
        p.execCount += e.exec_count;
        p.basis += basisOf(e);
        p.parts.push(e);
        plans.set(e.plan_digest_ref, p);
      }
      return {
        digest,
        statementType: entries[0].statement_type,
        execCount: entries.reduce((s, e) => s + e.exec_count, 0),
        basis: entries.reduce((s, e) => s + basisOf(e), 0),
        avgLatencyMs: weightedAvg(entries.map((e) => ({ execCount: e.exec_count, avg: e.avg_latency_ms }))),
        plans: [...plans.values()].map(({ parts, ...p }) => ({ ...p, avgLatencyMs: weightedAvg(parts.map((e) => ({ execCount: e.exec_count, avg: e.avg_latency_ms }))) })),
      };
    })
    .sort((a, b) => b.basis - a.basis);
}

/** Slowest and fastest plan of a digest by average latency, when it ran with two or more. */
function planSpread(d: DigestStats): { slow: PlanStats; fast: PlanStats; ratio: number } | null {
  const timed = d.plans.filter((p): p is PlanStats & { avgLatencyMs: number } => p.avgLatencyMs !== null).sort((a, b) => b.avgLatencyMs - a.avgLatencyMs);
  if (timed.length < 2) return null;
  const slow = timed[0];
  const fast = timed[timed.length - 1];
  return fast.avgLatencyMs > 0 ? { slow, fast, ratio: slow.avgLatencyMs / fast.avgLatencyMs } : null;
}

export function topSqlFacts(queryId: string, purpose: string, result: TopSql): StatementMaterialized {
  const cpu = result.order_by === 'cpu_time';
  const digests = byDigest(result);
  const total = digests.reduce((s, d) => s + d.basis, 0);
  if (digests.length === 0 || total <= 0) {
    return { facts: [{ queryId, kind: 'count', subject: `${queryId}: statements`, value: digests.length, unit: null, attributes: {} }], observations: [], gaps: [`${purpose} (${queryId}) recorded no statement time for the window`] };
  }
  const share = (d: DigestStats) => (100 * d.basis) / total;
  const facts: EvidenceFactV1[] = digests.slice(0, MAX_ITEMS).map((d, i) => {
    const spread = planSpread(d);
    return {
      queryId,
      kind: 'top_item',
      subject: `statement ${named(d.digest, d.statementType)}`,
      value: round(share(d), 1),
      unit: cpu ? '% of TopSQL CPU time' : '% of top statement time',
      attributes: {
        digest: d.digest,
        rank: i + 1,
        ...(d.statementType ? { statementType: d.statementType } : {}),
        share: round(share(d), 1),
        execCount: d.execCount,
        [cpu ? 'cpuTimeMs' : 'totalLatencyMs']: round(d.basis),
        ...(d.avgLatencyMs !== null ? { avgLatencyMs: round(d.avgLatencyMs) } : {}),
        plans: d.plans.length,
        ...(spread
          ? {
              planLatencyRatio: round(spread.ratio, 2),
              slowPlan: spread.slow.plan,
              slowPlanAvgMs: round(spread.slow.avgLatencyMs ?? 0),
              slowPlanExecCount: spread.slow.execCount,
              fastPlan: spread.fast.plan,
              fastPlanAvgMs: round(spread.fast.avgLatencyMs ?? 0),
              fastPlanExecCount: spread.fast.execCount,
            }
          : {}),
        transport: result.transport,
      },
    };
  });
  const lead = digests[0];
  const next = digests[1];
  const spread = planSpread(lead);
  const basisText = cpu ? `${num(lead.basis / 1000)} CPU-s` : `${num(lead.basis / 1000)} s in total`;
  const observation =
    `${purpose}: ${named(lead.digest, lead.statementType)} took ${num(share(lead))}% of the ${cpu ? 'CPU' : 'execution'} time of the ${digests.length} top statements ` +
    `(${basisText} over ${num(lead.execCount, 0)} executions, avg ${num(lead.avgLatencyMs)} ms)` +
    (next ? `; next ${next.digest} ${num(share(next))}%` : '') +
    (spread
      ? `. It ran with ${lead.plans.length} plans: ${spread.slow.plan} avg ${num(spread.slow.avgLatencyMs)} ms over ${num(spread.slow.execCount, 0)} executions vs ${spread.fast.plan} avg ${num(spread.fast.avgLatencyMs)} ms over ${num(spread.fast.execCount, 0)} (${num(spread.ratio)}x slower)`
      : '') +
    '.';
  return { facts, observations: [observation.slice(0, 500)], gaps: [] };
}

export function slowQueryFacts(queryId: string, purpose: string, result: SlowQuery): StatementMaterialized {
  const total = result.total_slow_queries;
  const countFact: EvidenceFactV1 = { queryId, kind: 'count', subject: `${queryId}: slow statements`, value: total, unit: 'statements', attributes: { truncated: result.truncated, digests: result.groups.length } };
  const gaps = result.truncated ? [`${purpose} (${queryId}) hit the provider's entry limit; counts are lower bounds`] : [];
  if (result.groups.length === 0) {
    return { facts: [countFact], observations: [`${purpose}: no statement reached the slow-log threshold.`], gaps };
  }
  const groups = [...result.groups].sort((a, b) => b.count - a.count || b.total_query_time_s - a.total_query_time_s);
  const share = (count: number) => (total > 0 ? (100 * count) / total : 0);
  const facts: EvidenceFactV1[] = groups.slice(0, MAX_ITEMS).map((g, i) => ({
    queryId,
    kind: 'top_item',
    subject: `slow statement ${named(g.digest_ref, g.statement_type)}`,
    value: g.count,
    unit: 'slow statements',
    attributes: {
      digest: g.digest_ref,
      rank: i + 1,
      ...(g.statement_type ? { statementType: g.statement_type } : {}),
      count: g.count,
      share: round(share(g.count), 1),
      avgQueryTimeS: round(g.avg_query_time_s),
      maxQueryTimeS: round(g.max_query_time_s),
      totalQueryTimeS: round(g.total_query_time_s),
      failedCount: g.failed_count,
      ...(g.first_seen ? { firstSeen: g.first_seen } : {}),
      ...(g.last_seen ? { lastSeen: g.last_seen } : {}),
      ...(typeof g.max_process_keys === 'number' ? { maxProcessKeys: g.max_process_keys } : {}),
    },
  }));
  const lead = groups[0];
  const next = groups[1];
  const observation =
    `${purpose}: ${num(total, 0)} slow statements; ${named(lead.digest_ref, lead.statement_type)} ${num(lead.count, 0)} of them (${num(share(lead.count))}%), ` +
    `avg ${num(lead.avg_query_time_s, 2)} s, max ${num(lead.max_query_time_s, 2)} s, first at ${hhmm(lead.first_seen)}` +
    (next ? `; next ${next.digest_ref} ${num(next.count, 0)}` : '') +
    '.';
  return { facts: [...facts, countFact], observations: [observation.slice(0, 500)], gaps };
}

/**
 * Facts, observations and gaps of a TopSQL or slow-query result (complete or empty); null for
 * any other result shape, which the metric summariser handles.
 */
export function materializeStatements(queryId: string, purpose: string, result: unknown): StatementMaterialized | null {
  const top = TopSqlResult.safeParse(result);
  if (top.success) return topSqlFacts(queryId, purpose, top.data);
  const slow = SlowQueryResult.safeParse(result);
  if (slow.success) return slowQueryFacts(queryId, purpose, slow.data);
  const rows = dashboardRowsAsStatements(result);
  if (rows?.kind === 'top') return topSqlFacts(queryId, purpose, rows.result);
  if (rows?.kind === 'slow') return slowQueryFacts(queryId, purpose, rows.result);
  return null;
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Clinic's metrics results name their fields in snake case; the metric summariser reads (and
 * validates) the generic Prometheus package's camel-case shape. Other results pass through.
 */
export function asSeriesResult(result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const r = result as Record<string, unknown>;
  if (typeof r['series_count'] !== 'number' || !Array.isArray(r['series'])) return result;
  return {
    resultType: r['result_type'],
    seriesCount: r['series_count'],
    omittedSeries: r['omitted_series'],
    series: r['series'].map((s: unknown) => (typeof s === 'object' && s !== null ? Object.fromEntries(Object.entries(s).map(([k, v]) => [camel(k), v])) : s)),
  };
}
