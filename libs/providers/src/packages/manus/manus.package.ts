import { QueryId } from '@aoc/contracts';
import { z } from 'zod';
import { runBatch, type BatchLimits } from '../../core/batch-scheduler';
import type { EvidenceBatchDetails, EvidenceBatchRequest, EvidencePackage, EvidenceRunOptions, PlannedProviderQuery, TargetListing } from '../../core/evidence-package';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import { runPlannedBatch } from '../../core/planned-batch';
import { ProviderError } from '../../core/provider-error';
import { parseSealKey } from '../../core/sealed-box';
import { clampWindow, DAY_MS, HOUR_MS } from '../../core/time-window';
import type { ToolResult } from '../../core/tool-result';
import type { ToolSpec } from '../../core/tool-spec';
import { recordOf } from '../../connectors/http-client';
import { grafanaQueryRange, grafanaSecrets, type GrafanaDatasource, type GrafanaRangeQuery } from '../../connectors/grafana-datasource-connector';
import type { PromRangeQuery } from '../../connectors/prometheus-connector';
import { AddressSealer, INSTANCE_REF_PATTERN, InstanceRefCodec, ProtectedSeriesSchema, type ProtectedSeries } from '../../connectors/grafana-instance-ref';
import { withLabelMatcher } from '../../connectors/grafana-label-matcher';
import { dropLowestRanked } from '../../core/anomaly-score';
import { validatePromQl } from '../../validation/promql';
import { MANUS_TARGETS, parseManusConfig, type ManusConfig, type ManusTarget, type ParsedManusConfig } from './manus-config';

/** Longest absolute window of one `query_range` call. */
export const MANUS_MAX_WINDOW_MS = 7 * DAY_MS;
/** Prometheus refuses more than 11,000 points per series; refuse before asking. */
export const MANUS_MAX_POINTS = 11_000;
/** Serial execution: one query at a time, the 108 s budget split per query, a 120 s hard limit. */
export const MANUS_BATCH_LIMITS: BatchLimits = { concurrency: 1, budgetMs: 108_000, outerMs: 120_000 };

const Window = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }).strict();

export const ManusQuery = z
  .object({
    id: QueryId,
    promql: z.string().min(1).max(4000),
    stepSeconds: z.number().int().min(1).max(3600).optional(),
    /** A reference returned by an earlier call; it selects that instance without revealing it. */
    instanceRef: z.string().max(700).regex(INSTANCE_REF_PATTERN, 'must be an instance reference returned by this package').optional(),
    /** Narrower window for this query; defaults to the batch window. */
    window: Window.optional(),
  })
  .strict();
export type ManusQuery = z.infer<typeof ManusQuery>;

function defaultStep(spanMs: number): number {
  return Math.max(15, Math.ceil(spanMs / 1000 / 240));
}

export const ManusQueryRangeInput = z
  .object({
    target: z.enum(MANUS_TARGETS),
    window: Window,
    queries: z.array(ManusQuery).min(1).max(12),
  })
  .strict()
  .superRefine((input, ctx) => {
    const seen = new Set<string>();
    input.queries.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: ['queries', i, 'id'], message: `duplicate query id ${q.id}` });
      seen.add(q.id);
      const w = clampWindow(q.window ?? input.window, MANUS_MAX_WINDOW_MS).window;
      const span = Date.parse(w.to) - Date.parse(w.from);
      if (q.stepSeconds !== undefined && span > 0 && span / 1000 / q.stepSeconds + 1 > MANUS_MAX_POINTS) {
        ctx.addIssue({ code: 'custom', path: ['queries', i, 'stepSeconds'], message: `a ${q.stepSeconds} s step gives more than ${MANUS_MAX_POINTS} points over the window; use a larger step` });
      }
    });
  });
export type ManusQueryRangeInput = z.infer<typeof ManusQueryRangeInput>;

const QueryOut = z
  .object({
    id: z.string(),
    status: z.enum(['complete', 'empty', 'failed']),
    resultType: z.string().optional(),
    seriesCount: z.number().optional(),
    omittedSeries: z.number().optional(),
    instanceFiltered: z.boolean().optional(),
    series: z.array(ProtectedSeriesSchema).optional(),
    /** Set when the query's window exceeded the 7-day limit: the window it read (its last 7 days). */
    clampedWindow: Window.optional(),
    error_code: z.string().optional(),
    detail_error: z.string().optional(),
  })
  .strict();

export const ManusQueryRangeOutput = z
  .object({
    target: z.enum(MANUS_TARGETS),
    window: Window,
    queries: z.array(QueryOut),
    truncated: z.boolean().optional(),
  })
  .strict();
export type ManusQueryRangeOutput = z.infer<typeof ManusQueryRangeOutput>;
type QueryOut = z.infer<typeof QueryOut>;

export const manusQueryRangeSpec = {
  name: 'manus_query_range',
  description:
    'Runs up to 12 read-only PromQL range queries, one at a time, against the exact Manus target vida or monica through its fixed query_range endpoint. Returns compact per-series summaries; instance addresses come back only as sealed instanceRefs, which a later call may pass as instanceRef to select the same instance.',
  input: ManusQueryRangeInput,
  output: ManusQueryRangeOutput,
  riskLevel: 'L0',
  accessMode: 'read',
  surfaces: ['evidence_agent', 'provider_executor'],
  networkMode: 'restricted',
  limits: { maxWindowMs: { query_range: MANUS_MAX_WINDOW_MS }, timeoutMs: MANUS_BATCH_LIMITS.outerMs, maxOutputBytes: 64 * 1024, maxQueries: 12, concurrency: 1 },
} as const satisfies ToolSpec;

/** Drops the lowest-ranked series until the result fits its byte budget. */
function fitToBudget(queries: QueryOut[], budgetBytes: number): boolean {
  let truncated = false;
  const size = () => Buffer.byteLength(JSON.stringify(queries), 'utf8');
  while (size() > budgetBytes) {
    const widest = queries.reduce<QueryOut | null>((best, q) => ((q.series?.length ?? 0) > (best?.series?.length ?? 0) ? q : best), null);
    if (!widest?.series?.length) break;
    dropLowestRanked(widest.series);
    widest.omittedSeries = (widest.omittedSeries ?? 0) + 1;
    truncated = true;
  }
  return truncated;
}

/** One execution at a time per package instance, whichever entry point it came through. */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const next = tail.then(task, task);
    tail = next.catch(() => undefined);
    return next;
  };
}

export interface ManusPackage extends EvidencePackage {
  readonly name: 'manus';
  /** The tool itself, for callers that execute tool calls directly through `executeTool`. */
  readonly tool: ToolImplementation<typeof manusQueryRangeSpec>;
}

function createTool(config: ParsedManusConfig): ToolImplementation<typeof manusQueryRangeSpec> {
  const codec = new InstanceRefCodec(parseSealKey(config.instanceRefKey), 'manus');
  const datasource = (target: ManusTarget): GrafanaDatasource | null => {
    const t = config.targets[target];
    return t ? { origin: t.grafanaOrigin, datasourcePath: t.datasourcePath, auth: { kind: 'bearer', token: config.credential.token } } : null;
  };
  const configured = MANUS_TARGETS.map(datasource).filter((d): d is GrafanaDatasource => d !== null);
  const secrets = [config.instanceRefKey, ...configured.flatMap((d) => [...grafanaSecrets(d), d.datasourcePath])];
  const serial = serialQueue();
  const budget = Math.floor(Math.min(config.limits.maxOutputBytes, manusQueryRangeSpec.limits.maxOutputBytes) * 0.85);

  return {
    spec: manusQueryRangeSpec,
    secrets: () => secrets,
    checkTarget: (input) => {
      if (!datasource(input.target)) throw new ProviderError('PROVIDER.TARGET_REJECTED', `target "${input.target}" is not configured for the manus package`);
    },
    // A window longer than the limit is read for its last 7 days (the result says so per query).
    windows: (input) => [input.window, ...input.queries.filter((q) => q.window).map((q) => q.window ?? input.window)].map((w) => ({ operation: 'query_range', window: clampWindow(w, MANUS_MAX_WINDOW_MS).window })),
    run: (input, ctx) =>
      serial(async () => {
        const ds = datasource(input.target) as GrafanaDatasource;
        const sealer = new AddressSealer(codec, input.target);
        const outcomes = await runBatch(
          input.queries,
          async (q, signal) => {
            const field = `queries.${q.id}`;
            let promql = validatePromQl(q.promql, `${field}.promql`);
            if (q.instanceRef !== undefined) {
              const selection = codec.open(q.instanceRef, input.target, `${field}.instanceRef`);
              promql = withLabelMatcher(promql, selection.label, selection.address, `${field}.promql`);
            }
            const w = clampWindow(q.window ?? input.window, MANUS_MAX_WINDOW_MS).window;
            const startMs = Date.parse(w.from);
            const endMs = Date.parse(w.to);
            // The hour before the window is read too, within the 7-day limit, for its median (`priorMedian`).
            const range: GrafanaRangeQuery & Pick<PromRangeQuery, 'priorStartMs'> = { promql, startMs, endMs, stepSeconds: q.stepSeconds ?? defaultStep(endMs - startMs), priorStartMs: Math.max(startMs - HOUR_MS, endMs - MANUS_MAX_WINDOW_MS) };
            try {
              const { result, record } = await grafanaQueryRange(
                ds,
                range,
                { signal, maxSeries: config.limits.maxSeries, maxResponseBytes: config.limits.maxResponseBytes, retryDelaysMs: config.limits.retryDelaysMs },
              );
              ctx.record(q.id, record);
              return { ...result, series: result.series.map((s) => sealer.protect(s)) };
            } catch (error) {
              const record = recordOf(error);
              if (record) ctx.record(q.id, record);
              throw error;
            }
          },
          MANUS_BATCH_LIMITS,
          ctx.signal,
        );
        const queries: QueryOut[] = input.queries.map((q) => {
          const o = outcomes.get(q.id);
          if (!o || !o.ok) {
            const error = o && !o.ok ? o.error : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'query did not run');
            return { id: q.id, status: 'failed', error_code: error.code, detail_error: error.detail };
          }
          const series: ProtectedSeries[] = o.value.series;
          const clamped = clampWindow(q.window ?? input.window, MANUS_MAX_WINDOW_MS);
          return {
            id: q.id,
            status: o.value.seriesCount === 0 ? 'empty' : 'complete',
            resultType: o.value.resultType,
            seriesCount: o.value.seriesCount,
            omittedSeries: o.value.omittedSeries,
            ...(q.instanceRef !== undefined ? { instanceFiltered: true } : {}),
            series,
            ...(clamped.clamped ? { clampedWindow: clamped.window } : {}),
          };
        });
        const truncated = fitToBudget(queries, budget);
        return { target: input.target, window: input.window, queries, ...(truncated ? { truncated } : {}) };
      }),
  };
}

/** Parameters of a planned `promql_range` entry: bare PromQL, or a JSON object with an instance reference. */
const PlannedParams = z
  .object({
    promql: z.string().min(1).max(4000),
    instanceRef: z.string().max(700).optional(),
  })
  .strict();

function plannedToQuery(q: PlannedProviderQuery): ManusQuery {
  if (q.operation !== 'promql_range') throw new ProviderError('PROVIDER.INPUT_INVALID', `queries.${q.id}.operation: ${q.operation} is not offered by the manus package (promql_range only)`);
  let params: z.infer<typeof PlannedParams> = { promql: q.expression };
  let json: unknown = undefined;
  try {
    json = JSON.parse(q.expression);
  } catch {
    // Not JSON: the expression is the PromQL itself (a JSON object is never valid PromQL).
  }
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const parsed = PlannedParams.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ProviderError('PROVIDER.INPUT_INVALID', `queries.${q.id}.expression${issue.path.length ? `.${issue.path.map(String).join('.')}` : ''}: ${issue.message}`);
    }
    params = parsed.data;
  }
  const candidate = { id: q.id, promql: params.promql, ...(params.instanceRef !== undefined ? { instanceRef: params.instanceRef } : {}), ...(q.stepSeconds ? { stepSeconds: q.stepSeconds } : {}), ...(q.window ? { window: q.window } : {}) };
  const checked = ManusQuery.safeParse(candidate);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ProviderError('PROVIDER.INPUT_INVALID', `queries.${q.id}.${issue.path.map(String).join('.') || 'expression'}: ${issue.message}`);
  }
  return checked.data;
}

/**
 * The Manus evidence package: exact targets vida and monica, free PromQL through the fixed
 * query_range endpoint, serial execution, bounded output, instance addresses only as sealed
 * references. It holds its own credential and no other connector.
 */
export function manusPackage(config: ManusConfig): ManusPackage {
  const parsed = parseManusConfig(config);
  const tool = createTool(parsed);
  const configured = MANUS_TARGETS.filter((t) => parsed.targets[t] !== undefined);
  return {
    name: 'manus',
    tool,
    tools: [manusQueryRangeSpec],
    operations: ['promql_range'],
    // The fixed targets this deployment configured; nothing is asked of Grafana to list them.
    listTargets: (): Promise<TargetListing> => Promise.resolve({ status: 'listed', targets: configured.map((target) => ({ target, aliases: [] })), truncated: false, failureCode: null }),
    runBatch: async (request: EvidenceBatchRequest, options: EvidenceRunOptions = {}): Promise<ToolResult<EvidenceBatchDetails>> => {
      return runPlannedBatch(request, 'manus', plannedToQuery, (queries) => executeTool(tool, { target: request.target, window: request.window, queries }, options));
    },
  };
}
