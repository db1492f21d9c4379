import { parser } from '@prometheus-io/lezer-promql';
import { z } from 'zod';
import { keepLeadSeries, round6, scoreAnomaly, type AnomalyWindow, type TimedValue } from '../core/anomaly-score';
import { changesOf, coverageOf, finitePoints, medianOf, shapeOf, SHAPE_BUCKETS } from '../core/series-shape';
import { ProviderError } from '../core/provider-error';
import { providerRequest, type HttpCallRecord } from './http-client';

const Sample = z.tuple([z.number(), z.string()]);
const PromResponse = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    data: z.discriminatedUnion('resultType', [
      z.object({ resultType: z.literal('matrix'), result: z.array(z.object({ metric: z.record(z.string(), z.string()), values: z.array(Sample) })) }),
      z.object({ resultType: z.literal('vector'), result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: Sample })) }),
      z.object({ resultType: z.literal('scalar'), result: Sample }),
      z.object({ resultType: z.literal('string'), result: Sample }),
    ]),
  }),
  z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string() }),
]);

const ValueStepSchema = z.object({ at: z.string(), from: z.number(), to: z.number() });

/**
 * The compact summary of one series, the only form in which a series leaves a provider package.
 * The anomaly fields come from `scoreAnomaly` (robust z of the recent half of the window against
 * its first half); they are null when the series has too few points. The shape, trend, change and
 * coverage fields (`series-shape.ts`) are optional: results recorded before them lack them, and
 * instant results carry only `nonFinitePoints`. `priorMedian` is the median of the hour before the
 * window start, where the package read it (every other statistic is of the window alone).
 */
export const SeriesSummarySchema = z.object({
  labels: z.record(z.string(), z.string()),
  points: z.number(),
  first: z.number().nullable(),
  last: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  maxAt: z.string().nullable(),
  baselineMedian: z.number().nullable(),
  recentMedian: z.number().nullable(),
  anomalyScore: z.number().nullable(),
  direction: z.enum(['up', 'down']).nullable(),
  shiftAt: z.string().nullable(),
  shape: z.array(z.number().nullable()).length(SHAPE_BUCKETS).optional(),
  slope: z.number().nullable().optional(),
  trend: z.number().nullable().optional(),
  priorMedian: z.number().nullable().optional(),
  priorPoints: z.number().int().nonnegative().optional(),
  firstAt: z.string().nullable().optional(),
  lastAt: z.string().nullable().optional(),
  changes: z.number().int().nonnegative().optional(),
  drops: z.number().int().nonnegative().optional(),
  lastChange: ValueStepSchema.nullable().optional(),
  lastDrop: ValueStepSchema.nullable().optional(),
  nonFinitePoints: z.number().int().nonnegative().optional(),
  missingPoints: z.number().int().nonnegative().optional(),
  longestGapSeconds: z.number().int().nonnegative().optional(),
});
export type SeriesSummary = z.infer<typeof SeriesSummarySchema>;

/** A range query: its window [startMs, endMs] and, optionally, an earlier start to read the hour before it from. */
export interface PromRangeQuery {
  kind: 'range';
  promql: string;
  startMs: number;
  endMs: number;
  stepSeconds: number;
  /**
   * Read from here (aligned down to the step grid of the window, so the window's own evaluation
   * times and statistics are exactly those of a read from `startMs`) and summarise the part before
   * `startMs` apart, as `priorMedian`. The caller keeps it within its window limits. Ignored for
   * PromQL with an `@` modifier.
   */
  priorStartMs?: number;
}

export interface PromQueryResult {
  resultType: 'matrix' | 'vector' | 'scalar' | 'string';
  seriesCount: number;
  /**
   * The series with the largest maxima, at most `maxSeries`, ordered by max. When the most
   * anomalous series (highest `anomalyScore`) falls outside that cut it takes the last place, so
   * it is always kept and the order by max still holds.
   */
  series: SeriesSummary[];
  omittedSeries: number;
  /** Set when the result held more than `MAX_SCORED_SERIES` series: how many were summarised (the rest only ranked). */
  scoredSeries?: number;
}

export interface PromEndpoint {
  baseUrl: string;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

/** Prometheus refuses more points per series than this. */
export const MAX_POINTS_PER_SERIES = 11_000;
/**
 * At most this many series of one result are summarised (scoring costs a few ms per series); a
 * larger result is first ranked cheaply (`preRank`) and the rest counted, never summarised.
 */
export const MAX_SCORED_SERIES = 200;

interface RangeContext {
  window: AnomalyWindow;
  stepSeconds: number;
}

function summarise(labels: Record<string, string>, samples: readonly (readonly [number, string])[], range?: RangeContext, prior?: readonly (readonly [number, string])[]): SeriesSummary {
  const parsed = samples.map(([t, v]) => [t, Number(v)] as const);
  const values = finitePoints(parsed);
  const nonFinitePoints = parsed.length - values.length;
  const { ratio: _ratio, ...anomaly } = scoreAnomaly(values, range?.window);
  const extra = range ? rangeStatistics(values, parsed, range, prior) : {};
  const coverage = { ...extra, nonFinitePoints };
  if (values.length === 0) return { labels, points: 0, first: null, last: null, min: null, max: null, mean: null, maxAt: null, ...anomaly, ...coverage };
  let min = Infinity;
  let max = -Infinity;
  let maxAt = values[0][0];
  let sum = 0;
  for (const [t, v] of values) {
    if (v < min) min = v;
    if (v > max) {
      max = v;
      maxAt = t;
    }
    sum += v;
  }
  return {
    labels,
    points: values.length,
    first: round6(values[0][1]),
    last: round6(values[values.length - 1][1]),
    min: round6(min),
    max: round6(max),
    mean: round6(sum / values.length),
    maxAt: new Date(maxAt * 1000).toISOString(),
    ...anomaly,
    ...coverage,
  };
}

/** Shape, trend, changes and coverage of a range series over its window, and the median of what was read before it. */
function rangeStatistics(values: readonly TimedValue[], parsed: readonly (readonly [number, number])[], range: RangeContext, prior?: readonly (readonly [number, string])[]): Partial<SeriesSummary> {
  const priorValues = prior ? finitePoints(prior.map(([t, v]) => [t, Number(v)] as const)) : null;
  return {
    ...shapeOf(values, range.window),
    ...(priorValues ? { priorMedian: medianOf(priorValues.map(([, v]) => v)), priorPoints: priorValues.length } : {}),
    ...changesOf(values),
    ...coverageOf(
      parsed.map(([t]) => t),
      range.window,
      range.stepSeconds,
    ),
  };
}

/** A cheap rank of a raw series for the bounded cut: |mean of the second half − mean of the first| over the spread. */
function shiftProxy(samples: readonly (readonly [number, string])[]): number {
  const v = samples.map(([, x]) => Number(x)).filter(Number.isFinite);
  if (v.length < 4) return 0;
  const half = v.length >> 1;
  const mean = (a: number[]) => a.reduce((s, x) => s + x / a.length, 0);
  const all = mean(v);
  const spread = Math.sqrt(mean(v.map((x) => (x - all) ** 2))) || 1;
  const proxy = Math.abs(mean(v.slice(half)) - mean(v.slice(0, half))) / spread;
  return Number.isFinite(proxy) ? proxy : 0;
}

function maxOf(samples: readonly (readonly [number, string])[]): number {
  let max = -Infinity;
  for (const [, x] of samples) {
    const v = Number(x);
    if (Number.isFinite(v) && v > max) max = v;
  }
  return max;
}

/**
 * The series of a large result worth summarising: half of `MAX_SCORED_SERIES` with the largest
 * maxima, the rest with the largest cheap shift (so the most anomalous series is very likely among them).
 */
function preRank<T extends { values: readonly (readonly [number, string])[] }>(series: readonly T[]): T[] {
  if (series.length <= MAX_SCORED_SERIES) return [...series];
  const half = MAX_SCORED_SERIES >> 1;
  const byMax = series.map((s, i) => ({ i, max: maxOf(s.values) })).sort((a, b) => b.max - a.max || a.i - b.i);
  const chosen = new Set(byMax.slice(0, half).map((e) => e.i));
  const byShift = series.map((s, i) => ({ i, shift: chosen.has(i) ? -1 : shiftProxy(s.values) })).sort((a, b) => b.shift - a.shift || a.i - b.i);
  for (const e of byShift) {
    if (chosen.size >= MAX_SCORED_SERIES) break;
    chosen.add(e.i);
  }
  return [...chosen].sort((a, b) => a - b).map((i) => series[i]);
}

/** Whether PromQL pins an evaluation time with `@` (`@ start()` moves with the read's start, so such a read is never widened). */
export function hasAtModifier(promql: string): boolean {
  let found = false;
  parser.parse(promql).iterate({
    enter: (node) => {
      if (node.type.name === 'At') found = true;
      return !found;
    },
  });
  return found;
}

/** The read start of a range query: `priorStartMs` aligned down to the window's step grid, within the points Prometheus serves. */
function readStartMs(query: PromRangeQuery): number {
  if (query.priorStartMs === undefined || !(query.priorStartMs < query.startMs) || hasAtModifier(query.promql)) return query.startMs;
  const windowPoints = Math.floor((query.endMs - query.startMs) / 1000 / query.stepSeconds) + 1;
  const steps = Math.min(Math.floor((query.startMs - query.priorStartMs) / 1000 / query.stepSeconds), MAX_POINTS_PER_SERIES - windowPoints);
  return steps > 0 ? query.startMs - steps * query.stepSeconds * 1000 : query.startMs;
}

/**
 * One call to a Prometheus HTTP API path of the endpoint (credentials in its headers): a
 * form-encoded POST, or a GET with the parameters in the query for the routes that only take GET
 * (label values).
 */
export function callPrometheusApi(
  endpoint: PromEndpoint,
  path: string,
  params: URLSearchParams,
  options: { signal?: AbortSignal; maxResponseBytes?: number; retryDelaysMs?: readonly number[]; method?: 'GET' | 'POST' },
): ReturnType<typeof providerRequest> {
  const base = `${endpoint.baseUrl.replace(/\/$/, '')}${path}`;
  const get = options.method === 'GET';
  return providerRequest({
    url: get ? `${base}?${params.toString()}` : base,
    method: get ? 'GET' : 'POST',
    headers: get ? { ...(endpoint.headers ?? {}) } : { 'content-type': 'application/x-www-form-urlencoded', ...(endpoint.headers ?? {}) },
    body: get ? undefined : params.toString(),
    signal: options.signal,
    secrets: endpoint.secrets,
    maxResponseBytes: options.maxResponseBytes,
    retryDelaysMs: options.retryDelaysMs,
  });
}

/** Prometheus HTTP API client (`/api/v1/query_range` and `/api/v1/query`) returning compact summaries. */
export async function queryPrometheus(
  endpoint: PromEndpoint,
  query: PromRangeQuery | { kind: 'instant'; promql: string; atMs: number },
  options: { signal?: AbortSignal; maxSeries?: number; maxResponseBytes?: number; retryDelaysMs?: readonly number[] } = {},
): Promise<{ result: PromQueryResult; record: HttpCallRecord }> {
  const params = new URLSearchParams({ query: query.promql });
  if (query.kind === 'range') {
    params.set('start', String(readStartMs(query) / 1000));
    params.set('end', String(query.endMs / 1000));
    params.set('step', String(query.stepSeconds));
  } else {
    params.set('time', String(query.atMs / 1000));
  }
  const path = query.kind === 'range' ? '/api/v1/query_range' : '/api/v1/query';
  let response: Awaited<ReturnType<typeof providerRequest>>;
  try {
    response = await callPrometheusApi(endpoint, path, params, options);
  } catch (error) {
    // Prometheus explains a rejected query in its JSON body; pass that text through as the detail.
    if (error instanceof ProviderError && error.code === 'PROVIDER.HTTP_4XX') {
      const parsed = PromResponse.safeParse(safeJson(error.detail));
      if (parsed.success && parsed.data.status === 'error') {
        throw Object.assign(new ProviderError('PROVIDER.QUERY_REJECTED', `${parsed.data.errorType ?? 'bad_data'}: ${parsed.data.error}`), { record: (error as { record?: unknown }).record });
      }
    }
    throw error;
  }
  const parsed = PromResponse.safeParse(safeJson(response.body));
  if (!parsed.success) throw Object.assign(new ProviderError('PROVIDER.RESPONSE_INVALID', 'the provider answered with a body that is not a Prometheus API response'), { record: response.record });
  if (parsed.data.status === 'error') throw Object.assign(new ProviderError('PROVIDER.QUERY_REJECTED', parsed.data.error), { record: response.record });
  const data = parsed.data.data;
  const maxSeries = options.maxSeries ?? 10;
  let series: SeriesSummary[];
  let scoredSeries: number | undefined;
  if (data.resultType === 'matrix') {
    const range = query.kind === 'range' ? { window: { start: query.startMs / 1000, end: query.endMs / 1000 }, stepSeconds: query.stepSeconds } : undefined;
    const widened = query.kind === 'range' && readStartMs(query) < query.startMs;
    const start = range?.window.start ?? -Infinity;
    // A series seen only before the window is not part of it: the window's result stays as a read from its start.
    const split = data.result
      .map((r) => ({ metric: r.metric, values: r.values.filter(([t]) => t >= start), prior: widened ? r.values.filter(([t]) => t < start) : undefined }))
      .filter((r) => r.values.length > 0);
    const scored = preRank(split);
    if (scored.length < split.length) scoredSeries = scored.length;
    series = scored.map((r) => summarise(r.metric, r.values, range, r.prior));
    return respond(data.resultType, split.length, series, maxSeries, scoredSeries, response.record);
  }
  if (data.resultType === 'vector') {
    const scored = preRank(data.result.map((r) => ({ metric: r.metric, values: [r.value] })));
    if (scored.length < data.result.length) scoredSeries = scored.length;
    series = scored.map((r) => summarise(r.metric, r.values));
    return respond(data.resultType, data.result.length, series, maxSeries, scoredSeries, response.record);
  }
  return respond(data.resultType, 1, [summarise({}, [data.result])], maxSeries, undefined, response.record);
}

function respond(resultType: PromQueryResult['resultType'], seriesCount: number, series: SeriesSummary[], maxSeries: number, scoredSeries: number | undefined, record: HttpCallRecord): { result: PromQueryResult; record: HttpCallRecord } {
  return {
    result: { resultType, seriesCount, series: keepLeadSeries(series, maxSeries), omittedSeries: Math.max(0, seriesCount - maxSeries), ...(scoredSeries !== undefined ? { scoredSeries } : {}) },
    record,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
