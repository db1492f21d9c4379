import { executeTool, type AuditRecord, type HttpCallRecord } from '../../index';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '../../../test/prometheus-fixture';
import { prometheusPackage, type PrometheusMetricOut } from './prometheus.package';

const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 60);

/** An incident: p99 rises from 40 ms to 90 ms at 10:38 on one TiDB of cluster tidb-prod-7f3a. */
const SERIES: FixtureSeries[] = [
  {
    metric: 'aoc_query_duration_p99_seconds',
    type: 'gauge',
    labels: { cluster: 'tidb-prod-7f3a', instance: '10.0.3.17:10080' },
    samples: minutes(60).map((t, i) => [t, i < 38 ? 0.04 : 0.09]),
  },
  {
    metric: 'aoc_query_duration_p99_seconds',
    type: 'gauge',
    labels: { cluster: 'tidb-prod-7f3a', instance: '10.0.3.18:10080' },
    samples: minutes(60).map((t) => [t, 0.041]),
  },
];

describe('generic Prometheus package against a real Prometheus', () => {
  let prom: RunningPrometheus;
  const audits: AuditRecord[] = [];
  const records: { queryId: string; record: HttpCallRecord }[] = [];

  beforeAll(async () => {
    prom = await startPrometheus(SERIES);
  }, 60000);
  afterAll(async () => prom?.stop());

  const pkg = () => prometheusPackage([{ name: 'tidb-prod-7f3a', baseUrl: prom.baseUrl }]);
  const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
  const run = (input: unknown) => executeTool(pkg(), input, { audit: (a) => audits.push(a), now: new Date('2026-11-21T00:00:00Z'), onHttpRecord: (queryId, record) => records.push({ queryId, record }) });

  it('returns compact, sanitised summaries; text is the exact JSON of details', async () => {
    const result = await run({
      target: 'tidb-prod-7f3a',
      window,
      queries: [
        { id: 'p99', kind: 'range', promql: 'aoc_query_duration_p99_seconds{cluster="tidb-prod-7f3a"}', stepSeconds: 60 },
        { id: 'p99_max', kind: 'instant', promql: 'max(max_over_time(aoc_query_duration_p99_seconds{cluster="tidb-prod-7f3a"}[1h]))' },
        { id: 'missing', kind: 'range', promql: 'no_such_metric{cluster="tidb-prod-7f3a"}' },
      ],
    });
    expect(result.ok).toBe(true);
    expect(result.text).toBe(JSON.stringify(result.details));
    if (!result.ok) return;
    const [p99, max, missing] = result.details.queries as PrometheusMetricOut[];
    expect(p99).toMatchObject({ id: 'p99', status: 'complete', resultType: 'matrix', seriesCount: 2 });
    expect(p99.series?.[0]).toMatchObject({ max: 0.09, min: 0.04, first: 0.04, last: 0.09, maxAt: '2026-11-20T10:38:00.000Z' });
    // Robust z against the first half of the window: a flat 40 ms baseline, a real step to 90 ms.
    expect(p99.series?.[0]).toMatchObject({ baselineMedian: 0.04, recentMedian: 0.09, anomalyScore: 125, direction: 'up', shiftAt: '2026-11-20T10:38:00.000Z' });
    expect(p99.series?.[1]).toMatchObject({ anomalyScore: 0, direction: null, shiftAt: null });
    expect(JSON.stringify(p99.series)).not.toContain('10.0.3.17');
    expect(max).toMatchObject({ status: 'complete', resultType: 'vector' });
    expect(max.series?.[0].last).toBe(0.09);
    expect(missing).toMatchObject({ id: 'missing', status: 'empty', seriesCount: 0 });
    expect(records.filter((r) => r.queryId === 'p99')[0].record.attempts.map((a) => a.statusClass)).toEqual(['200']);
    expect(audits.at(-1)).toMatchObject({ tool: 'prometheus_query_batch', outcome: 'success' });
    expect(result.text).not.toContain(prom.baseUrl.replace('http://', ''));
  });

  it('passes a Prometheus rejection through as the query detail, without re-diagnosis', async () => {
    const result = await run({ target: 'tidb-prod-7f3a', window, queries: [{ id: 'bad', kind: 'range', promql: 'aoc_query_duration_p99_seconds{cluster="tidb-prod-7f3a"}[5m]' }] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const q = result.details.queries[0] as PrometheusMetricOut;
    expect(q.status).toBe('failed');
    expect(q.error_code).toBe('PROVIDER.QUERY_REJECTED');
    // Prometheus' own words, not ours.
    expect(q.detail_error).toMatch(/range vector/);
  });

  it('refuses before any network use: unknown target, reversed window, invalid PromQL, 13 queries', async () => {
    const before = records.length;
    const unknown = await run({ target: 'other', window, queries: [{ id: 'a', kind: 'instant', promql: 'up' }] });
    expect(unknown.ok ? null : unknown.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
    // A window longer than the metrics limit is read for its last part (prometheus-series-shape.integration-spec.ts); a reversed one is refused.
    const reversed = await run({ target: 'tidb-prod-7f3a', window: { from: '2026-11-20T00:00:00Z', to: '2026-09-01T00:00:00Z' }, queries: [{ id: 'a', kind: 'instant', promql: 'up' }] });
    expect(reversed.ok ? null : reversed.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    const tooMany = await run({ target: 'tidb-prod-7f3a', window, queries: Array.from({ length: 13 }, (_, i) => ({ id: `q${i}`, kind: 'instant', promql: 'up' })) });
    expect(tooMany.ok ? null : tooMany.details.detail_error).toContain('queries');
    const invalid = await run({ target: 'tidb-prod-7f3a', window, queries: [{ id: 'x', kind: 'instant', promql: 'rate(up[5m]' }] });
    expect(invalid.ok && (invalid.details.queries[0] as PrometheusMetricOut).error_code).toBe('PROVIDER.QUERY_REJECTED');
    expect(records.length).toBe(before);
  });
});
