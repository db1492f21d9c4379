import { fetchCloudConfigValues, type CloudConfigItem } from '../../connectors/clinic-cloud-config-connector';
import { ProviderError } from '../../core/provider-error';
import type { ClinicQueryOf, ConfigSelector } from './clinic-input.schema';
import { tracked, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { ConfigurationResult } from './clinic-output.schema';

type Value = ConfigurationResult['values'][number];
type Missing = ConfigurationResult['missing'][number];
type Scalar = string | number | boolean | null;

const selectorKey = (s: { component: string; key: string }) => `${s.component}:${s.key}`;

function scalarOf(value: unknown): { ok: true; value: Scalar } | { ok: false } {
  if (value === null || typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'number') return Number.isFinite(value) ? { ok: true, value } : { ok: false };
  if (typeof value === 'string') return { ok: true, value: value.slice(0, 256) };
  // A section or list means the key was not one exact value; it is never expanded.
  return { ok: false };
}

/** An explicit cluster value wins; a default counts only for the cluster's exact version. */
function pickCloudConfig(items: readonly CloudConfigItem[], selector: ConfigSelector, version: string): CloudConfigItem | null {
  const matching = items.filter((i) => i.component === selector.component && i.key === selector.key);
  return matching.find((i) => i.scope === 'cluster') ?? matching.find((i) => i.scope === 'version_default' && i.version === version) ?? null;
}

/**
 * Exact, non-secret configuration values. Clinic's configuration endpoint answers first, with
 * both scope headers; CloudConfig is asked only after a Clinic 4xx or for keys Clinic omitted.
 * Only the requested keys are ever kept, whatever either side returns.
 */
export async function runConfigurationQuery(q: ClinicQueryOf<'configuration'>, ctx: ClinicOperationContext): Promise<OperationOutcome<ConfigurationResult>> {
  const values: Value[] = [];
  const missing: Missing[] = [];
  const requested = new Map(q.selectors.map((s) => [selectorKey(s), s]));
  let pending: ConfigSelector[] = [...q.selectors];
  let clinicRejection: ProviderError | null = null;
  try {
    const { data } = await tracked(ctx, ctx.api.configuration(q.selectors, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }));
    const answered = new Set<string>();
    for (const item of data) {
      const key = selectorKey(item);
      const selector = requested.get(key);
      if (!selector || answered.has(key)) continue;
      answered.add(key);
      const scalar = scalarOf(item.value);
      if (scalar.ok) values.push({ component: selector.component, key: selector.key, value: scalar.value, source: 'clinic', scope: null });
      else missing.push({ component: selector.component, key: selector.key, reason: 'not_a_scalar' });
    }
    pending = q.selectors.filter((s) => !answered.has(selectorKey(s)));
  } catch (error) {
    // Only a Clinic request rejection opens the fallback; 5xx, timeouts and bad bodies do not.
    if (!(error instanceof ProviderError) || error.code !== 'PROVIDER.HTTP_4XX') throw error;
    clinicRejection = error;
  }
  let fallbackUsed = false;
  if (pending.length > 0) {
    const cloudConfig = ctx.config.cloudConfig;
    if (!cloudConfig) {
      if (clinicRejection) throw clinicRejection;
      for (const s of pending) missing.push({ component: s.component, key: s.key, reason: 'fallback_unavailable' });
    } else {
      fallbackUsed = true;
      try {
        const { data } = await tracked(ctx, fetchCloudConfigValues(cloudConfig, ctx.scope, { clusterVersion: ctx.metadata.version, selectors: pending }, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }));
        for (const s of pending) {
          const item = pickCloudConfig(data, s, ctx.metadata.version);
          const scalar = item ? scalarOf(item.value) : null;
          if (!item || !scalar) missing.push({ component: s.component, key: s.key, reason: 'not_found' });
          else if (!scalar.ok) missing.push({ component: s.component, key: s.key, reason: 'not_a_scalar' });
          else values.push({ component: s.component, key: s.key, value: scalar.value, source: 'cloud_config', scope: item.scope });
        }
      } catch (error) {
        // With nothing from Clinic either, the fallback's error is the answer; otherwise keep the partial values.
        if (clinicRejection || values.length === 0) throw error;
        for (const s of pending) missing.push({ component: s.component, key: s.key, reason: 'fallback_failed' });
      }
    }
  }
  const order = new Map(q.selectors.map((s, i) => [selectorKey(s), i]));
  const byOrder = <T extends { component: string; key: string }>(a: T, b: T) => (order.get(selectorKey(a)) ?? 0) - (order.get(selectorKey(b)) ?? 0);
  return { status: values.length === 0 ? 'empty' : 'complete', result: { values: values.sort(byOrder), missing: missing.sort(byOrder), fallback_used: fallbackUsed } };
}
