import { z } from 'zod';
import { opaqueRef } from '../../core/sanitize';
import type { DashboardRow } from '../../connectors/dashboard-tidb-connector';

/**
 * Compaction of dashboard rows: an opaque digest reference plus allowlisted numeric columns.
 * SQL text, instance addresses, users and databases never leave this module, whatever the page shows.
 */

const DIGEST = /^[0-9a-f]{16,128}$/;
export const DIGEST_REF = /^digest:[0-9a-f]{16}$/;

const num = z.number().nullable();

export const TopSqlRow = z.object({ digestRef: z.string().regex(DIGEST_REF), cpuTimeMs: num, execPerSec: num, avgLatencyMs: num, planCount: num }).strict();
export const StatementRow = z
  .object({ digestRef: z.string().regex(DIGEST_REF), execCount: num, avgLatencyMs: num, maxLatencyMs: num, totalLatencyMs: num, avgMemBytes: num, planCount: num })
  .strict();
export const SlowQueryRow = z
  .object({ digestRef: z.string().regex(DIGEST_REF), count: z.number(), maxQueryTimeMs: num, totalQueryTimeMs: num, maxMemBytes: num, firstAt: z.string().nullable(), lastAt: z.string().nullable() })
  .strict();
export type TopSqlRow = z.infer<typeof TopSqlRow>;
export type StatementRow = z.infer<typeof StatementRow>;
export type SlowQueryRow = z.infer<typeof SlowQueryRow>;

export interface CompactRows<R> {
  rows: R[];
  totalRows: number;
  omittedRows: number;
}

function numberCell(row: DashboardRow, column: string): number | null {
  const raw = row.cells[column];
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? round(n) : null;
}

/** Three decimals; a value too large to scale stays as it is (still finite). */
function round(n: number): number {
  const r = Math.round(n * 1000) / 1000;
  return Number.isFinite(r) ? r : n;
}

function digestRef(row: DashboardRow): string | null {
  const digest = row.digest.trim().toLowerCase();
  return DIGEST.test(digest) ? opaqueRef('digest', digest) : null;
}

function byDesc<R>(key: (r: R) => number | null): (a: R, b: R) => number {
  return (a, b) => (key(b) ?? -1) - (key(a) ?? -1);
}

function limited<R>(rows: R[], limit: number, totalRows: number, dropped: number): CompactRows<R> {
  return { rows: rows.slice(0, limit), totalRows, omittedRows: Math.max(0, rows.length - limit) + dropped };
}

export function compactTopSql(rows: readonly DashboardRow[], limit: number, totalRows: number): CompactRows<TopSqlRow> {
  const out: TopSqlRow[] = [];
  let dropped = 0;
  for (const row of rows) {
    const ref = digestRef(row);
    if (!ref) {
      dropped++;
      continue;
    }
    out.push({ digestRef: ref, cpuTimeMs: numberCell(row, 'cpu_time_ms'), execPerSec: numberCell(row, 'exec_count_per_sec'), avgLatencyMs: numberCell(row, 'avg_latency_ms'), planCount: numberCell(row, 'plan_count') });
  }
  out.sort(byDesc((r) => r.cpuTimeMs));
  return limited(out, limit, Math.max(totalRows, rows.length), dropped);
}

export type StatementOrder = 'total_latency' | 'exec_count' | 'avg_latency' | 'avg_mem';

export function compactStatements(rows: readonly DashboardRow[], limit: number, totalRows: number, order: StatementOrder): CompactRows<StatementRow> {
  const out: StatementRow[] = [];
  let dropped = 0;
  for (const row of rows) {
    const ref = digestRef(row);
    if (!ref) {
      dropped++;
      continue;
    }
    out.push({
      digestRef: ref,
      execCount: numberCell(row, 'exec_count'),
      avgLatencyMs: numberCell(row, 'avg_latency_ms'),
      maxLatencyMs: numberCell(row, 'max_latency_ms'),
      totalLatencyMs: numberCell(row, 'sum_latency_ms'),
      avgMemBytes: numberCell(row, 'avg_mem_bytes'),
      planCount: numberCell(row, 'plan_count'),
    });
  }
  const key: Record<StatementOrder, (r: StatementRow) => number | null> = { total_latency: (r) => r.totalLatencyMs, exec_count: (r) => r.execCount, avg_latency: (r) => r.avgLatencyMs, avg_mem: (r) => r.avgMemBytes };
  out.sort(byDesc(key[order]));
  return limited(out, limit, Math.max(totalRows, rows.length), dropped);
}

export type SlowQueryOrder = 'query_time' | 'mem_max';

/** Slow queries are single executions; they are grouped by digest so N rows describe N statements. */
export function compactSlowQueries(rows: readonly DashboardRow[], limit: number, totalRows: number, order: SlowQueryOrder): CompactRows<SlowQueryRow> & { executions: number } {
  const groups = new Map<string, { count: number; max: number | null; total: number | null; mem: number | null; first: number | null; last: number | null }>();
  let dropped = 0;
  for (const row of rows) {
    const ref = digestRef(row);
    if (!ref) {
      dropped++;
      continue;
    }
    const time = numberCell(row, 'query_time_ms');
    const mem = numberCell(row, 'mem_max_bytes');
    const at = numberCell(row, 'timestamp');
    const g = groups.get(ref) ?? { count: 0, max: null, total: null, mem: null, first: null, last: null };
    g.count++;
    if (time !== null) {
      g.max = Math.max(g.max ?? 0, time);
      const total = (g.total ?? 0) + time;
      g.total = Number.isFinite(total) ? round(total) : Number.MAX_VALUE;
    }
    if (mem !== null) g.mem = Math.max(g.mem ?? 0, mem);
    if (at !== null) {
      g.first = g.first === null ? at : Math.min(g.first, at);
      g.last = g.last === null ? at : Math.max(g.last, at);
    }
    groups.set(ref, g);
  }
  const iso = (s: number | null) => (s === null || s > 8.64e12 ? null : new Date(s * 1000).toISOString());
  const out: SlowQueryRow[] = [...groups.entries()].map(([ref, g]) => ({ digestRef: ref, count: g.count, maxQueryTimeMs: g.max, totalQueryTimeMs: g.total, maxMemBytes: g.mem, firstAt: iso(g.first), lastAt: iso(g.last) }));
  out.sort(byDesc(order === 'query_time' ? (r) => r.maxQueryTimeMs : (r) => r.maxMemBytes));
  return { ...limited(out, limit, out.length, dropped), totalRows: out.length, executions: Math.max(totalRows, rows.length) };
}
