import { z } from 'zod';
import { CLINIC_BATCH_LIMITS, runBatch } from '../../core/batch-scheduler';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import type { EvidenceBatchRequest, EvidencePackage, EvidenceRunOptions } from '../../core/evidence-package';
import { runPlannedBatch } from '../../core/planned-batch';
import { ProviderError } from '../../core/provider-error';
import { DAY_MS } from '../../core/time-window';
import type { ToolSpec } from '../../core/tool-spec';
import { recordOf } from '../../connectors/http-client';
import { queryPrometheus, SeriesSummarySchema, type PromEndpoint } from '../../connectors/prometheus-connector';
import { validatePromQl } from '../../validation/promql';

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

export interface PrometheusTarget extends PromEndpoint {
  name: string;
}

/**
 * Generic Prometheus package: any Prometheus-compatible endpoint, same limits as Clinic metrics.
 * Targets are configured by the operator; the caller names one exactly and never supplies a URL.
 */
export function prometheusPackage(targets: readonly PrometheusTarget[], limits = CLINIC_BATCH_LIMITS): ToolImplementation<typeof prometheusBatchSpec> {
  const byName = new Map(targets.map((t) => [t.name, t]));
  return {
    spec: prometheusBatchSpec,
    secrets: () => targets.flatMap((t) => [...(t.secrets ?? []), t.baseUrl]),
    checkTarget: (input) => {
      if (!byName.has(input.target)) throw new ProviderError('PROVIDER.TARGET_REJECTED', `target "${input.target}" is not configured for this package`);
    },
    windows: (input) => [{ operation: 'metrics', window: input.window }],
    run: async (input, ctx) => {
      const target = byName.get(input.target) as PrometheusTarget;
      const startMs = Date.parse(input.window.from);
      const endMs = Date.parse(input.window.to);
      const outcomes = await runBatch(
        input.queries,
        async (q, signal) => {
          const promql = validatePromQl(q.promql, `queries.${q.id}.promql`);
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
  const impl = prometheusPackage(targets, limits);
  return {
    name: 'prometheus',
    tools: [prometheusBatchSpec],
    operations: ['promql_range', 'promql_instant'],
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
