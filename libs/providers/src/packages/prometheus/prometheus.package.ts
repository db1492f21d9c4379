import { z } from 'zod';
import { CLINIC_BATCH_LIMITS, runBatch } from '../../core/batch-scheduler';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import type { CatalogListing, EvidenceBatchRequest, EvidencePackage, EvidenceRunOptions, TargetListing } from '../../core/evidence-package';
import { runPlannedBatch } from '../../core/planned-batch';
import { ProviderError } from '../../core/provider-error';
import { DAY_MS } from '../../core/time-window';
import type { ToolSpec } from '../../core/tool-spec';
import { recordOf } from '../../connectors/http-client';
import { queryPrometheus, SeriesSummarySchema, type PromEndpoint } from '../../connectors/prometheus-connector';
import { discoverMetrics, listTargetValues, SAFE_TARGET_VALUE } from '../../connectors/prometheus-discovery';
import { unboundSelectors, validatePromQl } from '../../validation/promql';

const QueryId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a safe slug of at most 64 characters');
const Window = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) });

export const PrometheusBatchInput = z
  .object({
    target: z.string().min(1).max(64),
    window: Window,
    queries: z
      .array(
        z
          .object({
            id: QueryId,
            kind: z.enum(['range', 'instant']),
            promql: z.string().min(1).max(4000),
            stepSeconds: z.number().int().min(1).max(3600).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(12)
      .refine((qs) => new Set(qs.map((q) => q.id)).size === qs.length, { message: 'query ids must be unique' }),
  })
  .strict();
export type PrometheusBatchInput = z.infer<typeof PrometheusBatchInput>;

export const PrometheusBatchOutput = z.object({
  target: z.string(),
  window: Window,
  queries: z.array(
    z.object({
      id: z.string(),
      status: z.enum(['complete', 'empty', 'failed']),
      resultType: z.string().optional(),
      seriesCount: z.number().optional(),
      omittedSeries: z.number().optional(),
      series: z.array(SeriesSummarySchema).optional(),
      error_code: z.string().optional(),
      detail_error: z.string().optional(),
    }),
  ),
});
export type PrometheusBatchOutput = z.infer<typeof PrometheusBatchOutput>;

export const prometheusBatchSpec = {
  name: 'prometheus_query_batch',
  description: 'Runs up to 12 read-only PromQL range or instant queries against one configured Prometheus-compatible target and returns compact per-series summaries.',
  input: PrometheusBatchInput,
  output: PrometheusBatchOutput,
  riskLevel: 'L0',
  accessMode: 'read',
  surfaces: ['evidence_agent', 'provider_executor'],
  networkMode: 'restricted',
  limits: { maxWindowMs: { metrics: 30 * DAY_MS }, timeoutMs: CLINIC_BATCH_LIMITS.outerMs, maxOutputBytes: 256 * 1024, maxQueries: 12, concurrency: 6 },
} as const satisfies ToolSpec;

export const DEFAULT_TARGET_LABEL = 'cluster';

/**
 * One configured endpoint. Without `targetLabel` it is a single target named `name` (selected by
 * `cluster="<name>"`); with it, the endpoint serves every value of that label it holds (its
 * inventory), e.g. one Prometheus with the cloud-monitoring metrics of many database instances.
 */
export interface PrometheusTarget extends PromEndpoint {
  name: string;
  targetLabel?: string;
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
 * exact label matcher.
 */
export function prometheusPackage(targets: readonly PrometheusTarget[], limits = CLINIC_BATCH_LIMITS, resolver = new PrometheusTargets(targets)): ToolImplementation<typeof prometheusBatchSpec> {
  return {
    spec: prometheusBatchSpec,
    secrets: () => targets.flatMap((t) => [...(t.secrets ?? []), t.baseUrl]),
    checkTarget: (input) => {
      if (!resolver.mayServe(input.target)) throw new ProviderError('PROVIDER.TARGET_REJECTED', `target "${input.target}" is not configured for this package`);
    },
    windows: (input) => [{ operation: 'metrics', window: input.window }],
    run: async (input, ctx) => {
      const { endpoint: target, label } = await resolver.resolve(input.target, ctx.signal);
      const startMs = Date.parse(input.window.from);
      const endMs = Date.parse(input.window.to);
      const outcomes = await runBatch(
        input.queries,
        async (q, signal) => {
          const promql = validatePromQl(q.promql, `queries.${q.id}.promql`);
          const unbound = unboundSelectors(promql, label, input.target);
          if (unbound.length > 0) throw new ProviderError('PROVIDER.QUERY_REJECTED', `queries.${q.id}.promql: every selector needs ${label}="${input.target}"; not bound: ${unbound.slice(0, 3).join(', ')}`);
          try {
            const { result, record } = await queryPrometheus(
              target,
              q.kind === 'range'
                ? { kind: 'range', promql, startMs, endMs, stepSeconds: q.stepSeconds ?? Math.max(15, Math.ceil((endMs - startMs) / 1000 / 240)) }
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
        },
        limits,
        ctx.signal,
      );
      return {
        target: input.target,
        window: input.window,
        queries: input.queries.map((q) => {
          const o = outcomes.get(q.id);
          if (!o || !o.ok) {
            const error = o && !o.ok ? o.error : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'query did not run');
            return { id: q.id, status: 'failed' as const, error_code: error.code, detail_error: error.detail };
          }
          return {
            id: q.id,
            status: o.value.seriesCount === 0 ? ('empty' as const) : ('complete' as const),
            resultType: o.value.resultType,
            seriesCount: o.value.seriesCount,
            omittedSeries: o.value.omittedSeries,
            series: o.value.series,
          };
        }),
      };
    },
  };
}

/** The generic package as the Provider Executor drives it: planned PromQL operations only. */
export function prometheusEvidencePackage(targets: readonly PrometheusTarget[], limits = CLINIC_BATCH_LIMITS): EvidencePackage {
  const resolver = new PrometheusTargets(targets);
  const impl = prometheusPackage(targets, limits, resolver);
  return {
    name: 'prometheus',
    tools: [prometheusBatchSpec],
    operations: ['promql_range', 'promql_instant'],
    listTargets: () => resolver.list(),
    discoverMetrics: (request, options = {}) => discoverFor(resolver, request, options),
    runBatch: (request: EvidenceBatchRequest, options: EvidenceRunOptions = {}) =>
      runPlannedBatch(
        request,
        'prometheus',
        (q) => {
          if (q.operation !== 'promql_range' && q.operation !== 'promql_instant') {
            throw new ProviderError('PROVIDER.INPUT_INVALID', `operation ${q.operation} is not offered by the prometheus package`);
          }
          return { id: q.id, kind: q.operation === 'promql_range' ? ('range' as const) : ('instant' as const), promql: q.expression, ...(q.stepSeconds ? { stepSeconds: q.stepSeconds } : {}) };
        },
        (queries) => executeTool(impl, { target: request.target, window: request.window, queries }, options),
      ),
  };
}

/**
 * Discovery bootstrap for one target and window: the metric names its series carry, with label
 * keys. A provider that answers with no series is `empty`, not failed; one that cannot be asked
 * is `failed` with its code. Bounded by the discovery limits; nothing but names and keys leaves.
 */
async function discoverFor(resolver: PrometheusTargets, request: { target: string; window: { from: string; to: string } }, options: EvidenceRunOptions): Promise<CatalogListing> {
  const failed = (failureCode: string, targetLabel: string | null = null): CatalogListing => ({ status: 'failed', targetLabel, metrics: [], truncated: false, failureCode });
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
    return { status: catalog.metrics.length === 0 ? 'empty' : 'listed', targetLabel: resolved.label, metrics: catalog.metrics, truncated: catalog.truncated, failureCode: null };
  } catch (error) {
    return failed(error instanceof ProviderError ? error.code : 'PROVIDER.UNREACHABLE', resolved.label);
  } finally {
    clearTimeout(timer);
  }
}
