import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '../../test/prometheus-fixture';
import { ProviderError } from '../core/provider-error';
import { prometheusEvidencePackage } from '../packages/prometheus/prometheus.package';
import { DISCOVERY_LIMITS, discoverMetrics, listTargetValues } from './prometheus-discovery';
import { queryPrometheus } from './prometheus-connector';

const T0 = Math.floor((Date.now() - 3 * 86_400_000) / 3_600_000) * 3600;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 60);
const WINDOW = { startMs: T0 * 1000, endMs: (T0 + 3600) * 1000 };

/** 10,000 series on one target (one metric name per 20 series), odd names, NaN samples, a one-point series, a counter reset. */
function series(): FixtureSeries[] {
  const out: FixtureSeries[] = [];
  for (let i = 0; i < 10_000; i++) {
    out.push({ metric: `bulk_metric_${Math.floor(i / 20)}`, type: 'gauge', labels: { cluster: 'big-one', shard: String(i) }, samples: [[T0 + 60, i]] });
  }
  const samples = minutes(60);
  out.push({ metric: 'odd:recording_rule:rate5m', type: 'gauge', labels: { cluster: 'odd.db-1', __weird_Label_9: 'x' }, samples: samples.map((t) => [t, 1]) });
  out.push({ metric: 'nan_inf_gauge', type: 'gauge', labels: { cluster: 'odd.db-1' }, samples: samples.map((t, i) => [t, i % 2 === 0 ? Number.NaN : 5]) });
  out.push({ metric: 'one_point_gauge', type: 'gauge', labels: { cluster: 'odd.db-1' }, samples: [[T0 + 120, 7]] });
  out.push({ metric: 'resetting_total', type: 'counter', labels: { cluster: 'odd.db-1' }, samples: samples.map((t, i) => [t, i < 30 ? i * 100 : (i - 30) * 100]) });
  // A value no target may carry: quotes and spaces are dropped from the inventory.
  out.push({ metric: 'up', type: 'gauge', labels: { cluster: 'bad value' }, samples: [[T0 + 60, 1]] });
  return out;
}

describe('Prometheus discovery against a real Prometheus', () => {
  let prom: RunningPrometheus;
  beforeAll(async () => {
    prom = await startPrometheus(series());
  }, 180000);
  afterAll(async () => prom?.stop());

  it('lists the target label values as the inventory, dropping values that cannot be targets', async () => {
    const { values, truncated } = await listTargetValues({ baseUrl: prom.baseUrl }, 'cluster', { startMs: (T0 - 86400) * 1000, endMs: (T0 + 86400) * 1000 });
    expect(values).toEqual(['big-one', 'odd.db-1']);
    expect(truncated).toBe(false);
  });

  it('bounds the catalogue of a target with 10,000 series (names only once the series list is too large)', async () => {
    const catalog = await discoverMetrics({ baseUrl: prom.baseUrl }, { label: 'cluster', value: 'big-one' }, WINDOW);
    expect(catalog.metrics.length).toBeLessThanOrEqual(DISCOVERY_LIMITS.maxMetrics);
    expect(catalog.truncated).toBe(true);
    expect(catalog.metrics.every((m) => /^[A-Za-z_:][A-Za-z0-9_:]*$/.test(m.name))).toBe(true);
    expect(JSON.stringify(catalog).length).toBeLessThan(64 * 1024);
  }, 60000);

  it('keeps valid odd names and label keys, never label values', async () => {
    const catalog = await discoverMetrics({ baseUrl: prom.baseUrl }, { label: 'cluster', value: 'odd.db-1' }, WINDOW);
    const names = catalog.metrics.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['odd:recording_rule:rate5m', 'nan_inf_gauge', 'one_point_gauge', 'resetting_total']));
    expect(JSON.stringify(catalog)).not.toContain('"x"');
    expect(catalog.metrics.find((m) => m.name === 'nan_inf_gauge')?.labelKeys).toEqual(['cluster']);
  });

  it('summarises NaN samples, one-point series and counter resets without failing', async () => {
    const q = (promql: string) => queryPrometheus({ baseUrl: prom.baseUrl }, { kind: 'range', promql, startMs: WINDOW.startMs, endMs: WINDOW.endMs, stepSeconds: 60 });
    const nan = await q('max(nan_inf_gauge{cluster="odd.db-1"})');
    expect(nan.result.series[0]).toMatchObject({ max: 5, min: 5 });
    const one = await q('max(one_point_gauge{cluster="odd.db-1"})');
    expect(one.result.series[0]?.anomalyScore ?? null).toBeNull();
    const reset = await q('sum(rate(resetting_total{cluster="odd.db-1"}[5m]))');
    expect(reset.result.series[0]?.min).toBeGreaterThanOrEqual(0);
  });

  it('an unsafe target value is refused before any request', async () => {
    await expect(discoverMetrics({ baseUrl: prom.baseUrl }, { label: 'cluster', value: 'x"} or up{' }, WINDOW)).rejects.toMatchObject({ code: 'PROVIDER.TARGET_REJECTED' });
  });

  it('through the package: a target outside the inventory fails discovery with a code, an empty window is "empty"', async () => {
    const pkg = prometheusEvidencePackage([{ name: 'metrics', baseUrl: prom.baseUrl, targetLabel: 'cluster' }]);
    const window = { from: new Date(WINDOW.startMs).toISOString(), to: new Date(WINDOW.endMs).toISOString() };
    await expect(pkg.discoverMetrics?.({ target: 'not-there', window })).resolves.toMatchObject({ status: 'failed', failureCode: 'PROVIDER.TARGET_REJECTED' });
    const before = { from: new Date(WINDOW.startMs - 10 * 86_400_000).toISOString(), to: new Date(WINDOW.startMs - 9 * 86_400_000).toISOString() };
    await expect(pkg.discoverMetrics?.({ target: 'odd.db-1', window: before })).resolves.toMatchObject({ status: 'empty', metrics: [], targetLabel: 'cluster' });
  });
});

describe('Prometheus discovery when Prometheus is down or slow', () => {
  let slow: Server;
  let slowUrl: string;
  beforeAll(async () => {
    slow = createServer((_req, res) => setTimeout(() => res.end('{"status":"success","data":[]}'), 5000));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
  });

  it('a Prometheus that is down: the package reports the inventory unavailable and discovery failed, with codes', async () => {
    const pkg = prometheusEvidencePackage([{ name: 'metrics', baseUrl: 'http://127.0.0.1:9', targetLabel: 'cluster' }]);
    await expect(pkg.listTargets?.()).resolves.toMatchObject({ status: 'unavailable', targets: [], failureCode: 'PROVIDER.UNREACHABLE' });
    await expect(pkg.discoverMetrics?.({ target: 'payments-prod', window: { from: '2026-11-30T13:00:00Z', to: '2026-11-30T14:00:00Z' } })).resolves.toMatchObject({ status: 'failed' });
  });

  it('a slow Prometheus is cut by the deadline with a timeout code', async () => {
    const error = await discoverMetrics({ baseUrl: slowUrl }, { label: 'cluster', value: 'x' }, { ...WINDOW, signal: AbortSignal.timeout(300), retryDelaysMs: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('PROVIDER.TIMEOUT');
  });
});
