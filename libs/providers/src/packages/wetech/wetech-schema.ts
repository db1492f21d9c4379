import { QueryId } from '@aoc/contracts';
import { z } from 'zod';
import { HOUR_MS } from '../../core/time-window';
import { INSTANCE_REF_PATTERN, ProtectedSeriesSchema } from '../../connectors/grafana-instance-ref';
import { SlowQueryRow, StatementRow, TopSqlRow } from './wetech-dashboard-rows';
import { ApidTicketKey } from './wetech-target';

/** Longest absolute window of any Wetech operation, checked before the browser starts. */
export const WETECH_MAX_WINDOW_MS = 6 * HOUR_MS;
/** TopSQL reads at most fifteen minutes. */
export const WETECH_TOP_SQL_MAX_WINDOW_MS = 15 * 60_000;
export const WETECH_MAX_POINTS = 11_000;

export const WETECH_OPERATIONS = ['promql_range', 'top_sql', 'statements', 'slow_query'] as const;
export type WetechOperation = (typeof WETECH_OPERATIONS)[number];

const Slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a lower-case inventory name');
export const WetechWindow = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }).strict();
const InstanceRef = z.string().max(700).regex(INSTANCE_REF_PATTERN, 'must be an instance reference returned by this package');
const Limit = z.number().int().min(1).max(20);

export const WetechPromqlEntry = z
  .object({
    id: QueryId,
    operation: z.literal('promql_range'),
    promql: z.string().min(1).max(4000),
    stepSeconds: z.number().int().min(1).max(3600).optional(),
    instanceRef: InstanceRef.optional(),
    window: WetechWindow.optional(),
  })
  .strict();

export const WetechTopSqlEntry = z
  .object({
    id: QueryId,
    operation: z.literal('top_sql'),
    /** The TiDB instance, as a reference returned by an earlier call ... */
    instanceRef: InstanceRef.optional(),
    /** ... or as one series of an earlier promql_range entry of the same batch. */
    instanceFrom: z.object({ queryId: QueryId, series: z.number().int().min(0).max(19) }).strict().optional(),
    limit: Limit.optional(),
    window: WetechWindow.optional(),
  })
  .strict()
  .refine((e) => (e.instanceRef === undefined) !== (e.instanceFrom === undefined), { path: ['instanceRef'], message: 'give exactly one of instanceRef or instanceFrom: TopSQL reads one metric-selected TiDB instance' });

export const WetechStatementsEntry = z
  .object({
    id: QueryId,
    operation: z.literal('statements'),
    orderBy: z.enum(['total_latency', 'exec_count', 'avg_latency', 'avg_mem']).optional(),
    limit: Limit.optional(),
    window: WetechWindow.optional(),
  })
  .strict();

export const WetechSlowQueryEntry = z
  .object({
    id: QueryId,
    operation: z.literal('slow_query'),
    orderBy: z.enum(['query_time', 'mem_max']).optional(),
    limit: Limit.optional(),
    window: WetechWindow.optional(),
  })
  .strict();

export const WetechEntry = z.discriminatedUnion('operation', [WetechPromqlEntry, WetechTopSqlEntry, WetechStatementsEntry, WetechSlowQueryEntry]);
export type WetechEntry = z.infer<typeof WetechEntry>;

export function defaultStepSeconds(spanMs: number): number {
  return Math.max(15, Math.ceil(spanMs / 1000 / 240));
}

export const WetechBatchInput = z
  .object({
    ticketKey: ApidTicketKey,
    region: Slug,
    cluster: Slug,
    window: WetechWindow,
    queries: z.array(WetechEntry).min(1).max(12),
  })
  .strict()
  .superRefine((input, ctx) => {
    const seen = new Set<string>();
    input.queries.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: ['queries', i, 'id'], message: `duplicate query id ${q.id}` });
      seen.add(q.id);
      if (q.operation === 'promql_range' && q.stepSeconds !== undefined) {
        const w = q.window ?? input.window;
        const span = Date.parse(w.to) - Date.parse(w.from);
        if (span > 0 && span / 1000 / q.stepSeconds + 1 > WETECH_MAX_POINTS) ctx.addIssue({ code: 'custom', path: ['queries', i, 'stepSeconds'], message: `a ${q.stepSeconds} s step gives more than ${WETECH_MAX_POINTS} points over the window; use a larger step` });
      }
    });
  });
export type WetechBatchInput = z.infer<typeof WetechBatchInput>;

export const WetechQueryOut = z
  .object({
    id: z.string(),
    operation: z.enum(WETECH_OPERATIONS),
    status: z.enum(['complete', 'empty', 'failed']),
    resultType: z.string().optional(),
    seriesCount: z.number().optional(),
    omittedSeries: z.number().optional(),
    instanceFiltered: z.boolean().optional(),
    series: z.array(ProtectedSeriesSchema).optional(),
    rows: z.array(z.union([TopSqlRow, StatementRow, SlowQueryRow])).optional(),
    totalRows: z.number().optional(),
    omittedRows: z.number().optional(),
    executions: z.number().optional(),
    error_code: z.string().optional(),
    detail_error: z.string().optional(),
  })
  .strict();
export type WetechQueryOut = z.infer<typeof WetechQueryOut>;

export const WetechBatchOutput = z
  .object({
    ticketKey: ApidTicketKey,
    target: z.string(),
    window: WetechWindow,
    queries: z.array(WetechQueryOut),
    truncated: z.boolean().optional(),
  })
  .strict();
export type WetechBatchOutput = z.infer<typeof WetechBatchOutput>;
