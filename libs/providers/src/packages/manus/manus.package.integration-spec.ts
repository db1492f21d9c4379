import { randomBytes } from 'node:crypto';
import { executeTool } from '../../core/execute-tool';
import type { HttpCallRecord } from '../../connectors/http-client';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '../../../test/prometheus-fixture';
import { startGrafanaProxy, type RunningGrafanaProxy } from '../../../test/dashboard-grafana-proxy';
import { manusPackage, type ManusPackage } from './manus.package';

const TOKEN = 'glsa_manus_integration_token_42';
const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 60);
const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };

/** vida: three TiDB servers, one of which saturates at 10:38; a TiKV store alongside. */
const SERIES: FixtureSeries[] = [
  { metric: 'tidb_server_cpu_seconds_total', type: 'counter', labels: { job: 'tidb', instance: 'vida-tidb-0.vida-tidb-peer.vida.svc:10080' }, samples: minutes(60).map((t, i) => [t, i * 30]) },
  { metric: 'tidb_server_cpu_seconds_total', type: 'counter', labels: { job: 'tidb', instance: 'vida-tidb-1.vida-tidb-peer.vida.svc:10080' }, samples: minutes(60).map((t, i) => [t, i < 38 ? i * 30 : 38 * 30 + (i - 38) * 58]) },
  { metric: 'tidb_server_cpu_seconds_total', type: 'counter', labels: { job: 'tidb', instance: '10.42.7.9:10080' }, samples: minutes(60).map((t, i) => [t, i * 31]) },
  { metric: 'tikv_store_size_bytes', type: 'gauge', labels: { job: 'tikv', instance: '10.42.8.1:20180' }, samples: minutes(60).map((t) => [t, 1e9]) },
];

describe('manus package against a real Prometheus behind a Grafana datasource proxy', () => {
  let prom: RunningPrometheus;
  let proxy: RunningGrafanaProxy;
  let pkg: ManusPackage;
  const key = randomBytes(32).toString('base64url');
  const records: { queryId: string; record: HttpCallRecord }[] = [];

  beforeAll(async () => {
    prom = await startPrometheus(SERIES);
    proxy = await startGrafanaProxy({ 'vida-ds': { authorization: `Bearer ${TOKEN}`, upstream: prom.baseUrl } });
    pkg = manusPackage({
      targets: { vida: { grafanaOrigin: proxy.origin, datasourcePath: '/api/datasources/proxy/uid/vida-ds' } },
      credential: { token: TOKEN },
      instanceRefKey: key,
      limits: { retryDelaysMs: [10, 10] },
    });
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await prom?.stop();
  });

  const run = (input: unknown, p = pkg) => executeTool(p.tool, input, { now: NOW, onHttpRecord: (queryId, record) => records.push({ queryId, record }) });

  it('finds the saturated TiDB, hands back a sealed reference, and selects that same instance with it', async () => {
    const first = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'cpu', promql: 'rate(tidb_server_cpu_seconds_total[2m])', stepSeconds: 60 }] });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const cpu = first.details.queries[0];
    expect(cpu).toMatchObject({ status: 'complete', seriesCount: 3 });
    expect(first.text).not.toMatch(/vida-tidb-|10\.42\.|svc/);
    const hottest = cpu.series?.[0];
    expect(hottest?.max).toBeCloseTo(58 / 60, 2);
    expect(hottest?.labels).toEqual({ job: 'tidb' });
    const ref = hottest?.instanceRefs?.['instance'] ?? '';

    const again = await run({ target: 'vida', window: { from: '2026-11-20T10:30:00Z', to: '2026-11-20T11:00:00Z' }, queries: [{ id: 'one', promql: 'max_over_time(rate(tidb_server_cpu_seconds_total[2m])[10m:1m])', instanceRef: ref }] });
    expect(again.ok && again.details.queries[0]).toMatchObject({ status: 'complete', seriesCount: 1, instanceFiltered: true });
    if (!again.ok) return;
    expect(again.details.queries[0].series?.[0].max).toBeCloseTo(58 / 60, 2);
    // Another call seals the same address under a fresh IV: a different string, the same instance.
    expect(again.details.queries[0].series?.[0].instanceRefs?.['instance']).not.toBe(ref);
    expect(proxy.requests.at(-1)?.form.get('query')).toContain('instance="vida-tidb-1.vida-tidb-peer.vida.svc:10080"');
  });

  it('refuses tampered and foreign-key references before reaching Prometheus', async () => {
    const first = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'kv', promql: 'tikv_store_size_bytes' }] });
    const ref = (first.ok && first.details.queries[0].series?.[0].instanceRefs?.['instance']) || '';
    const before = proxy.requests.length;
    const tampered = ref.slice(0, -3) + (ref.endsWith('AAA') ? 'BBB' : 'AAA');
    const foreign = manusPackage({
      targets: { vida: { grafanaOrigin: proxy.origin, datasourcePath: '/api/datasources/proxy/uid/vida-ds' } },
      credential: { token: TOKEN },
      instanceRefKey: randomBytes(32).toString('hex'),
    });
    for (const [p, instanceRef] of [
      [pkg, tampered],
      [foreign, ref],
    ] as const) {
      const result = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'x', promql: 'up', instanceRef }] }, p);
      expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(/^queries\.x\.instanceRef: instance reference (failed authentication|is malformed)/) });
    }
    expect(proxy.requests.length).toBe(before);
  });

  it("passes Prometheus' own 4xx rejection through without retrying it", async () => {
    const before = proxy.requests.length;
    const result = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'bad', promql: 'tidb_server_cpu_seconds_total[5m]' }] });
    expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/range vector/) });
    expect(proxy.requests.length - before).toBe(1);
  });

  it('retries a 5xx from the proxy and records the recovered episode', async () => {
    proxy.failNext(2, { status: 502, body: '{"message":"Bad Gateway"}' });
    const result = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'kv5', promql: 'tikv_store_size_bytes' }] });
    expect(result.ok && result.details.queries[0].status).toBe('complete');
    const record = records.find((r) => r.queryId === 'kv5')?.record;
    expect(record?.attempts.map((a) => a.statusClass)).toEqual(['502', '502', '200']);
    expect(record?.systemEvent?.result).toBe('recovered');
  });

  it('summarises the hour before the window apart (priorMedian), through the proxy, and the window as it is', async () => {
    const result = await run({ target: 'vida', window: { from: '2026-11-20T10:30:00Z', to: '2026-11-20T11:00:00Z' }, queries: [{ id: 'kv', promql: 'tikv_store_size_bytes', stepSeconds: 60 }] });
    const kv = result.ok ? result.details.queries[0].series?.[0] : undefined;
    // Samples exist from 10:00 to 10:59: the window's 31 steps (10:30 to 11:00, the last by the 5-minute lookback), the hour before 30 (10:00 to 10:29).
    expect(kv).toMatchObject({ points: 31, priorPoints: 30, priorMedian: 1e9, first: 1e9, slope: 0, trend: 0 });
    expect(kv?.shape).toHaveLength(12);
  });

  it('reads the last 7 days of a longer window and says so; a reversed window is refused before any network use', async () => {
    const long = await run({ target: 'vida', window: { from: '2026-11-10T00:00:00Z', to: '2026-11-20T00:00:00Z' }, queries: [{ id: 'a', promql: 'up' }] });
    expect(long.ok && long.details.queries[0]).toMatchObject({ clampedWindow: { from: '2026-11-13T00:00:00.000Z', to: '2026-11-20T00:00:00Z' } });
    expect(proxy.requests.at(-1)?.form.get('start')).toBe(String(Date.parse('2026-11-13T00:00:00Z') / 1000));
    const before = proxy.requests.length;
    const reversed = await run({ target: 'vida', window: { from: '2026-11-20T00:00:00Z', to: '2026-11-10T00:00:00Z' }, queries: [{ id: 'a', promql: 'up' }] });
    expect(reversed.ok ? null : reversed.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    expect(proxy.requests.length).toBe(before);
  });
});
