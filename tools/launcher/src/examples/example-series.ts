import { join } from 'node:path';
import type { FixtureSeries, TidbDashboardFixture } from '@aoc/providers/testing';
import { clinicHotspotSeries, clinicSlowQuerySeries, HOTSPOT_CLINIC, SLOW_QUERY_CLINIC, type ClinicExampleData } from './clinic-examples';
import { manusVidaSeries, wetechDashboard, wetechSeries } from './grafana-examples';
import { mysqlLedgerSeries, mysqlOrdersSeries, pgPaymentsSeries } from './optimizer-demo';
import { BUCKETS, counter, gauge, histogram, minutes, type Distribution } from './series-builders';

/**
 * Synthetic but realistic metric series for the bundled example tickets. They are the input of
 * `npm run examples:record`, which runs each example against a real Prometheus holding them and
 * stores the sanitised results the executor later replays.
 */

const HEALTHY: Distribution = { '0.005': 0.3, '0.01': 0.6, '0.025': 0.9, '0.05': 0.995, '0.1': 0.999, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
const SCAN_CONTENTION: Distribution = { '0.005': 0.2, '0.01': 0.45, '0.025': 0.75, '0.05': 0.95, '0.1': 0.995, '0.25': 0.999, '0.5': 1, '1': 1, '+Inf': 1 };

/** SUP-1042: p99 doubles at 10:38 when a report query starts scanning `orders`; QPS +30%. */
export function latencyRegressionSeries(): FixtureSeries[] {
  const cluster = 'tidb-prod-7f3a';
  const times = minutes('2026-11-20T08:00:00Z', '2026-11-20T11:30:00Z');
  const incident = Date.parse('2026-11-20T10:38:00Z') / 1000;
  const qps = (t: number) => (t >= incident ? 260 : 200);
  const series: FixtureSeries[] = [];
  for (const instance of ['tidb-0', 'tidb-1']) {
    const share = instance === 'tidb-0' ? 0.5 : 0.5;
    for (const le of BUCKETS) {
      series.push(
        counter('tidb_server_handle_query_duration_seconds_bucket', { cluster, instance: `${instance}.tidb-prod-7f3a.svc:10080`, le }, times, (t) => qps(t) * share * (t >= incident ? SCAN_CONTENTION : HEALTHY)[le]),
      );
    }
    series.push(counter('tidb_server_query_total', { cluster, instance: `${instance}.tidb-prod-7f3a.svc:10080`, type: 'Query', result: 'OK' }, times, (t) => qps(t) * share));
  }
  return series;
}

/**
 * SUP-1107: TiDB CPU goes from ~35% to ~95% of 4 cores at 14:00 when an export job starts. The
 * week before has the usual afternoon bump to ~45% only, so the comparison shows the load is new.
 */
export function cpuSaturationSeries(): FixtureSeries[] {
  const cluster = 'tidb-analytics-21';
  const times = minutes('2026-11-14T12:00:00Z', '2026-11-21T15:00:00Z');
  const start = Date.parse('2026-11-21T14:00:00Z') / 1000;
  const hourOf = (t: number) => new Date(t * 1000).getUTCHours();
  const tidbCpu = (t: number) => (t >= start ? 3.8 : hourOf(t) >= 14 && hourOf(t) < 16 ? 1.8 : 1.4);
  const series: FixtureSeries[] = [];
  for (const instance of ['tidb-0', 'tidb-1']) {
    series.push(counter('process_cpu_seconds_total', { cluster, component: 'tidb', instance: `${instance}.${cluster}.svc:10080` }, times, tidbCpu));
  }
  for (const instance of ['tikv-0', 'tikv-1', 'tikv-2']) {
    series.push(counter('process_cpu_seconds_total', { cluster, component: 'tikv', instance: `${instance}.${cluster}.svc:20180` }, times, (t) => (t >= start ? 1.3 : 1.1)));
  }
  series.push(counter('process_cpu_seconds_total', { cluster, component: 'pd', instance: `pd-0.${cluster}.svc:2379` }, times, () => 0.1));
  return series;
}

/** SUP-1133: checkpoint lag grows ~1 min/min from 09:02 while writes are flat; sink p99 40ms -> 2.5s. */
export function changefeedLagSeries(): FixtureSeries[] {
  const cluster = 'tidb-cdc-09';
  const times = minutes('2026-11-22T07:30:00Z', '2026-11-22T10:00:00Z');
  const start = Date.parse('2026-11-22T09:02:00Z') / 1000;
  const FAST: Distribution = { '0.005': 0.05, '0.01': 0.2, '0.025': 0.6, '0.05': 0.995, '0.1': 1, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
  const STALLED: Distribution = { '0.005': 0, '0.01': 0, '0.025': 0.01, '0.05': 0.05, '0.1': 0.1, '0.25': 0.2, '0.5': 0.4, '1': 0.6, '+Inf': 1 };
  return [
    gauge('ticdc_owner_checkpoint_ts_lag', { cluster, changefeed: 'cf-orders', instance: `ticdc-0.${cluster}.svc:8300` }, times, (t) => (t >= start ? 2 + (t - start) * 0.98 : 2)),
    ...histogram('ticdc_sink_txn_exec_duration_bucket', { cluster, changefeed: 'cf-orders', instance: `ticdc-0.${cluster}.svc:8300` }, times, () => 50, (t) => (t >= start ? STALLED : FAST)),
    counter('tidb_server_query_total', { cluster, instance: `tidb-0.${cluster}.svc:10080`, type: 'Insert', result: 'OK' }, times, () => 1500),
  ];
}

/** SUP-1150: a healthy hour; p99 ~20ms and QPS ~80 throughout. */
export function healthyFalseAlarmSeries(): FixtureSeries[] {
  const cluster = 'tidb-stage-3';
  const times = minutes('2026-11-23T08:00:00Z', '2026-11-23T09:40:00Z');
  const STEADY: Distribution = { '0.005': 0.4, '0.01': 0.8, '0.025': 0.995, '0.05': 1, '0.1': 1, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
  return [
    ...histogram('tidb_server_handle_query_duration_seconds_bucket', { cluster, instance: `tidb-0.${cluster}.svc:10080` }, times, () => 80, () => STEADY),
    counter('tidb_server_query_total', { cluster, instance: `tidb-0.${cluster}.svc:10080`, type: 'Query', result: 'OK' }, times, (t) => 80 + ((t / 60) % 3)),
  ];
}

export interface RecordedExample {
  ticketFile: string;
  series: () => FixtureSeries[];
  /** The target the ticket resolves to: a Prometheus target name, or `<org>/<cluster>` for Clinic. */
  target: string;
  /** Clinic examples: the scripted Clinic API behind which the series are served. */
  clinic?: ClinicExampleData;
  /** Manus examples: the target's own datasource behind a Grafana datasource proxy. */
  manus?: { target: 'vida' | 'monica' };
  /** Wetech examples: the region's datasource (inventory uid) behind a Grafana proxy, and the cluster's TiDB Dashboard. */
  wetech?: { datasourceUid: string; dashboard: () => TidbDashboardFixture };
}

export const RECORDED_EXAMPLES: readonly RecordedExample[] = [
  { ticketFile: 'latency-regression.json', series: latencyRegressionSeries, target: 'tidb-prod-7f3a' },
  { ticketFile: 'cpu-saturation.json', series: cpuSaturationSeries, target: 'tidb-analytics-21' },
  { ticketFile: 'changefeed-lag.json', series: changefeedLagSeries, target: 'tidb-cdc-09' },
  { ticketFile: 'healthy-false-alarm.json', series: healthyFalseAlarmSeries, target: 'tidb-stage-3' },
  { ticketFile: 'tikv-hotspot.json', series: clinicHotspotSeries, target: `${HOTSPOT_CLINIC.orgId}/${HOTSPOT_CLINIC.clusterId}`, clinic: HOTSPOT_CLINIC },
  { ticketFile: 'manus-vida-cpu.json', series: manusVidaSeries, target: 'vida', manus: { target: 'vida' } },
  { ticketFile: 'wetech-full-scan.json', series: wetechSeries, target: 'ap-southeast-1/wt-prod-sg-01', wetech: { datasourceUid: 'prom-wt-prod-sg-01', dashboard: wetechDashboard } },
  { ticketFile: 'slow-query-regression.json', series: clinicSlowQuerySeries, target: `${SLOW_QUERY_CLINIC.orgId}/${SLOW_QUERY_CLINIC.clusterId}`, clinic: SLOW_QUERY_CLINIC },
];

/** The router's bundled example tickets (services/router/examples/tickets), run by `npm start`. */
export const BUNDLED_TICKETS = join(__dirname, '..', '..', '..', '..', 'services', 'router', 'examples', 'tickets');

/** The optimizer demo's tickets (services/optimizer/demo/tickets) and their recorded evidence. */
export const OPTIMIZER_DEMO_TICKETS = join(__dirname, '..', '..', '..', '..', 'services', 'optimizer', 'demo', 'tickets');
export const OPTIMIZER_DEMO_RECORDINGS = join(__dirname, '..', '..', '..', '..', 'services', 'optimizer', 'demo', 'recordings.json');
export const OPTIMIZER_DEMO_EXAMPLES: readonly RecordedExample[] = [
  { ticketFile: 'mysql-orders-1.json', series: mysqlOrdersSeries, target: 'mysql-orders-1' },
  { ticketFile: 'mysql-ledger-2.json', series: mysqlLedgerSeries, target: 'mysql-ledger-2' },
  { ticketFile: 'pg-payments-3.json', series: pgPaymentsSeries, target: 'pg-payments-3' },
];
