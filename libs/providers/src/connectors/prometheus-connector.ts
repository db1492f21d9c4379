import { z } from 'zod';
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

export interface SeriesSummary {
  labels: Record<string, string>;
  points: number;
  first: number | null;
  last: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  maxAt: string | null;
}

export interface PromQueryResult {
  resultType: 'matrix' | 'vector' | 'scalar' | 'string';
  seriesCount: number;
  /** The series with the largest maxima, at most `maxSeries`. */
  series: SeriesSummary[];
  omittedSeries: number;
}

export interface PromEndpoint {
  baseUrl: string;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

function summarise(labels: Record<string, string>, samples: [number, string][]): SeriesSummary {
  const values = samples.map(([t, v]) => [t, Number(v)] as const).filter(([, v]) => Number.isFinite(v));
  if (values.length === 0) return { labels, points: 0, first: null, last: null, min: null, max: null, mean: null, maxAt: null };
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
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return {
    labels,
    points: values.length,
    first: round(values[0][1]),
    last: round(values[values.length - 1][1]),
    min: round(min),
    max: round(max),
    mean: round(sum / values.length),
    maxAt: new Date(maxAt * 1000).toISOString(),
  };
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
    response = await providerRequest({
      url: `${endpoint.baseUrl.replace(/\/$/, '')}${path}`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(endpoint.headers ?? {}) },
      body: params.toString(),
      signal: options.signal,
      secrets: endpoint.secrets,
      maxResponseBytes: options.maxResponseBytes,
      retryDelaysMs: options.retryDelaysMs,
    });
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
  if (data.resultType === 'matrix') series = data.result.map((r) => summarise(r.metric, r.values));
  else if (data.resultType === 'vector') series = data.result.map((r) => summarise(r.metric, [r.value]));
  else series = [summarise({}, [data.result])];
  series.sort((a, b) => (b.max ?? -Infinity) - (a.max ?? -Infinity));
  return {
    result: { resultType: data.resultType, seriesCount: series.length, series: series.slice(0, maxSeries), omittedSeries: Math.max(0, series.length - maxSeries) },
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
