import { ProviderError } from '../core/provider-error';
import { recordOf, type HttpCallRecord } from './http-client';
import { queryPrometheus, type PromQueryResult } from './prometheus-connector';

export type GrafanaAuth = { kind: 'bearer'; token: string } | { kind: 'basic'; username: string; password: string };

/** A Prometheus datasource reached through Grafana's datasource proxy. */
export interface GrafanaDatasource {
  /** Grafana origin, e.g. `https://grafana.example` (scheme, host, optional port; no path). */
  origin: string;
  /** `/api/datasources/proxy/uid/<uid>` (or the legacy numeric id form). */
  datasourcePath: string;
  auth: GrafanaAuth;
}

export const DATASOURCE_PROXY_PATH = /^\/api\/datasources\/proxy\/(?:uid\/[A-Za-z0-9_-]{1,64}|\d{1,10})$/;
export const GRAFANA_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

export function datasourceProxyPath(uid: string): string {
  const path = `/api/datasources/proxy/uid/${uid}`;
  if (!DATASOURCE_PROXY_PATH.test(path)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'datasource uid is not a safe identifier');
  return path;
}

function authHeader(auth: GrafanaAuth): string {
  return auth.kind === 'bearer' ? `Bearer ${auth.token}` : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
}

/** Every value of the datasource that must never appear in a result or an error detail. */
export function grafanaSecrets(ds: GrafanaDatasource): string[] {
  const header = authHeader(ds.auth);
  const values = ds.auth.kind === 'bearer' ? [ds.auth.token] : [ds.auth.password];
  return [...values, header, header.split(' ')[1], ds.origin, ds.origin.replace(/^https?:\/\//, '')];
}

export interface GrafanaRangeQuery {
  promql: string;
  startMs: number;
  endMs: number;
  stepSeconds: number;
}

/**
 * The fixed `query_range` endpoint of one datasource, nothing else: the path is built here from
 * trusted configuration and never from caller input. A 401/403 from Grafana is a credential
 * failure; other 4xx (including Prometheus' own rejection text) pass through unchanged.
 */
export async function grafanaQueryRange(
  ds: GrafanaDatasource,
  query: GrafanaRangeQuery,
  options: { signal?: AbortSignal; maxSeries?: number; maxResponseBytes?: number; retryDelaysMs?: readonly number[] } = {},
): Promise<{ result: PromQueryResult; record: HttpCallRecord }> {
  if (!GRAFANA_ORIGIN.test(ds.origin)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'the configured Grafana origin is not a plain http(s) origin');
  if (!DATASOURCE_PROXY_PATH.test(ds.datasourcePath)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'the configured datasource path is not a Grafana datasource proxy path');
  try {
    return await queryPrometheus(
      { baseUrl: `${ds.origin}${ds.datasourcePath}`, headers: { authorization: authHeader(ds.auth) }, secrets: grafanaSecrets(ds) },
      { kind: 'range', ...query },
      options,
    );
  } catch (error) {
    if (error instanceof ProviderError && error.code === 'PROVIDER.HTTP_4XX') {
      const status = typeof error.details['httpStatus'] === 'number' ? error.details['httpStatus'] : 0;
      if (status === 401 || status === 403) {
        throw Object.assign(new ProviderError('PROVIDER.AUTH_FAILED', `Grafana refused the credential of this target (${status}): ${error.detail}`, { httpStatus: status }), { record: recordOf(error) });
      }
    }
    throw error;
  }
}
