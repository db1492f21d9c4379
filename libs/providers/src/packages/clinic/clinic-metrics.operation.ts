import { queryPrometheus } from '../../connectors/prometheus-connector';
import { ProviderError } from '../../core/provider-error';
import { opaqueRef } from '../../core/sanitize';
import { validatePromQl } from '../../validation/promql';
import type { ClinicQueryOf } from './clinic-input.schema';
import { tracked, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { MetricsResult } from './clinic-output.schema';

/** Prometheus refuses more points per series than this; refuse it first, naming the field. */
const MAX_POINTS_PER_SERIES = 11_000;
const ADDRESS_LIKE = /(?:\d{1,3}\.){3}\d{1,3}|:\d{2,5}$|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$|\/\//i;

export function defaultStepSeconds(spanMs: number): number {
  return Math.max(15, Math.ceil(spanMs / 1000 / 240));
}

/** Checks what can be checked before any network use. */
export function prepareMetricsQuery(q: ClinicQueryOf<'promql_range'> | ClinicQueryOf<'promql_instant'>, field: string, spanMs: number): string {
  const promql = validatePromQl(q.promql, `${field}.promql`);
  if (q.operation === 'promql_range' && q.step_seconds !== undefined && spanMs / 1000 / q.step_seconds > MAX_POINTS_PER_SERIES) {
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}.step_seconds: ${q.step_seconds} s gives more than ${MAX_POINTS_PER_SERIES} points over the window; use a larger step`);
  }
  return promql;
}

/** Instance-like label values (addresses, hostnames) become stable opaque references. */
function compactLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).slice(0, 16).map(([key, value]) => [key, ADDRESS_LIKE.test(value) ? opaqueRef('instance', value) : value]));
}

export async function runMetricsQuery(q: ClinicQueryOf<'promql_range'> | ClinicQueryOf<'promql_instant'>, ctx: ClinicOperationContext): Promise<OperationOutcome<MetricsResult>> {
  const spanMs = ctx.window.toMs - ctx.window.fromMs;
  const promql = prepareMetricsQuery(q, ctx.field, spanMs);
  const query =
    q.operation === 'promql_range'
      ? { kind: 'range' as const, promql, startMs: ctx.window.fromMs, endMs: ctx.window.toMs, stepSeconds: q.step_seconds ?? defaultStepSeconds(spanMs) }
      : { kind: 'instant' as const, promql, atMs: ctx.window.toMs };
  const { result } = await tracked(ctx, queryPrometheus(ctx.api.metricsEndpoint(), query, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs, maxResponseBytes: 8 * 1024 * 1024 }));
  return {
    status: result.seriesCount === 0 ? 'empty' : 'complete',
    result: {
      result_type: result.resultType,
      series_count: result.seriesCount,
      omitted_series: result.omittedSeries,
      series: result.series.map((s) => ({
        labels: compactLabels(s.labels),
        points: s.points,
        first: s.first,
        last: s.last,
        min: s.min,
        max: s.max,
        mean: s.mean,
        max_at: s.maxAt,
        baseline_median: s.baselineMedian,
        recent_median: s.recentMedian,
        anomaly_score: s.anomalyScore,
        direction: s.direction,
        shift_at: s.shiftAt,
      })),
    },
  };
}
