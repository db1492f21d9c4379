import { createHash } from 'node:crypto';
import type { FixtureSeries } from '@aoc/providers/testing';
import { counter, histogram, minutes, type Distribution } from './series-builders';

/**
 * The two bundled examples read through Clinic: what the scripted Clinic API answers for their
 * clusters (metadata, TopSQL, slow-log entries) and the metric series its Prometheus-compatible
 * API serves. Digests are full 64-hex TiDB-style digests; the Clinic package only ever lets an
 * opaque reference of them out.
 */
export interface ClinicExampleData {
  orgId: string;
  clusterId: string;
  metadata: Record<string, unknown>;
  topsql: unknown[];
  slowQueries: unknown[];
}

const ORG = '1372813089209061633';

/** A stable, TiDB-looking digest for a named statement of an example. */
export function exampleDigest(name: string): string {
  return createHash('sha256').update(`aoc-example:${name}`).digest('hex');
}

/** One TopSQL row as Clinic answers it: a statement under one plan, over the asked window. */
const topSql = (statement: string, plan: string, cpuMs: number, execCount: number, avgMs: number, type: string) => ({
  sql_digest: exampleDigest(statement),
  plan_digest: exampleDigest(plan),
  cpu_time_ms: cpuMs,
  exec_count: execCount,
  avg_latency_ms: avgMs,
  stmt_type: type,
});
const metadata = (clusterId: string) => ({ cluster_id: clusterId, org_id: ORG, tier: 'dedicated', version: 'v7.5.2', status: 'available', region: 'us-west-2', cloud_provider: 'aws' });
const at = (iso: string) => Date.parse(iso) / 1000;
/** A small deterministic wobble, so flat series are not perfectly flat. */
const wobble = (t: number, amplitude: number) => amplitude * Math.sin(t / 600);
/** Deterministic per-minute noise in [-1, 1], so baselines have the spread real series have. */
const noise = (t: number) => {
  const x = Math.sin(t * 12.9898) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
};
/** A mild daily cycle (peak around 14:00 UTC). */
const daily = (t: number) => 1 + 0.15 * Math.sin(((t / 3600 - 8) / 24) * 2 * Math.PI);

// SUP-1201: from 02:10 a new ingestion job inserts into a table with an AUTO_INCREMENT primary
// key; every insert lands in the table's last region, led by tikv-2.
const HOTSPOT_CLUSTER = '10290127484201';
const HOTSPOT_START = at('2026-11-24T02:10:00Z');

export const HOTSPOT_CLINIC: ClinicExampleData = {
  orgId: ORG,
  clusterId: HOTSPOT_CLUSTER,
  metadata: metadata(HOTSPOT_CLUSTER),
  topsql: [
    topSql('insert order_events', 'insert order_events plan', 1_310_000, 2_350_000, 1.9, 'Insert'),
    topSql('select cart by session', 'select cart plan', 240_000, 610_000, 2.4, 'Select'),
    topSql('update stock', 'update stock plan', 150_000, 95_000, 3.1, 'Update'),
    topSql('select product', 'select product plan', 110_000, 880_000, 0.8, 'Select'),
  ],
  slowQueries: [],
};

/** Eight days of store load (the prior-seven-days comparison reads the same clock on each). */
export function clinicHotspotSeries(): FixtureSeries[] {
  const cluster_id = HOTSPOT_CLUSTER;
  const times = minutes('2026-11-16T00:00:00Z', '2026-11-24T03:30:00Z');
  const hot = (t: number) => t >= HOTSPOT_START;
  const series: FixtureSeries[] = [];
  for (const store of ['tikv-0', 'tikv-1', 'tikv-2']) {
    const instance = `${store}.db-tikv-peer.tidb${cluster_id}.svc:20180`;
    const cpu = (t: number) => (hot(t) ? (store === 'tikv-2' ? 3.6 : 0.8) : 0.7 * daily(t)) * (1 + 0.08 * noise(t + store.length));
    series.push(counter('tikv_thread_cpu_seconds_total', { cluster_id, instance, name: 'raftstore' }, times, cpu));
    series.push(counter('tikv_grpc_msg_duration_seconds_count', { cluster_id, instance, type: 'kv_prewrite' }, times, (t) => (hot(t) ? (store === 'tikv-2' ? 7800 : 1300) : 1200 * daily(t)) * (1 + 0.08 * noise(t + 7))));
    series.push(counter('process_cpu_seconds_total', { cluster_id, component: 'tikv', instance }, times, (t) => cpu(t) + 0.1));
  }
  for (const tidb of ['tidb-0', 'tidb-1']) {
    series.push(counter('process_cpu_seconds_total', { cluster_id, component: 'tidb', instance: `${tidb}.db-tidb-peer.tidb${cluster_id}.svc:10080` }, times, (t) => (hot(t) ? 1.3 : 1.0 * daily(t)) * (1 + 0.08 * noise(t + 3))));
  }
  series.push(counter('process_cpu_seconds_total', { cluster_id, component: 'pd', instance: `pd-0.db-pd-peer.tidb${cluster_id}.svc:2379` }, times, () => 0.1));
  return series;
}

// SUP-1202: at 10:31, after an automatic analyze of `orders` (most of its rows had been deleted
// the night before), the order-history lookup switches from an index range scan to a full scan.
const SLOW_CLUSTER = '10290127488302';
const PLAN_SWITCH = at('2026-11-25T10:31:00Z');
const ORDER_HISTORY = exampleDigest('select orders by customer');
const REPORT = exampleDigest('select daily report');

const slowEntry = (digest: string, timestamp: number, queryTime: number, processKeys: number) => ({
  digest,
  timestamp: new Date(timestamp * 1000).toISOString(),
  query_time_s: Math.round(queryTime * 1000) / 1000,
  mem_max_bytes: 48 * 1024 * 1024,
  process_keys: processKeys,
  succ: true,
  is_internal: false,
  stmt_type: 'Select',
});

export const SLOW_QUERY_CLINIC: ClinicExampleData = {
  orgId: ORG,
  clusterId: SLOW_CLUSTER,
  metadata: metadata(SLOW_CLUSTER),
  topsql: [
    topSql('select orders by customer', 'orders full scan plan', 9_900_000, 104_400, 138, 'Select'),
    topSql('insert order_items', 'insert order_items plan', 600_000, 1_500_000, 0.9, 'Insert'),
    topSql('select product by sku', 'select product by sku plan', 450_000, 1_400_000, 1.1, 'Select'),
    topSql('select orders by customer', 'orders index range plan', 290_000, 111_600, 3.4, 'Select'),
    topSql('update order status', 'update order status plan', 300_000, 800_000, 1.4, 'Update'),
  ],
  slowQueries: [
    ...[at('2026-11-25T10:07:12Z'), at('2026-11-25T10:18:40Z'), at('2026-11-25T10:26:05Z'), at('2026-11-25T10:36:30Z'), at('2026-11-25T10:44:02Z'), at('2026-11-25T10:51:47Z'), at('2026-11-25T10:57:21Z')].map((t, i) =>
      slowEntry(REPORT, t, 0.38 + 0.03 * i, 310_000),
    ),
    // The full scan reads every remaining row of `orders` on each lookup.
    ...Array.from({ length: 420 }, (_, i) => slowEntry(ORDER_HISTORY, PLAN_SWITCH + 15 + i * 4, 0.3 + (i % 17) * 0.17, 2_400_000)),
  ],
};

const BEFORE_SWITCH: Distribution = { '0.005': 0.55, '0.01': 0.85, '0.025': 0.993, '0.05': 0.999, '0.1': 0.9995, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
const AFTER_SWITCH: Distribution = { '0.005': 0.55, '0.01': 0.85, '0.025': 0.955, '0.05': 0.966, '0.1': 0.967, '0.25': 0.975, '0.5': 0.985, '1': 0.995, '+Inf': 1 };

export function clinicSlowQuerySeries(): FixtureSeries[] {
  const cluster_id = SLOW_CLUSTER;
  const times = minutes('2026-11-25T08:00:00Z', '2026-11-25T11:30:00Z');
  const series: FixtureSeries[] = [];
  for (const tidb of ['tidb-0', 'tidb-1']) {
    const instance = `${tidb}.db-tidb-peer.tidb${cluster_id}.svc:10080`;
    const qps = (t: number) => 900 + wobble(t, 6);
    series.push(...histogram('tidb_server_handle_query_duration_seconds_bucket', { cluster_id, instance }, times, qps, (t) => (t >= PLAN_SWITCH ? AFTER_SWITCH : BEFORE_SWITCH)));
    series.push(counter('tidb_server_query_total', { cluster_id, instance, type: 'Query', result: 'OK' }, times, qps));
  }
  return series;
}
