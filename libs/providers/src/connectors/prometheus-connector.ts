import { z } from 'zod';
import { keepLeadSeries, round6, scoreAnomaly, type AnomalyWindow } from '../core/anomaly-score';
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

/**
 * The compact summary of one series, the only form in which a series leaves a provider package.
 * The anomaly fields come from `scoreAnomaly` (robust z of the recent half of the window against
 * its first half); they are null when the series has too few points.
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
});
export type SeriesSummary = z.infer<typeof SeriesSummarySchema>;

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
}

export interface PromEndpoint {
  baseUrl: string;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

function summarise(labels: Record<string, string>, samples: [number, string][], window?: AnomalyWindow): SeriesSummary {
  const values = samples.map(([t, v]) => [t, Number(v)] as const).filter(([, v]) => Number.isFinite(v));
  const { ratio: _ratio, ...anomaly } = scoreAnomaly(values, window);
  if (values.length === 0) return { labels, points: 0, first: null, last: null, min: null, max: null, mean: null, maxAt: null, ...anomaly };
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
  };
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
  query: { kind: 'range'; promql: string; startMs: number; endMs: number; stepSeconds: number } | { kind: 'instant'; promql: string; atMs: number },
  options: { signal?: AbortSignal; maxSeries?: number; maxResponseBytes?: number; retryDelaysMs?: readonly number[] } = {},
): Promise<{ result: PromQueryResult; record: HttpCallRecord }> {
  const params = new URLSearchParams({ query: query.promql });
  if (query.kind === 'range') {
    params.set('start', String(query.startMs / 1000));
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
  const window = query.kind === 'range' ? { start: query.startMs / 1000, end: query.endMs / 1000 } : undefined;
  let series: SeriesSummary[];
  if (data.resultType === 'matrix') series = data.result.map((r) => summarise(r.metric, r.values, window));
  else if (data.resultType === 'vector') series = data.result.map((r) => summarise(r.metric, [r.value]));
  else series = [summarise({}, [data.result])];
  return {
    result: { resultType: data.resultType, seriesCount: series.length, series: keepLeadSeries(series, maxSeries), omittedSeries: Math.max(0, series.length - maxSeries) },
    record: response.record,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
