import type { FixtureSeries, TidbDashboardFixture } from '@aoc/providers/testing';
import { WETECH_TEST_CREDENTIALS } from '@aoc/providers/testing';
import { createHash } from 'node:crypto';
import { counter, histogram, minutes, type Distribution } from './series-builders';

/**
 * The bundled examples read through Grafana datasource proxies: one Manus ticket (target `vida`,
 * its own datasource, so no cluster label) and one Wetech APID ticket (`ap-southeast-1/wt-prod-sg-01`,
 * a regional datasource holding several clusters, plus its TiDB Dashboard). Instance addresses
 * are internal on purpose: the packages only ever let sealed references of them out.
 */

const at = (iso: string) => Date.parse(iso) / 1000;
/** Deterministic per-minute noise in [-1, 1], so baselines have the spread real series have. */
const noise = (t: number) => {
  const x = Math.sin((t / 60) * 12.9898) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
};

const STEADY: Distribution = { '0.005': 0.35, '0.01': 0.7, '0.025': 0.96, '0.05': 0.995, '0.1': 0.999, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
const QUEUED: Distribution = { '0.005': 0.1, '0.01': 0.25, '0.025': 0.5, '0.05': 0.7, '0.1': 0.85, '0.25': 0.95, '0.5': 0.985, '1': 0.997, '+Inf': 1 };

/** Manus `vida`, SUP-1310: a reporting job doubles the statement rate at 09:20; TiDB CPU saturates and p99 follows. */
export const MANUS_ONSET = at('2026-11-26T09:20:00Z');

export function manusVidaSeries(): FixtureSeries[] {
  const times = minutes('2026-11-26T07:00:00Z', '2026-11-26T10:30:00Z');
  const after = (t: number) => t >= MANUS_ONSET;
  const series: FixtureSeries[] = [];
  for (const [i, host] of ['10.64.3.21', '10.64.3.22', '10.64.3.23'].entries()) {
    const instance = `${host}:10080`;
    const qps = (t: number) => (after(t) ? 1400 : 700) / 3 + 8 * noise(t + i);
    series.push(...histogram('tidb_server_handle_query_duration_seconds_bucket', { job: 'tidb', instance }, times, qps, (t) => (after(t) ? QUEUED : STEADY)));
    series.push(counter('tidb_server_query_total', { job: 'tidb', instance, type: 'Select', result: 'OK' }, times, qps));
    // 8 cores per TiDB server: ~3 busy before, all 8 after.
    series.push(counter('process_cpu_seconds_total', { job: 'tidb', component: 'tidb', instance }, times, (t) => (after(t) ? 7.8 : 3 + 0.2 * noise(t - i))));
  }
  for (const host of ['10.64.4.11', '10.64.4.12', '10.64.4.13']) {
    series.push(counter('process_cpu_seconds_total', { job: 'tikv', component: 'tikv', instance: `${host}:20180` }, times, (t) => 2.1 + 0.1 * noise(t)));
  }
  return series;
}

/** Wetech wt-prod-sg-01, APID-30117: one statement's plan reads every row of `orders` from 13:12; p99 goes 20 ms -> 600 ms. */
export const WETECH_ONSET = at('2026-11-27T13:12:00Z');
/** A TiDB-style 64-hex digest for a named statement of the example. */
export const wetechDigest = (name: string) => createHash('sha256').update(`aoc-wetech-example:${name}`).digest('hex');
const SCAN_SQL = "SELECT * FROM orders WHERE DATE(created_at) = '2026-11-27' AND status = 'open'";

export function wetechSeries(): FixtureSeries[] {
  const times = minutes('2026-11-27T11:00:00Z', '2026-11-27T14:00:00Z');
  const after = (t: number) => t >= WETECH_ONSET;
  const series: FixtureSeries[] = [];
  for (const [cluster, hosts] of [
    ['wt-prod-sg-01', ['10.20.1.11', '10.20.1.12']],
    // Another cluster of the same regional datasource, healthy: the cluster matcher must keep it out.
    ['wt-prod-sg-02', ['10.20.9.11']],
  ] as const) {
    for (const host of hosts) {
      const instance = `${host}:10080`;
      const sick = cluster === 'wt-prod-sg-01';
      const qps = (t: number) => 450 + 10 * noise(t);
      series.push(...histogram('tidb_server_handle_query_duration_seconds_bucket', { job: 'tidb', cluster, instance }, times, qps, (t) => (sick && after(t) ? QUEUED : STEADY)));
      series.push(counter('tidb_server_query_total', { job: 'tidb', cluster, instance, type: 'Select', result: 'OK' }, times, qps));
      series.push(counter('process_cpu_seconds_total', { job: 'tidb', cluster, component: 'tidb', instance }, times, (t) => (sick && after(t) ? 5.5 : 2 + 0.1 * noise(t))));
    }
  }
  return series;
}

const slow = (t: number, queryTimeMs: number, host: string, name: string, query: string) => ({ digest: wetechDigest(name), query, instance: `${host}:4000`, user: 'shop_app', db: 'shop', timestamp: t, query_time_ms: queryTimeMs, mem_max_bytes: 120e6 });

/** What wt-prod-sg-01's TiDB Dashboard answers: the slow log fills with one full-scan statement after the onset. */
export function wetechDashboard(): TidbDashboardFixture {
  return {
    clusters: { 'wt-prod-sg-01': WETECH_TEST_CREDENTIALS.default.dashboard },
    topSql: {},
    statements: [
      { digest: wetechDigest('orders by day'), sql_text: SCAN_SQL, schema_name: 'shop', exec_count: 24_000, avg_latency_ms: 610, max_latency_ms: 4100, sum_latency_ms: 14_640_000, avg_mem_bytes: 96 * 1024 * 1024, plan_count: 1 },
      { digest: wetechDigest('stock update'), sql_text: 'UPDATE stock SET qty = qty - 1 WHERE sku = ?', schema_name: 'shop', exec_count: 700_000, avg_latency_ms: 2.5, max_latency_ms: 30, sum_latency_ms: 1_750_000, avg_mem_bytes: 4096, plan_count: 1 },
    ],
    slowQueries: [
      slow(WETECH_ONSET - 40 * 60, 420, '10.20.1.11', 'nightly report', 'SELECT count(*) FROM audit_log'),
      ...Array.from({ length: 60 }, (_, i) => slow(WETECH_ONSET + 30 + i * 28, 900 + (i % 9) * 350, i % 2 === 0 ? '10.20.1.11' : '10.20.1.12', 'orders by day', SCAN_SQL)),
    ],
  };
}
