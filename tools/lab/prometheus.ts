// Incident lab recorder: the lab's Prometheus. One scrape config per lane, relabelled per case so
// every series carries cluster="<the case's cluster>"; export of a case's raw samples.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LabSeries, Stretch } from '../launcher/src/diagnosis-bench/lab-case';
import { stretchValue } from '../launcher/src/diagnosis-bench/lab-case';
import { LAB_DIR, LANE_CPU, PORTS, PROM_URL } from './config';
import { sleep } from './db';

export type Lane = 'postgres' | 'mariadb';

const target = (port: number, labels: Record<string, string>) => ({ targets: [`127.0.0.1:${port}`], labels });

/** Node series of the other lane's CPU and mounts are not this cluster's machine. */
function nodeRelabel(lane: Lane): unknown[] {
  const otherMounts = lane === 'postgres' ? '.*/mnt/my.*' : '.*/mnt/pg.*';
  return [
    { source_labels: ['cpu'], regex: `|${LANE_CPU[lane]}`, action: 'keep' },
    { source_labels: ['mountpoint'], regex: otherMounts, action: 'drop' },
  ];
}

export function scrapeConfig(clusters: Partial<Record<Lane, string>>): string {
  const jobs: unknown[] = [];
  const pg = clusters.postgres;
  if (pg) {
    jobs.push({ job_name: 'postgres', static_configs: [target(PORTS.exporterPgA, { cluster: pg, role: 'primary', instance: `${pg}-a` }), target(PORTS.exporterPgB, { cluster: pg, role: 'replica', instance: `${pg}-b` })] });
    jobs.push({ job_name: 'node', static_configs: [target(PORTS.exporterNode, { cluster: pg, instance: `${pg}-host` })], metric_relabel_configs: nodeRelabel('postgres') });
  }
  const my = clusters.mariadb;
  if (my) {
    jobs.push({ job_name: 'mysql', static_configs: [target(PORTS.exporterMy, { cluster: my, role: 'primary', instance: `${my}-a` })] });
    jobs.push({ job_name: 'node-mysql', static_configs: [target(PORTS.exporterNode, { cluster: my, instance: `${my}-host`, job: 'node' })], metric_relabel_configs: nodeRelabel('mariadb') });
  }
  // JSON is YAML; 1 s scrapes.
  return JSON.stringify({ global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '15s' }, scrape_configs: jobs }, null, 1);
}

const lanes: Partial<Record<Lane, string>> = {};
let reloading: Promise<void> = Promise.resolve();

/** Points a lane's scrape jobs at a new cluster label and reloads Prometheus. */
export async function setLaneCluster(lane: Lane, cluster: string): Promise<void> {
  lanes[lane] = cluster;
  reloading = reloading.then(async () => {
    writeFileSync(join(LAB_DIR, 'prometheus.yml'), scrapeConfig(lanes));
    const r = await fetch(`${PROM_URL}/-/reload`, { method: 'POST' });
    if (!r.ok) throw new Error(`prometheus reload: HTTP ${r.status} ${await r.text()}`);
  });
  await reloading;
  for (let i = 0; i < 30; i++) {
    if ((await instant(`count(up{cluster="${cluster}"} == 1)`)).length > 0) return;
    await sleep(500);
  }
  throw new Error(`no target of cluster ${cluster} is up after the reload`);
}

const Vector = z.object({ status: z.literal('success'), data: z.object({ resultType: z.string(), result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: z.tuple([z.number(), z.string()]).optional(), values: z.array(z.tuple([z.number(), z.string()])).optional() })) }) });

async function api(path: string, params: Record<string, string>): Promise<z.infer<typeof Vector>['data']['result']> {
  const r = await fetch(`${PROM_URL}${path}?${new URLSearchParams(params)}`);
  if (!r.ok) throw new Error(`prometheus ${path}: HTTP ${r.status} ${(await r.text()).slice(0, 500)}`);
  return Vector.parse(await r.json()).data.result;
}

const instant = (query: string) => api('/api/v1/query', { query });

/** Exporter self-metrics and scrape bookkeeping: not the database's. */
const DROP = /^(go_|process_|promhttp_|scrape_|pg_exporter_|mysql_exporter_|node_scrape_|node_exporter_|postgres_exporter_)/;
/** Gauges that hold a Unix time: mapped to case time. */
const TIMESTAMP = /(_start_time_seconds|_boot_time_seconds|_timestamp_seconds|_last_.*_time|_reply_time|_stats_reset|_stats_reset_total|^node_time_seconds)$/;
/** Unix-time gauges the first recorder version (lab-stretch 1) did not map: the rewrite maps them (node_time_seconds it had stretched as an age). */
export const LATE_TIMESTAMPS = /(_reply_time|_stats_reset|_stats_reset_total|^node_time_seconds)$/;
/** Of those, the ones version 1 multiplied by the factor (as an age, or as the counter postgres_exporter types it). */
export const LATE_SCALED = /(_stats_reset_total|^node_time_seconds)$/;
/** Recorded into `recorded.versions['lab-stretch']`: 2 = every Unix-time gauge mapped into case time. */
export const STRETCH_VERSION = '2';
/** Gauges that measure elapsed seconds: stretched like time. */
const AGE = /^(pg_replication_lag|pg_stat_activity_max_tx_duration|mysql_global_status_uptime|mysql_global_status_uptime_since_flush_status|mysql_slave_status_seconds_behind_master|pg_stat_archiver_last_archive_age)$/;

const Metadata = z.object({ data: z.record(z.string(), z.array(z.object({ type: z.string() }))) });

export async function metricTypes(): Promise<Map<string, string>> {
  const r = await fetch(`${PROM_URL}/api/v1/metadata`);
  const parsed = Metadata.parse(await r.json());
  return new Map(Object.entries(parsed.data).map(([k, v]) => [k, v[0]?.type ?? 'unknown']));
}

export function kindOf(metric: string, types: Map<string, string>): 'gauge' | 'counter' | 'age' | 'timestamp' {
  // postgres_exporter types stats_reset as a counter; it is a Unix time.
  if (TIMESTAMP.test(metric)) return 'timestamp';
  const type = types.get(metric) ?? types.get(metric.replace(/_(bucket|sum|count|total)$/, '')) ?? 'unknown';
  if (type === 'counter' || ((type === 'histogram' || type === 'summary') && /_(bucket|sum|count)$/.test(metric))) return 'counter';
  if (type === 'unknown' && /_total$/.test(metric)) return 'counter';
  if (AGE.test(metric)) return 'age';
  return 'gauge';
}

/** Every raw sample of the cluster in [realStart, realEnd], stretched into case time (t seconds after the case start). */
export async function exportSeries(cluster: string, stretch: Stretch): Promise<LabSeries[]> {
  const seconds = Math.ceil((stretch.realEndMs - stretch.realStartMs) / 1000);
  const result = await api('/api/v1/query', { query: `{cluster="${cluster}"}[${seconds}s]`, time: String(stretch.realEndMs / 1000) });
  const types = await metricTypes();
  const out: LabSeries[] = [];
  for (const r of result) {
    const { __name__: metric, ...labels } = r.metric;
    if (!metric || DROP.test(metric)) continue;
    const kind = kindOf(metric, types);
    const t: number[] = [];
    const v: number[] = [];
    for (const [ts, raw] of r.values ?? []) {
      const value = Number(raw);
      const ms = ts * 1000;
      if (!Number.isFinite(value) || ms < stretch.realStartMs) continue;
      const caseT = Math.round(((ms - stretch.realStartMs) * stretch.scale) / 1000);
      if (t.length > 0 && caseT <= t[t.length - 1]) continue;
      t.push(caseT);
      v.push(Math.round(stretchValue(stretch, kind, value) * 1e6) / 1e6);
    }
    if (t.length > 0) out.push({ metric, labels, type: kind === 'counter' ? 'counter' : 'gauge', t, v });
  }
  return out.sort((a, b) => a.metric.localeCompare(b.metric) || JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)));
}
