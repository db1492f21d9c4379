import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import type { HttpCallRecord } from './http-client';
import { rankForCatalog } from './catalog-rank';
import { callPrometheusApi, type PromEndpoint } from './prometheus-connector';

/** Names that may leave the package: valid Prometheus metric and label names, bounded. */
const METRIC_NAME = /^[A-Za-z_:][A-Za-z0-9_:]{0,199}$/;
const LABEL_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Target label values that may become provider targets (the batch input caps targets at 64). */
export const SAFE_TARGET_VALUE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const DISCOVERY_LIMITS = {
  /** Inventory: target label values kept. */
  maxTargets: 2000,
  /** Catalogue: metric names kept. */
  maxMetrics: 400,
  /** Catalogue: label keys kept per metric. */
  maxLabelKeys: 16,
  /** Bytes read from one discovery response; a bigger answer is cut to names only. */
  maxNamesBytes: 2 * 1024 * 1024,
  maxSeriesBytes: 4 * 1024 * 1024,
} as const;

const StringList = z.object({ status: z.literal('success'), data: z.array(z.string()) });
const SeriesList = z.object({ status: z.literal('success'), data: z.array(z.record(z.string(), z.string())) });

export interface CatalogMetric {
  name: string;
  labelKeys: string[];
  series: number;
}

export interface MetricCatalog {
  metrics: CatalogMetric[];
  truncated: boolean;
  /** Label keys and series counts could not be read (too many series); names only. */
  namesOnly: boolean;
}

interface DiscoveryOptions {
  startMs: number;
  endMs: number;
  signal?: AbortSignal;
  onRecord?: (record: HttpCallRecord) => void;
  retryDelaysMs?: readonly number[];
}

async function getJson<T>(endpoint: PromEndpoint, path: string, params: URLSearchParams, schema: z.ZodType<T>, maxBytes: number, options: DiscoveryOptions): Promise<T> {
  // Label-value routes take GET only; the series route takes a POST (long matchers stay out of URLs).
  const method = path.startsWith('/api/v1/label/') ? 'GET' : 'POST';
  try {
    const response = await callPrometheusApi(endpoint, path, params, { signal: options.signal, maxResponseBytes: maxBytes, retryDelaysMs: options.retryDelaysMs, method });
    options.onRecord?.(response.record);
    let body: unknown = null;
    try {
      body = JSON.parse(response.body);
    } catch {
      body = null;
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ProviderError('PROVIDER.RESPONSE_INVALID', `the provider answered ${path} with a body that is not a Prometheus API list`);
    return parsed.data;
  } catch (error) {
    const record = (error as { record?: HttpCallRecord } | null)?.record;
    if (record) options.onRecord?.(record);
    throw error;
  }
}

function rangeParams(options: DiscoveryOptions, match?: string): URLSearchParams {
  const params = new URLSearchParams({ start: String(options.startMs / 1000), end: String(options.endMs / 1000) });
  if (match) params.append('match[]', match);
  return params;
}

/**
 * The values of the target label on an endpoint (its inventory), bounded and filtered to safe
 * identifiers; values that could not be a target (quotes, spaces, addresses with ports) are dropped.
 */
export async function listTargetValues(endpoint: PromEndpoint, label: string, options: DiscoveryOptions & { maxTargets?: number }): Promise<{ values: string[]; truncated: boolean }> {
  if (!LABEL_KEY.test(label)) throw new ProviderError('PROVIDER.INPUT_INVALID', 'the target label is not a valid label name');
  const list = await getJson(endpoint, `/api/v1/label/${label}/values`, rangeParams(options), StringList, DISCOVERY_LIMITS.maxNamesBytes, options);
  const max = options.maxTargets ?? DISCOVERY_LIMITS.maxTargets;
  const safe = [...new Set(list.data.filter((v) => SAFE_TARGET_VALUE.test(v)))].sort();
  return { values: safe.slice(0, max), truncated: safe.length > max };
}

/**
 * The metric names present for one target in a window, with the label keys of their series.
 * Names come from `/api/v1/label/__name__/values` with a `match[]` on the target label; keys and
 * series counts from `/api/v1/series` when that answer stays within its byte bound, else the
 * catalogue says it holds names only. Label values never leave: only keys are kept.
 */
export async function discoverMetrics(endpoint: PromEndpoint, selector: { label: string; value: string }, options: DiscoveryOptions): Promise<MetricCatalog> {
  if (!LABEL_KEY.test(selector.label) || !SAFE_TARGET_VALUE.test(selector.value)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'target is not a safe label value');
  const match = `{${selector.label}="${selector.value}"}`;
  const names = await getJson(endpoint, '/api/v1/label/__name__/values', rangeParams(options, match), StringList, DISCOVERY_LIMITS.maxNamesBytes, options);
  const valid = [...new Set(names.data.filter((n) => METRIC_NAME.test(n)))].sort();
  // Past the bound, the names the ontology places in a family are kept, not the first ones alphabetically.
  const kept = rankForCatalog(valid.map((name) => ({ name })), DISCOVERY_LIMITS.maxMetrics).map((m) => m.name);
  const truncated = valid.length > kept.length;
  if (kept.length === 0) return { metrics: [], truncated: false, namesOnly: false };
  let series: Record<string, string>[] | null = null;
  try {
    series = (await getJson(endpoint, '/api/v1/series', rangeParams(options, match), SeriesList, DISCOVERY_LIMITS.maxSeriesBytes, options)).data;
  } catch (error) {
    // Too many series to list: the names alone still let planning pick families.
    if (!(error instanceof ProviderError && error.code === 'PROVIDER.OUTPUT_TOO_LARGE')) throw error;
  }
  const byName = new Map<string, { keys: Set<string>; series: number }>(kept.map((n) => [n, { keys: new Set<string>(), series: 0 }]));
  for (const labels of series ?? []) {
    const entry = byName.get(labels['__name__'] ?? '');
    if (!entry) continue;
    entry.series++;
    for (const key of Object.keys(labels)) if (key !== '__name__' && LABEL_KEY.test(key)) entry.keys.add(key);
  }
  return {
    metrics: kept.map((name) => {
      const entry = byName.get(name) as { keys: Set<string>; series: number };
      return { name, labelKeys: [...entry.keys].sort().slice(0, DISCOVERY_LIMITS.maxLabelKeys), series: entry.series };
    }),
    truncated,
    namesOnly: series === null,
  };
}
