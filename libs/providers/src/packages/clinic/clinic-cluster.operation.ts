import { opaqueRef } from '../../core/sanitize';
import type { ClinicQueryOf } from './clinic-input.schema';
import { safeLabel, tracked, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { ActivitiesResult, ClusterMetadataResult, ComponentsResult } from './clinic-output.schema';

const HEALTHY = new Set(['up', 'healthy', 'running', 'normal', 'online', 'serving', 'available']);
const MAX_ACTIVITY_EVENTS = 50;
const DEFAULT_ACTIVITY_LIMIT = 100;

const isoOrNull = (v: string | null | undefined) => {
  const ms = v ? Date.parse(v) : NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

/** Minimal, non-commercial metadata; the verified copy from bootstrap is reused, not refetched. */
export function runClusterMetadataQuery(_q: ClinicQueryOf<'cluster_metadata'>, ctx: ClinicOperationContext): Promise<OperationOutcome<ClusterMetadataResult>> {
  const m = ctx.metadata;
  return Promise.resolve({
    status: 'complete',
    result: {
      cluster_id: m.cluster_id,
      tier: safeLabel(m.tier),
      version: safeLabel(m.version, 'unknown'),
      status: safeLabel(m.status),
      region: m.region ? safeLabel(m.region) : null,
      cloud_provider: m.cloud_provider ? safeLabel(m.cloud_provider) : null,
    },
  });
}

/** Component counts by health; no addresses, hosts or instance specs. */
export async function runComponentsQuery(_q: ClinicQueryOf<'components'>, ctx: ClinicOperationContext): Promise<OperationOutcome<ComponentsResult>> {
  const { data } = await tracked(ctx, ctx.api.components({ signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }));
  const byComponent = new Map<string, { count: number; healthy: number }>();
  for (const item of data) {
    const name = safeLabel(item.component.toLowerCase());
    const c = byComponent.get(name) ?? { count: 0, healthy: 0 };
    c.count += 1;
    if (HEALTHY.has(item.status.toLowerCase())) c.healthy += 1;
    byComponent.set(name, c);
  }
  const components = [...byComponent.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([component, c]) => ({ component, count: c.count, healthy: c.healthy, unhealthy: c.count - c.healthy }));
  return { status: components.length === 0 ? 'empty' : 'complete', result: { total: data.length, components } };
}

/** Cluster activities (upgrades, scaling, restarts...) with opaque ids; operators and free text are dropped. */
export async function runActivitiesQuery(q: ClinicQueryOf<'activities'>, ctx: ClinicOperationContext): Promise<OperationOutcome<ActivitiesResult>> {
  const limit = q.limit ?? DEFAULT_ACTIVITY_LIMIT;
  const { data, truncated } = await tracked(ctx, ctx.api.activities({ startMs: ctx.window.fromMs, endMs: ctx.window.toMs, limit }, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }));
  const events = data
    .map((a) => ({
      activity_ref: opaqueRef('activity', a.id),
      type: safeLabel(a.type.toLowerCase()),
      status: safeLabel(a.status.toLowerCase()),
      component: a.component ? safeLabel(a.component.toLowerCase()) : null,
      started_at: isoOrNull(a.started_at) ?? 'unknown',
      finished_at: isoOrNull(a.finished_at),
    }))
    .sort((a, b) => (a.started_at < b.started_at ? 1 : -1));
  const byType = new Map<string, number>();
  for (const e of events) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  return {
    status: events.length === 0 ? 'empty' : 'complete',
    result: {
      total: events.length,
      truncated: truncated || events.length > MAX_ACTIVITY_EVENTS || data.length >= limit,
      by_type: [...byType.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([type, count]) => ({ type, count })),
      events: events.slice(0, MAX_ACTIVITY_EVENTS),
    },
  };
}
