import { QueryId } from '@aoc/contracts';
import { z } from 'zod';
import { CLINIC_BATCH_LIMITS, runBatch } from '../../core/batch-scheduler';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import type { CatalogListing, EvidenceBatchRequest, EvidenceOperation, EvidencePackage, EvidenceRunOptions, PlannedProviderQuery, TargetListing } from '../../core/evidence-package';
import { runPlannedBatch } from '../../core/planned-batch';
import { ProviderError } from '../../core/provider-error';
import { clampWindow, DAY_MS, HOUR_MS } from '../../core/time-window';
import type { ToolSpec } from '../../core/tool-spec';
import { recordOf } from '../../connectors/http-client';
import { mySqlStatsSecrets, type MySqlStatsEndpoint } from '../../connectors/mysql-connector';
import { postgresStatsSecrets, type PostgresStatsEndpoint } from '../../connectors/postgres-connector';
import { MAX_POINTS_PER_SERIES, queryPrometheus, SeriesSummarySchema, type PromEndpoint } from '../../connectors/prometheus-connector';
import { discoverMetrics, listTargetValues, SAFE_TARGET_VALUE } from '../../connectors/prometheus-discovery';
import { unboundSelectors, validatePromQl } from '../../validation/promql';
import { MAX_SQL_LENGTH } from '../../validation/read-only-sql';
import { GenericLogsResult, LOGS_MAX_LIMIT, LOGS_MAX_WINDOW_MS, runGenericLogs, type GenericLogsEndpoint } from './generic-logs.operation';
import { runGenericMySql } from './generic-mysql-stats';
import { channelNotConfigured, GenericChannelResult, GenericSqlResult, runGenericSql } from './generic-sql.operation';

export { GenericLogsResult, LOG_PATTERNS, redactLogSample, summariseLogLines, validateTargetLogQl, type GenericLogsEndpoint } from './generic-logs.operation';
export { GenericChannelResult, GenericSqlResult } from './generic-sql.operation';
export { validateReadOnlyMySqlStats, MYSQL_STATS_RELATIONS } from '../../validation/read-only-mysql-stats';

const Window = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) });

const MetricQuery = z
  .object({
    id: QueryId,
    kind: z.enum(['range', 'instant']),
    promql: z.string().min(1).max(4000),
    stepSeconds: z.number().int().min(1).max(3600).optional(),
  })
  .strict();
/** One allowlisted SELECT over PostgreSQL statistics views or MySQL statistics tables; reads the current state, not the window. */
const SqlQuery = z.object({ id: QueryId, kind: z.literal('sql'), sql: z.string().min(1).max(MAX_SQL_LENGTH) }).strict();
/** One LogQL log query (summary mode) whose selector carries the target matcher. */
const LogsQuery = z.object({ id: QueryId, kind: z.literal('logs'), logql: z.string().min(1).max(4000), limit: z.number().int().min(1).max(LOGS_MAX_LIMIT).optional() }).strict();
const BatchQuery = z.discriminatedUnion('kind', [MetricQuery, SqlQuery, LogsQuery]);
type BatchQuery = z.infer<typeof BatchQuery>;

export const PrometheusBatchInput = z
  .object({
    target: z.string().min(1).max(64),
    window: Window,
    queries: z
      .array(BatchQuery)
      .min(1)
      .max(12)
      .refine((qs) => new Set(qs.map((q) => q.id)).size === qs.length, { message: 'query ids must be unique' }),
  })
  .strict();
export type PrometheusBatchInput = z.infer<typeof PrometheusBatchInput>;

const MetricOut = z.object({
  id: z.string(),
  status: z.enum(['complete', 'empty', 'failed']),
  resultType: z.string().optional(),
  seriesCount: z.number().optional(),
  omittedSeries: z.number().optional(),
  series: z.array(SeriesSummarySchema).optional(),
  /** Set when the result held more series than the package summarises: how many it did (the rest only counted). */
  scoredSeries: z.number().optional(),
  /** Set when the batch window exceeded the metrics limit: the window this query read (its last part, up to the limit). */
  clampedWindow: Window.optional(),
  /** Set when the planned step would give more points than Prometheus serves over the window: the step used. */
  stepSeconds: z.number().optional(),
  error_code: z.string().optional(),
  detail_error: z.string().optional(),
});
export type PrometheusMetricOut = z.infer<typeof MetricOut>;
const SqlOut = GenericSqlResult.extend({ id: z.string(), status: z.enum(['complete', 'empty']) }).strict();
const LogsOut = GenericLogsResult.extend({ id: z.string(), status: z.enum(['complete', 'empty']) }).strict();
const ChannelOut = GenericChannelResult.extend({ id: z.string(), status: z.literal('empty') }).strict();

export const PrometheusBatchOutput = z.object({
  target: z.string(),
  window: Window,
  queries: z.array(z.union([SqlOut, LogsOut, ChannelOut, MetricOut])),
});
export type PrometheusBatchOutput = z.infer<typeof PrometheusBatchOutput>;

/** Longest metrics window one call reads; a longer batch window is read for its last part up to this. */
export const METRICS_MAX_WINDOW_MS = 30 * DAY_MS;
/** How far before the window a range query reads, for the median of that hour (`priorMedian`). */
const PRIOR_MS = HOUR_MS;

export const prometheusBatchSpec = {
  name: 'prometheus_query_batch',
  description:
    'Runs up to 12 read-only queries against one configured Prometheus-compatible target: PromQL range or instant queries (compact per-series summaries), and where the target\'s endpoint has them, one allowlisted SELECT over PostgreSQL statistics views or, for a MySQL/MariaDB target, over performance_schema/information_schema statistics tables (sql: the current state at execution time, statement text only as digests) or a LogQL log query in summary mode (logs: counts by level and pattern, a few redacted sample lines).',
  input: PrometheusBatchInput,
  output: PrometheusBatchOutput,
  riskLevel: 'L0',
  accessMode: 'read',
  surfaces: ['evidence_agent', 'provider_executor'],
  networkMode: 'restricted',
  limits: { maxWindowMs: { metrics: METRICS_MAX_WINDOW_MS, logs: LOGS_MAX_WINDOW_MS }, timeoutMs: CLINIC_BATCH_LIMITS.outerMs, maxOutputBytes: 256 * 1024, maxQueries: 12, concurrency: 6 },
} as const satisfies ToolSpec;

export const DEFAULT_TARGET_LABEL = 'cluster';

/**
 * One configured endpoint. Without `targetLabel` it is a single target named `name` (selected by
 * `cluster="<name>"`); with it, the endpoint serves every value of that label it holds (its
 * inventory), e.g. one Prometheus with the cloud-monitoring metrics of many database instances.
 * `postgres` adds `sql` (statistics views of that one database), `mysql` adds the same `sql`
 * over a MySQL/MariaDB server's statistics tables, and `loki` adds `logs`.
 */
export interface PrometheusTarget extends PromEndpoint {
  name: string;
  targetLabel?: string;
  /** Secret: the read-only (ideally pg_monitor) account of the target's PostgreSQL. */
  postgres?: PostgresStatsEndpoint;
  /**
   * With `targetLabel`, the one inventory target `postgres` belongs to (a PostgreSQL server is one
   * database instance, never every value of the label); without `targetLabel` it is `name`.
   */
  postgresTarget?: string;
  /** Secret: the read-only account of the target's MySQL/MariaDB (statement statistics, status, locks). */
  mysql?: MySqlStatsEndpoint;
  /** As `postgresTarget`, for `mysql`. */
  mysqlTarget?: string;
  /** Loki of the endpoint's targets; its selector label defaults to the endpoint's target label. */
  loki?: GenericLogsEndpoint;
}

/** The operations the package serves for one target of an endpoint. */
export function targetOperations(endpoint: PrometheusTarget, target: string): EvidenceOperation[] {
  const ops: EvidenceOperation[] = ['promql_range', 'promql_instant'];
  if (sqlFor(endpoint, target)) ops.push('sql');
  if (endpoint.loki) ops.push('logs');
  return ops;
}

type SqlServer = { dialect: 'postgresql'; endpoint: PostgresStatsEndpoint } | { dialect: 'mysql'; endpoint: MySqlStatsEndpoint };

/** The SQL server of one target: an endpoint's `postgres` or `mysql` belongs to one target only. */
function sqlFor(endpoint: PrometheusTarget, target: string): SqlServer | null {
  const owns = (named: string | undefined) => (endpoint.targetLabel ? named : (named ?? endpoint.name)) === target;
  if (endpoint.postgres && owns(endpoint.postgresTarget)) return { dialect: 'postgresql', endpoint: endpoint.postgres };
  if (endpoint.mysql && owns(endpoint.mysqlTarget)) return { dialect: 'mysql', endpoint: endpoint.mysql };
  return null;
}

/** The Loki label whose exact value selects a target of this endpoint in every stream selector. */
export function logsLabelOf(endpoint: PrometheusTarget): string | null {
  return endpoint.loki ? (endpoint.loki.selectorLabel ?? endpoint.targetLabel ?? DEFAULT_TARGET_LABEL) : null;
}

/** Every value of the endpoints that must never appear in a result. */
export function prometheusTargetSecrets(targets: readonly PrometheusTarget[]): string[] {
  return targets.flatMap((t) => [
    ...(t.secrets ?? []),
    t.baseUrl,
    ...(t.postgres ? postgresStatsSecrets(t.postgres) : []),
    ...(t.mysql ? mySqlStatsSecrets(t.mysql) : []),
    ...(t.loki ? [...(t.loki.secrets ?? []), t.loki.baseUrl] : []),
  ]);
}

/** An endpoint resolved for a target, with the label every query must bind. */
interface ResolvedEndpoint {
  endpoint: PrometheusTarget;
  label: string;
}

/** How long a listed inventory answers target checks before the endpoint is asked again. */
const INVENTORY_TTL_MS = 5 * 60_000;
const INVENTORY_LOOKBACK_MS = 30 * DAY_MS;

/**
 * Target resolution of the package: exact configured names first, then the inventories of the
 * labelled endpoints (cached, refreshed on a miss at most once per TTL).
 */
class PrometheusTargets {
  private readonly byName: Map<string, PrometheusTarget>;
  private readonly labelled: PrometheusTarget[];
  private cache = new Map<string, PrometheusTarget>();
  private listedAt = 0;

  constructor(readonly all: readonly PrometheusTarget[]) {
    this.byName = new Map(all.filter((t) => !t.targetLabel).map((t) => [t.name, t]));
    this.labelled = all.filter((t) => t.targetLabel);
  }

  /** Synchronous shape check before anything runs; membership of labelled inventories is checked in `resolve`. */
  mayServe(target: string): boolean {
    return this.byName.has(target) || (this.labelled.length > 0 && SAFE_TARGET_VALUE.test(target));
  }

  async resolve(target: string, signal?: AbortSignal): Promise<ResolvedEndpoint> {
    const named = this.byName.get(target);
    if (named) return { endpoint: named, label: DEFAULT_TARGET_LABEL };
    if (!this.cache.has(target) && Date.now() - this.listedAt > INVENTORY_TTL_MS) await this.list(signal);
    const endpoint = this.cache.get(target);
    if (!endpoint) throw new ProviderError('PROVIDER.TARGET_REJECTED', `target "${target}" is not in the inventory of any configured endpoint`);
    return { endpoint, label: endpoint.targetLabel ?? DEFAULT_TARGET_LABEL };
  }

  async list(signal?: AbortSignal): Promise<TargetListing> {
    const now = Date.now();
    const targets = new Map<string, PrometheusTarget>();
    let truncated = false;
    let failureCode: string | null = null;
    for (const endpoint of this.labelled) {
      try {
        const listed = await listTargetValues(endpoint, endpoint.targetLabel as string, { startMs: now - INVENTORY_LOOKBACK_MS, endMs: now, signal, retryDelaysMs: [250] });
        truncated ||= listed.truncated;
        for (const value of listed.values) if (!targets.has(value)) targets.set(value, endpoint);
      } catch (error) {
        failureCode = error instanceof ProviderError ? error.code : 'PROVIDER.UNREACHABLE';
      }
    }
    if (failureCode === null || targets.size > 0) {
      this.cache = targets;
      this.listedAt = now;
    }
    const names = [...new Set([...this.byName.keys(), ...targets.keys()])].sort();
    const ok = failureCode === null || names.length > 0;
    return { status: ok ? 'listed' : 'unavailable', targets: names.map((target) => ({ target, aliases: [] })), truncated, failureCode };
  }
}

/**
 * Generic Prometheus package: any Prometheus-compatible endpoint, same limits as Clinic metrics.
 * Targets are configured by the operator or listed from a labelled endpoint's inventory; the
 * caller names one exactly, never supplies a URL, and every selector must carry the target's
 * exact label matcher. Where the target's endpoint has them, `sql` reads PostgreSQL statistics
 * views (the current state at execution time) and `logs` summarises a LogQL log query.
 */
export function prometheusPackage(targets: readonly PrometheusTarget[], limits = CLINIC_BATCH_LIMITS, resolver = new PrometheusTargets(targets)): ToolImplementation<typeof prometheusBatchSpec> {
  const secrets = prometheusTargetSecrets(targets);
  return {
    spec: prometheusBatchSpec,
    secrets: () => secrets,
    checkTarget: (input) => {
      if (!resolver.mayServe(input.target)) throw new ProviderError('PROVIDER.TARGET_REJECTED', `target "${input.target}" is not configured for this package`);
    },
    // `sql` reads no window (the views are "now"); `logs` windows are bounded per entry at a day.
    // A metrics window longer than the limit is read for its last part up to the limit (each metric result says so).
    windows: (input) => [{ operation: 'metrics', window: clampWindow(input.window, METRICS_MAX_WINDOW_MS).window }],
    run: async (input, ctx) => {
      const { endpoint: target, label } = await resolver.resolve(input.target, ctx.signal);
      const metricsWindow = clampWindow(input.window, METRICS_MAX_WINDOW_MS);
      const startMs = Date.parse(metricsWindow.window.from);
      const endMs = Date.parse(metricsWindow.window.to);
      const spanSeconds = (endMs - startMs) / 1000;
      // The step the planner asked for, raised where it would give more points than Prometheus serves.
      const stepOf = (q: { stepSeconds?: number }) => Math.max(q.stepSeconds ?? Math.max(15, Math.ceil(spanSeconds / 240)), Math.ceil(spanSeconds / (MAX_POINTS_PER_SERIES - 1)));
      const runOne = async (q: BatchQuery, signal: AbortSignal): Promise<unknown> => {
        // A channel the endpoint does not have is answered as such: a gap, never a reading.
        if (q.kind === 'sql') {
          const server = sqlFor(target, input.target);
          if (!server) return channelNotConfigured('statements');
          return server.dialect === 'mysql' ? runGenericMySql(q, server.endpoint, signal) : runGenericSql(q, server.endpoint, signal);
        }
        if (q.kind === 'logs') {
          const loki = target.loki;
          if (!loki) return channelNotConfigured('logs');
          return runGenericLogs(q, { endpoint: loki, label: logsLabelOf(target) as string, target: input.target, window: input.window, secrets }, { signal, record: (record) => ctx.record(q.id, record) });
        }
        const promql = validatePromQl(q.promql, `queries.${q.id}.promql`);
        const unbound = unboundSelectors(promql, label, input.target);
        if (unbound.length > 0) throw new ProviderError('PROVIDER.QUERY_REJECTED', `queries.${q.id}.promql: every selector needs ${label}="${input.target}"; not bound: ${unbound.slice(0, 3).join(', ')}`);
        try {
          const { result, record } = await queryPrometheus(
            target,
            q.kind === 'range'
              ? // The hour before the window is read too, within the metrics limit, for its median (`priorMedian`).
                { kind: 'range', promql, startMs, endMs, stepSeconds: stepOf(q), priorStartMs: Math.max(startMs - PRIOR_MS, endMs - METRICS_MAX_WINDOW_MS) }
              : { kind: 'instant', promql, atMs: endMs },
            { signal },
          );
          ctx.record(q.id, record);
          return result;
        } catch (error) {
          const record = recordOf(error);
          if (record) ctx.record(q.id, record);
          throw error;
        }
      };
      const outcomes = await runBatch(input.queries, runOne, limits, ctx.signal);
      return {
        target: input.target,
        window: input.window,
        queries: input.queries.map((q) => {
          const o = outcomes.get(q.id);
          if (!o || !o.ok) {
            const error = o && !o.ok ? o.error : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'query did not run');
            return { id: q.id, status: 'failed' as const, error_code: error.code, detail_error: error.detail };
          }
          if (q.kind !== 'range' && q.kind !== 'instant' && (o.value as { operation?: unknown }).operation === 'channel') {
            return { id: q.id, status: 'empty' as const, ...(o.value as GenericChannelResult) };
          }
          if (q.kind === 'sql') {
            const r = o.value as GenericSqlResult;
            return { id: q.id, status: r.rowCount === 0 ? ('empty' as const) : ('complete' as const), ...r };
          }
          if (q.kind === 'logs') {
            const r = o.value as GenericLogsResult;
            return { id: q.id, status: r.lines === 0 ? ('empty' as const) : ('complete' as const), ...r };
          }
          const r = o.value as Awaited<ReturnType<typeof queryPrometheus>>['result'];
          const step = q.kind === 'range' && q.stepSeconds !== undefined && stepOf(q) !== q.stepSeconds ? { stepSeconds: stepOf(q) } : {};
          return {
            id: q.id,
            status: r.seriesCount === 0 ? ('empty' as const) : ('complete' as const),
            resultType: r.resultType,
            seriesCount: r.seriesCount,
            omittedSeries: r.omittedSeries,
            series: r.series,
            ...(r.scoredSeries !== undefined ? { scoredSeries: r.scoredSeries } : {}),
            ...(metricsWindow.clamped ? { clampedWindow: metricsWindow.window } : {}),
            ...step,
          };
        }),
      };
    },
  };
}

/** A planned query as a tool entry: the operation picks the entry kind, the expression is its text. */
function plannedToEntry(q: PlannedProviderQuery): BatchQuery {
  switch (q.operation) {
    case 'promql_range':
    case 'promql_instant':
      return { id: q.id, kind: q.operation === 'promql_range' ? 'range' : 'instant', promql: q.expression, ...(q.stepSeconds ? { stepSeconds: q.stepSeconds } : {}) };
    case 'sql':
      return { id: q.id, kind: 'sql', sql: q.expression };
    case 'logs':
      return { id: q.id, kind: 'logs', logql: q.expression };
    default:
      throw new ProviderError('PROVIDER.INPUT_INVALID', `operation ${q.operation} is not offered by the prometheus package`);
  }
}

/** The operations the package can serve for some target; each target's own set comes with its catalogue. */
export const PROMETHEUS_OPERATIONS: readonly EvidenceOperation[] = ['promql_range', 'promql_instant', 'sql', 'logs'];

/** The generic package as the Provider Executor drives it: planned PromQL, `sql` and `logs` operations. */
export function prometheusEvidencePackage(targets: readonly PrometheusTarget[], limits = CLINIC_BATCH_LIMITS): EvidencePackage {
  const resolver = new PrometheusTargets(targets);
  const impl = prometheusPackage(targets, limits, resolver);
  return {
    name: 'prometheus',
    tools: [prometheusBatchSpec],
    operations: PROMETHEUS_OPERATIONS,
    listTargets: () => resolver.list(),
    discoverMetrics: (request, options = {}) => discoverFor(resolver, request, options),
    runBatch: (request: EvidenceBatchRequest, options: EvidenceRunOptions = {}) =>
      runPlannedBatch(request, 'prometheus', plannedToEntry, (queries) => executeTool(impl, { target: request.target, window: request.window, queries }, options)),
  };
}

/**
 * Discovery bootstrap for one target and window: the metric names its series carry, with label
 * keys. A provider that answers with no series is `empty`, not failed; one that cannot be asked
 * is `failed` with its code. Bounded by the discovery limits; nothing but names and keys leaves.
 * The listing also says which operations the target offers (`sql`, `logs` where its endpoint has
 * them) and the Loki label its stream selectors must carry.
 */
async function discoverFor(resolver: PrometheusTargets, request: { target: string; window: { from: string; to: string } }, options: EvidenceRunOptions): Promise<CatalogListing> {
  const failed = (failureCode: string, resolved: ResolvedEndpoint | null = null): CatalogListing => ({ status: 'failed', ...offered(resolved, request.target), metrics: [], truncated: false, failureCode });
  let resolved: ResolvedEndpoint;
  try {
    resolved = await resolver.resolve(request.target);
  } catch (error) {
    return failed(error instanceof ProviderError ? error.code : 'PROVIDER.TARGET_REJECTED');
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), prometheusBatchSpec.limits.timeoutMs);
  try {
    const catalog = await discoverMetrics(
      resolved.endpoint,
      { label: resolved.label, value: request.target },
      { startMs: Date.parse(request.window.from), endMs: Date.parse(request.window.to), signal: controller.signal, onRecord: (record) => options.onHttpRecord?.('discovery', record) },
    );
    return { status: catalog.metrics.length === 0 ? 'empty' : 'listed', ...offered(resolved, request.target), metrics: catalog.metrics, truncated: catalog.truncated, failureCode: null };
  } catch (error) {
    return failed(error instanceof ProviderError ? error.code : 'PROVIDER.UNREACHABLE', resolved);
  } finally {
    clearTimeout(timer);
  }
}

/** What a resolved target offers besides its metrics: its label, operations and log selector label. */
function offered(resolved: ResolvedEndpoint | null, target: string): Pick<CatalogListing, 'targetLabel' | 'operations' | 'logsLabel'> {
  if (!resolved) return { targetLabel: null, operations: [], logsLabel: null };
  return { targetLabel: resolved.label, operations: targetOperations(resolved.endpoint, target), logsLabel: logsLabelOf(resolved.endpoint) };
}
