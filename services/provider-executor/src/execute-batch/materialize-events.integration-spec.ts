import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import { prometheusEvidencePackage } from '@aoc/providers';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '@aoc/providers/testing';
import { materializeFacts } from './materialize-facts';

const T = 'pg-events-1';
const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
/** One sample a minute from 09:00 (the hour before the window) to 11:00. */
const minutes = Array.from({ length: 121 }, (_, i) => T0 - 3600 + i * 60);
const gauge = (metric: string, labels: Record<string, string>, value: (t: number) => number | null): FixtureSeries => ({
  metric,
  type: 'gauge',
  labels: { cluster: T, ...labels },
  samples: minutes.flatMap((t) => {
    const v = value(t);
    return v === null ? [] : [[t, v] as [number, number]];
  }),
});
const restartAt = T0 + 2400 - 30;

/** An incident told by metrics only: a failover at 10:31, a restart at 10:39:30, a setting change at 10:20, an alert from 10:12. */
const SERIES: FixtureSeries[] = [
  gauge('pg_replication_is_replica', { instance: 'a' }, (t) => (t < T0 + 1860 ? 1 : 0)),
  gauge('pg_postmaster_start_time_seconds', { instance: 'a' }, (t) => (t < T0 + 2400 ? 1_700_000_000 : restartAt)),
  gauge('pg_settings_work_mem_bytes', { instance: 'a' }, (t) => (t < T0 + 1200 ? 4_194_304 : 67_108_864)),
  gauge('pg_settings_shared_buffers_bytes', { instance: 'a' }, () => 1e9),
  gauge('mysql_global_status_uptime', { instance: 'm' }, (t) => (t < T0 + 2400 ? 50_000 + t - T0 : t - T0 - 2400)),
  gauge('mysql_slave_status_seconds_behind_master', { instance: 'm' }, (t) => (t < T0 + 1800 ? 3 : null)),
  gauge('ALERTS', { alertname: 'PostgresqlTooManyConnections', alertstate: 'firing', severity: 'critical' }, (t) => (t >= T0 + 720 ? 1 : null)),
  gauge('ALERTS', { alertname: 'PostgresqlTooManyConnections', alertstate: 'pending', severity: 'critical' }, (t) => (t >= T0 + 600 && t < T0 + 720 ? 1 : null)),
];

const S = `{__name__=~"pg_settings_.+",cluster="${T}"}`;
/** The expressions the built-in planner writes for these metrics (services/evidence family-plan.ts). */
const PLAN: PlannedQueryV1[] = [
  { id: 'failover', operation: 'promql_range', expression: `max(pg_replication_is_replica{cluster="${T}"})`, purpose: 'failover' },
  { id: 'restarts', operation: 'promql_range', expression: `max(pg_postmaster_start_time_seconds{cluster="${T}"})`, purpose: 'restarts' },
  { id: 'uptime', operation: 'promql_range', expression: `min(mysql_global_status_uptime{cluster="${T}"})`, purpose: 'uptime' },
  { id: 'replica', operation: 'promql_range', expression: `max(mysql_slave_status_seconds_behind_master{cluster="${T}"})`, purpose: 'replica lag' },
  { id: 'alerts_firing', operation: 'promql_range', expression: `max by (alertname, severity) (ALERTS{alertstate="firing",cluster="${T}"})`, purpose: 'alerts firing' },
  { id: 'settings_changed', operation: 'promql_range', expression: `max by (__name__) (${S}) and on(__name__) (max by (__name__) (${S} @ end()) != on(__name__) max by (__name__) (${S} @ start()))`, purpose: 'settings changed' },
];

describe('events derived from metrics, from a real Prometheus through the generic package', () => {
  let prom: RunningPrometheus;
  beforeAll(async () => {
    prom = await startPrometheus(SERIES);
  }, 60000);
  afterAll(async () => prom?.stop());

  it('materialises a failover, restarts, a vanished replica, a changed setting and a firing alert as event facts', async () => {
    const pkg = prometheusEvidencePackage([{ name: T, baseUrl: prom.baseUrl }]);
    const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
    const result = await pkg.runBatch({ ticketKey: null, target: T, window, queries: PLAN.map((q) => ({ id: q.id, operation: q.operation, expression: q.expression, window })) });
    if (!result.ok) throw new Error(result.details.error_code);
    const { facts, gaps } = materializeFacts(PLAN, result.details.queries);
    for (const f of facts) EvidenceFactV1.parse(f);
    const events = facts.filter((f) => f.kind === 'event').map((f) => [f.queryId, f.attributes]);
    expect(events).toEqual([
      ['failover', expect.objectContaining({ source: 'metrics', event: 'role_change', family: 'failover', at: '2026-11-20T10:31:00.000Z', metric: 'pg_replication_is_replica', from: 1, to: 0 })],
      ['restarts', expect.objectContaining({ event: 'restart', family: 'restarts', at: new Date(restartAt * 1000).toISOString(), metric: 'pg_postmaster_start_time_seconds', from: 1_700_000_000, to: restartAt })],
      ['uptime', expect.objectContaining({ event: 'restart', family: 'uptime', at: '2026-11-20T10:40:00.000Z', from: 52_340, to: 0 })],
      // The replica status rows stop; Prometheus still answers the last sample for its 5-minute lookback.
      ['replica', expect.objectContaining({ event: 'role_change', metric: 'mysql_slave_status_seconds_behind_master', at: '2026-11-20T10:34:00.000Z', from: 1, to: 0 })],
      ['alerts_firing', expect.objectContaining({ event: 'alert_firing', family: 'connections', at: '2026-11-20T10:12:00.000Z', metric: 'ALERTS', alertname: 'PostgresqlTooManyConnections', severity: 'critical' })],
      ['settings_changed', expect.objectContaining({ event: 'config_change', metric: 'pg_settings_work_mem_bytes', at: '2026-11-20T10:20:00.000Z', from: 4_194_304, to: 67_108_864 })],
    ]);
    // The metric facts carry the hour before the window: uptime was already running then.
    expect(facts.find((f) => f.queryId === 'uptime' && f.kind === 'metric_summary')?.attributes).toMatchObject({ priorMedian: 48_170, shape: expect.stringMatching(/^([-0-9.e+]+|null)(,([-0-9.e+]+|null)){11}$/) });
    // Only the changed setting comes back; the unchanged one is no event and no series.
    expect(facts.some((f) => f.subject.includes('shared_buffers'))).toBe(false);
    expect(gaps.filter((g) => /could not/.test(g))).toEqual([]);
  });
});
