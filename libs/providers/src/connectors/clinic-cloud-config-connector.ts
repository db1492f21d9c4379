import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { providerRequest, type HttpCallRecord } from './http-client';
import { CLINIC_ORG_HEADER, type ClinicCallOptions, type ClinicScope } from './clinic-api-connector';

/** DevOps CloudConfig: the bounded fallback for configuration values Clinic could not give. */
export interface CloudConfigApiConfig {
  baseUrl: string;
  token: string;
}

export const CloudConfigItem = z.object({
  component: z.string(),
  key: z.string(),
  value: z.unknown(),
  /** An explicit per-cluster value, or the default of an exact cluster version. */
  scope: z.enum(['cluster', 'version_default']),
  version: z.string().nullish(),
});
export type CloudConfigItem = z.infer<typeof CloudConfigItem>;

const CloudConfigResponse = z.object({ items: z.array(CloudConfigItem) });

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Reads exact configuration keys of one cluster from CloudConfig with its own credential. The
 * cluster version lets CloudConfig answer with version defaults; the caller decides precedence.
 */
export async function fetchCloudConfigValues(
  config: CloudConfigApiConfig,
  scope: ClinicScope,
  request: { clusterVersion: string; selectors: readonly { component: string; key: string }[] },
  options: ClinicCallOptions = {},
): Promise<{ data: CloudConfigItem[]; record: HttpCallRecord }> {
  const base = config.baseUrl.replace(/\/$/, '');
  const params = new URLSearchParams({ version: request.clusterVersion });
  for (const s of request.selectors) params.append('selector', `${s.component}:${s.key}`);
  const response = await providerRequest({
    url: `${base}/api/v1/clusters/${encodeURIComponent(scope.clusterId)}/config?${params.toString()}`,
    method: 'GET',
    headers: { accept: 'application/json', authorization: `Bearer ${config.token}`, [CLINIC_ORG_HEADER]: scope.orgId },
    signal: options.signal,
    retryDelaysMs: options.retryDelaysMs,
    secrets: [config.token, base],
    maxResponseBytes: 1024 * 1024,
  });
  const parsed = CloudConfigResponse.safeParse(safeJson(response.body));
  if (!parsed.success) throw Object.assign(new ProviderError('PROVIDER.RESPONSE_INVALID', 'CloudConfig answered with an unexpected body'), { record: response.record });
  return { data: parsed.data.items, record: response.record };
}
