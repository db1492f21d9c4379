import { SlowQueryRow, StatementRow } from '@aoc/providers';
import { z } from 'zod';
import type { SlowQuery, TopSql } from './materialize-statements';

/**
 * TiDB Dashboard rows (the Wetech package's `slow_query` and `statements` results) converted to
 * the shapes the statement fact builders read, so one set of rules ranks statements whatever
 * surface they came from. The package keeps no SQL text, so the statement kind stays unknown.
 * TopSQL rows carry a rate without their window and are left to the generic note.
 */

const Rows = <R extends z.ZodType>(operation: string, row: R) =>
  z.object({ operation: z.literal(operation), rows: z.array(row), totalRows: z.number().optional(), omittedRows: z.number().optional(), executions: z.number().optional() }).loose();
const SlowRows = Rows('slow_query', SlowQueryRow);
const StatementRows = Rows('statements', StatementRow);

const TRANSPORT = 'tidb_dashboard';

function slowQuery(result: z.infer<typeof SlowRows>): SlowQuery {
  const groups = result.rows.map((r) => {
    const totalS = (r.totalQueryTimeMs ?? 0) / 1000;
    return {
      digest_ref: r.digestRef,
      statement_type: null,
      count: r.count,
      failed_count: 0,
      internal_count: 0,
      total_query_time_s: totalS,
      max_query_time_s: (r.maxQueryTimeMs ?? 0) / 1000,
      avg_query_time_s: r.count > 0 ? totalS / r.count : 0,
      max_mem_bytes: r.maxMemBytes,
      max_process_keys: null,
      first_seen: r.firstAt,
      last_seen: r.lastAt,
    };
  });
  const counted = groups.reduce((s, g) => s + g.count, 0);
  // Rows beyond the page's limit are still slow statements: the total is a lower bound then.
  return { transport: TRANSPORT, total_slow_queries: Math.max(counted, result.executions ?? 0), truncated: (result.omittedRows ?? 0) > 0, groups };
}

function statements(result: z.infer<typeof StatementRows>): TopSql {
  return {
    transport: TRANSPORT,
    order_by: 'total_latency',
    entries: result.rows.map((r) => ({
      digest_ref: r.digestRef,
      plan_digest_ref: null,
      statement_type: null,
      exec_count: r.execCount ?? 0,
      cpu_time_ms: null,
      total_latency_ms: r.totalLatencyMs,
      avg_latency_ms: r.avgLatencyMs,
      max_latency_ms: r.maxLatencyMs,
      max_mem_bytes: null,
      error_count: null,
    })),
  };
}

/** A dashboard slow-log or statements result in the fact builders' shape; null for anything else. */
export function dashboardRowsAsStatements(result: unknown): { kind: 'slow'; result: SlowQuery } | { kind: 'top'; result: TopSql } | null {
  const slow = SlowRows.safeParse(result);
  if (slow.success) return { kind: 'slow', result: slowQuery(slow.data) };
  const stmts = StatementRows.safeParse(result);
  if (stmts.success) return { kind: 'top', result: statements(stmts.data) };
  return null;
}
