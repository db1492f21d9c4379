import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { providerRequest, type HttpCallRecord } from './http-client';
import type { LokiEndpoint } from './loki-connector';
import type { PromEndpoint } from './prometheus-connector';

/** Clinic scopes every request twice: by path and by these headers; neither may be omitted. */
export const CLINIC_ORG_HEADER = 'x-clinic-org-id';
export const CLINIC_CLUSTER_HEADER = 'x-clinic-cluster-id';

export interface ClinicApiConfig {
  baseUrl: string;
  token: string;
  maxResponseBytes?: number;
}

/** The exact org and cluster a call is about; both come from the frozen ticket target. */
export interface ClinicScope {
  orgId: string;
  clusterId: string;
}

export interface ClinicCallOptions {
  signal?: AbortSignal;
  /** Delays before retrying a 5xx; `[]` for requests that must not be retried (supplemental). */
  retryDelaysMs?: readonly number[];
}

// Clinic answers carry more than we keep; the schemas below name only what the package reads.
export const ClinicClusterMetadata = z.object({
  cluster_id: z.string(),
  org_id: z.string(),
  tier: z.string(),
  version: z.string(),
  status: z.string(),
  region: z.string().nullish(),
  cloud_provider: z.string().nullish(),
});
export type ClinicClusterMetadata = z.infer<typeof ClinicClusterMetadata>;

export const ClinicTopSqlItem = z.object({
  sql_digest: z.string(),
  plan_digest: z.string().nullish(),
  cpu_time_ms: z.number(),
  exec_count: z.number(),
  avg_latency_ms: z.number().nullish(),
  stmt_type: z.string().nullish(),
});
export type ClinicTopSqlItem = z.infer<typeof ClinicTopSqlItem>;

export const ClinicSlowQueryItem = z.object({
  digest: z.string(),
  timestamp: z.string(),
  query_time_s: z.number(),
  mem_max_bytes: z.number().nullish(),
  process_keys: z.number().nullish(),
  total_keys: z.number().nullish(),
  succ: z.boolean().nullish(),
  is_internal: z.boolean().nullish(),
  stmt_type: z.string().nullish(),
});
export type ClinicSlowQueryItem = z.infer<typeof ClinicSlowQueryItem>;

export const ClinicActivityItem = z.object({
  id: z.string(),
  type: z.string(),
  status: z.string(),
  component: z.string().nullish(),
  started_at: z.string(),
  finished_at: z.string().nullish(),
});
export type ClinicActivityItem = z.infer<typeof ClinicActivityItem>;

export const ClinicComponentItem = z.object({ component: z.string(), status: z.string() });
export type ClinicComponentItem = z.infer<typeof ClinicComponentItem>;

export const ClinicConfigItem = z.object({ component: z.string(), key: z.string(), value: z.unknown() });
export type ClinicConfigItem = z.infer<typeof ClinicConfigItem>;

/** An org the Clinic token may read (inventory). */
export const ClinicOrgItem = z.object({ org_id: z.string() });
export type ClinicOrgItem = z.infer<typeof ClinicOrgItem>;

/** A cluster of an org as the org's cluster list names it (inventory); other fields are not read. */
export const ClinicClusterItem = z.object({ cluster_id: z.string(), name: z.string().nullish() });
export type ClinicClusterItem = z.infer<typeof ClinicClusterItem>;

const Items = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), truncated: z.boolean().optional() });

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export interface ClinicApi {
  readonly headers: Readonly<Record<string, string>>;
  /** Prometheus-compatible metrics API of the cluster (Clinic proxies it). */
  metricsEndpoint(): PromEndpoint;
  /** Loki-style log API of the cluster. */
  logsEndpoint(): LokiEndpoint;
  clusterMetadata(options?: ClinicCallOptions): Promise<{ data: ClinicClusterMetadata; record: HttpCallRecord }>;
  topSql(params: { startMs: number; endMs: number; limit: number }, options?: ClinicCallOptions): Promise<{ data: ClinicTopSqlItem[]; record: HttpCallRecord }>;
  slowQueries(params: { startMs: number; endMs: number; limit: number; minQueryTimeS: number }, options?: ClinicCallOptions): Promise<{ data: ClinicSlowQueryItem[]; truncated: boolean; record: HttpCallRecord }>;
  activities(params: { startMs: number; endMs: number; limit: number }, options?: ClinicCallOptions): Promise<{ data: ClinicActivityItem[]; truncated: boolean; record: HttpCallRecord }>;
  components(options?: ClinicCallOptions): Promise<{ data: ClinicComponentItem[]; record: HttpCallRecord }>;
  configuration(selectors: readonly { component: string; key: string }[], options?: ClinicCallOptions): Promise<{ data: ClinicConfigItem[]; record: HttpCallRecord }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Read-only Clinic HTTP client for one org/cluster pair. Every request carries the Clinic token
 * and both scope headers; responses are parsed against the fields the package uses, and any
 * failure keeps its HTTP record so attempts and 5xx episodes reach the executor.
 */
export function clinicApi(config: ClinicApiConfig, scope: ClinicScope): ClinicApi {
  const base = config.baseUrl.replace(/\/$/, '');
  const clusterBase = `${base}/api/v1/orgs/${encodeURIComponent(scope.orgId)}/clusters/${encodeURIComponent(scope.clusterId)}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${config.token}`,
    [CLINIC_ORG_HEADER]: scope.orgId,
    [CLINIC_CLUSTER_HEADER]: scope.clusterId,
  };
  const secrets = [config.token, base];

  async function getJson<T extends z.ZodType>(suffix: string, params: URLSearchParams | null, schema: T, options: ClinicCallOptions = {}): Promise<{ data: z.infer<T>; record: HttpCallRecord }> {
    const query = params && [...params.keys()].length > 0 ? `?${params.toString()}` : '';
    const response = await providerRequest({
      url: `${clusterBase}${suffix}${query}`,
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      signal: options.signal,
      retryDelaysMs: options.retryDelaysMs,
      secrets,
      maxResponseBytes: config.maxResponseBytes ?? 4 * 1024 * 1024,
    });
    const parsed = schema.safeParse(safeJson(response.body));
    if (!parsed.success) {
      throw Object.assign(new ProviderError('PROVIDER.RESPONSE_INVALID', `Clinic answered ${suffix || 'cluster metadata'} with an unexpected body`), { record: response.record });
    }
    return { data: parsed.data as z.infer<T>, record: response.record };
  }

  return {
    headers,
    metricsEndpoint: () => ({ baseUrl: `${clusterBase}/metrics`, headers, secrets }),
    logsEndpoint: () => ({ baseUrl: `${clusterBase}/logs`, headers, secrets }),
    clusterMetadata: (options) => getJson('', null, ClinicClusterMetadata, options),
    topSql: async (p, options) => {
      const r = await getJson('/topsql', new URLSearchParams({ start: iso(p.startMs), end: iso(p.endMs), limit: String(p.limit), order_by: 'cpu_time' }), Items(ClinicTopSqlItem), options);
      return { data: r.data.items, record: r.record };
    },
    slowQueries: async (p, options) => {
      const params = new URLSearchParams({ start: iso(p.startMs), end: iso(p.endMs), limit: String(p.limit), min_query_time: String(p.minQueryTimeS) });
      const r = await getJson('/slowqueries', params, Items(ClinicSlowQueryItem), options);
      return { data: r.data.items, truncated: r.data.truncated ?? false, record: r.record };
    },
    activities: async (p, options) => {
      const r = await getJson('/activities', new URLSearchParams({ start: iso(p.startMs), end: iso(p.endMs), limit: String(p.limit) }), Items(ClinicActivityItem), options);
      return { data: r.data.items, truncated: r.data.truncated ?? false, record: r.record };
    },
    components: async (options) => {
      const r = await getJson('/components', null, Items(ClinicComponentItem), options);
      return { data: r.data.items, record: r.record };
    },
    configuration: async (selectors, options) => {
      // Exact selectors only: Clinic is never asked for a whole configuration.
      const params = new URLSearchParams();
      for (const s of selectors) params.append('selector', `${s.component}:${s.key}`);
      const r = await getJson('/configuration', params, Items(ClinicConfigItem), options);
      return { data: r.data.items, record: r.record };
    },
  };
}


/** Org-level Clinic reads for the inventory: the token's orgs and each org's clusters. */
export interface ClinicOrgApi {
  orgs(options?: ClinicCallOptions): Promise<{ data: ClinicOrgItem[]; truncated: boolean; record: HttpCallRecord }>;
  clusters(orgId: string, params: { limit: number }, options?: ClinicCallOptions): Promise<{ data: ClinicClusterItem[]; truncated: boolean; record: HttpCallRecord }>;
}

/**
 * Read-only Clinic client for the inventory. `GET /api/v1/orgs` lists the orgs the token may
 * read; `GET /api/v1/orgs/{org}/clusters?limit` lists an org's clusters and carries the org scope
 * header (there is no cluster yet to scope by). Same token, retries and records as `clinicApi`.
 */
export function clinicOrgApi(config: ClinicApiConfig): ClinicOrgApi {
  const base = config.baseUrl.replace(/\/$/, '');
  const secrets = [config.token, base];
  async function getItems<T extends z.ZodType>(path: string, headers: Record<string, string>, item: T, what: string, options: ClinicCallOptions = {}) {
    const response = await providerRequest({
      url: `${base}${path}`,
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${config.token}`, ...headers },
      signal: options.signal,
      retryDelaysMs: options.retryDelaysMs,
      secrets,
      maxResponseBytes: config.maxResponseBytes ?? 4 * 1024 * 1024,
    });
    const parsed = Items(item).safeParse(safeJson(response.body));
    if (!parsed.success) throw Object.assign(new ProviderError('PROVIDER.RESPONSE_INVALID', `Clinic answered ${what} with an unexpected body`), { record: response.record });
    return { data: parsed.data.items as z.infer<T>[], truncated: parsed.data.truncated ?? false, record: response.record };
  }
  return {
    orgs: (options) => getItems('/api/v1/orgs', {}, ClinicOrgItem, 'the org list', options),
    clusters: (orgId, params, options) =>
      getItems(`/api/v1/orgs/${encodeURIComponent(orgId)}/clusters?${new URLSearchParams({ limit: String(params.limit) }).toString()}`, { [CLINIC_ORG_HEADER]: orgId }, ClinicClusterItem, 'the cluster list', options),
  };
}
