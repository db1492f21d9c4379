// Diagnosis benchmark (bench/diagnosis/), suite A: DBSherlock TPC-C cases (real MySQL/OS telemetry) as Prometheus
// series and tickets. Pure apart from reading the dataset files.
//
// Conversion rules (see README.md):
// - every CSV column but `Epoch` becomes one series named by the ontology's `sanitizeMetricName`,
//   values unchanged, labelled `cluster="dbsherlock-<case number>"` (an opaque number: the case
//   ids name the cause) and `job="dbseer"`;
// - time is stretched: one CSV row (one second of the original run) becomes ROW_SECONDS = 20 s,
//   so a 131-187 row case spans 44-62 minutes of the one-hour analysis window, whose range
//   queries step at max(15 s, window/240) = 15 s; only the spacing changes, never a value;
// - columns whose name starts with `dbmsCum` or contains `SinceBootTime` are cumulative (counter),
//   every other column is a per-interval value (gauge);
// - the first WARMUP_ROWS rows of every run record the workload starting from idle (nearly every
//   column jumps there); no hour before a real ticket starts from an idle server, so they are left
//   out of the series (the remaining rows keep their times);
// - the ticket says only that latency got worse since the first abnormal row's time; its cutoff
//   is the last row's time, so the window [cutoff - 1 h, cutoff] holds the whole case.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRIC_FAMILY_IDS, sanitizeMetricName, type MetricFamilyId } from '@aoc/metric-ontology';
import type { FixtureSeries } from '@aoc/providers/testing';
import { z } from 'zod';
import { BENCH_DIR, DEFAULT_DATASET_DIR } from './paths';
import { METRIC_NAME, seedOf } from './scenarios';

/** Reviewed data: cause -> families that count as naming it. */
export const CAUSES_FILE = join(BENCH_DIR, 'dbsherlock-causes.json');
/** Seconds one CSV row stands for in Prometheus (the original rows are one second apart). */
export const ROW_SECONDS = 20;
/** The workload latency column: the symptom a ticket reports, never scored by the reference ranker. */
export const SYMPTOM_COLUMN = 'Combined Avg Latency';
/** Rows at the start of each run during which the workload ramps up from idle. */
export const WARMUP_ROWS = 15;
/** How long before the cutoff the ticket was written. */
export const TICKET_LEAD_SECONDS = 3 * 60;

export const ManifestCase = z.object({
  case: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  kind: z.enum(['single', 'compound']),
  cause: z.string().min(1),
  file: z.string().min(1),
  rows: z.number().int().positive(),
  normalRows: z.array(z.number().int().positive()),
  abnormalRows: z.array(z.number().int().positive()).min(1),
});
export type ManifestCase = z.infer<typeof ManifestCase>;
export const Manifest = z.object({ dataset: z.string(), cases: z.array(ManifestCase).min(1) });

const Family = z.enum(METRIC_FAMILY_IDS);
export const CauseMapping = z
  .object({
    version: z.string(),
    note: z.string().optional(),
    single: z.record(z.string(), z.object({ families: z.array(Family).min(1).max(5), reason: z.string().min(10) }).strict()),
    compound: z.record(z.string(), z.array(z.string()).min(2)),
  })
  .strict()
  .superRefine((m, ctx) => {
    for (const [cause, parts] of Object.entries(m.compound)) {
      for (const p of parts) if (!m.single[p]) ctx.addIssue({ code: 'custom', path: ['compound', cause], message: `component "${p}" is not a single cause of this file` });
    }
  });
export type CauseMapping = z.infer<typeof CauseMapping>;

export function loadManifest(dir: string = DEFAULT_DATASET_DIR): ManifestCase[] {
  const path = join(dir, 'manifest.json');
  const parsed = Manifest.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.cases;
}

export function loadCauseMapping(path: string = CAUSES_FILE): CauseMapping {
  const parsed = CauseMapping.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Families that count as a hit for a case's cause: its own, or any component's for a compound cause. */
export function acceptedFamilies(mapping: CauseMapping, kase: Pick<ManifestCase, 'kind' | 'cause'>): MetricFamilyId[] {
  if (kase.kind === 'single') {
    const entry = mapping.single[kase.cause];
    if (!entry) throw new Error(`cause "${kase.cause}" has no entry in ${CAUSES_FILE}`);
    return entry.families;
  }
  const parts = mapping.compound[kase.cause];
  if (!parts) throw new Error(`compound cause "${kase.cause}" has no entry in ${CAUSES_FILE}`);
  return [...new Set(parts.flatMap((p) => mapping.single[p].families))];
}

export interface Csv {
  columns: string[];
  rows: number[][];
}

/** The dataset's CSV: a header of column names (some with spaces, `#`, parentheses), then numbers. */
export function parseCsv(text: string, what = 'csv'): Csv {
  const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
  if (lines.length < 2) throw new Error(`${what}: no data rows`);
  const columns = lines[0].split(',').map((c) => c.trim());
  const rows = lines.slice(1).map((line, i) => {
    const cells = line.split(',');
    if (cells.length !== columns.length) throw new Error(`${what}: row ${i + 1} has ${cells.length} cells, the header ${columns.length}`);
    return cells.map((c, j) => {
      const v = Number(c);
      if (c.trim() === '' || !Number.isFinite(v)) throw new Error(`${what}: row ${i + 1}, column "${columns[j]}": "${c}" is not a number`);
      return v;
    });
  });
  return { columns, rows };
}

/** Cumulative DBSeer columns (Prometheus counters); the rest are per-interval values (gauges). */
export function isCumulativeColumn(column: string): boolean {
  return column.startsWith('dbmsCum') || column.includes('SinceBootTime');
}

/**
 * Opaque number of a case (8 digits of a hash of its id). The case ids name the cause
 * (`single-cpu-saturation-03`), and the router reads the ticket text, cluster name included, for
 * scenario signals ("cpu", "saturat", "lock", ...): a cluster named after the case would hand the
 * engine its answer. The report maps the numbers back to case ids.
 */
export function caseNumber(caseId: string): string {
  return String(seedOf(`dbsherlock:${caseId}`) % 100_000_000).padStart(8, '0');
}

/** The cluster label of a case: `dbsherlock-<case number>`, at most 64 characters of [a-z0-9-]. */
export function caseCluster(caseId: string): string {
  const cluster = `dbsherlock-${caseNumber(caseId)}`;
  if (!/^[a-z0-9-]{1,64}$/.test(cluster)) throw new Error(`case "${caseId}": cluster label "${cluster}" is not at most 64 characters of [a-z0-9-]`);
  return cluster;
}

/** Fails when two cases of the selection would share a cluster label. */
export function assertDistinctClusters(caseIds: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const id of caseIds) {
    const cluster = caseCluster(id);
    const other = seen.get(cluster);
    if (other) throw new Error(`cases "${other}" and "${id}" hash to the same cluster label ${cluster}`);
    seen.set(cluster, id);
  }
}

/** Unix seconds of a 1-based CSV row when the case starts at `startSec`. */
export function rowTime(startSec: number, row: number): number {
  return startSec + (row - 1) * ROW_SECONDS;
}

export interface ConvertedCase {
  id: string;
  cluster: string;
  cause: string;
  kind: 'single' | 'compound';
  series: FixtureSeries[];
  /** Sanitised name of the symptom series (excluded from the reference ranker). */
  symptomMetric: string;
  startSec: number;
  abnormalStartSec: number;
  abnormalEndSec: number;
  endSec: number;
}

/** One case's CSV as Prometheus series starting at `startSec` (one row = ROW_SECONDS). */
export function convertCase(kase: ManifestCase, csv: Csv, startSec: number): ConvertedCase {
  const cluster = caseCluster(kase.case);
  const epoch = csv.columns.indexOf('Epoch');
  if (csv.rows.length !== kase.rows) throw new Error(`${kase.file}: ${csv.rows.length} rows, the manifest says ${kase.rows}`);
  const seen = new Map<string, string>();
  const series: FixtureSeries[] = [];
  let symptomMetric: string | null = null;
  csv.columns.forEach((column, j) => {
    if (j === epoch) return;
    const metric = sanitizeMetricName(column);
    if (!METRIC_NAME.test(metric)) throw new Error(`${kase.file}: column "${column}" sanitises to "${metric}", not a metric name`);
    const clash = seen.get(metric);
    if (clash !== undefined) throw new Error(`${kase.file}: columns "${clash}" and "${column}" both sanitise to "${metric}"`);
    seen.set(metric, column);
    if (column === SYMPTOM_COLUMN) symptomMetric = metric;
    series.push({
      metric,
      type: isCumulativeColumn(column) ? 'counter' : 'gauge',
      labels: { cluster, job: 'dbseer' },
      samples: csv.rows.flatMap((r, i) => (i < WARMUP_ROWS && i < kase.abnormalRows[0] - 1 ? [] : [[rowTime(startSec, i + 1), r[j]] as [number, number]])),
    });
  });
  if (symptomMetric === null) throw new Error(`${kase.file}: no "${SYMPTOM_COLUMN}" column`);
  const abnormal = [...kase.abnormalRows].sort((a, b) => a - b);
  return {
    id: kase.case,
    cluster,
    cause: kase.cause,
    kind: kase.kind,
    series,
    symptomMetric,
    startSec,
    abnormalStartSec: rowTime(startSec, abnormal[0]),
    abnormalEndSec: rowTime(startSec, abnormal[abnormal.length - 1]),
    endSec: rowTime(startSec, kase.rows),
  };
}

export function readCase(kase: ManifestCase, dir: string = DEFAULT_DATASET_DIR): Csv {
  return parseCsv(readFileSync(join(dir, kase.file), 'utf8'), kase.file);
}

/** Where every suite-A case starts: the 2-hour boundary at or before `now - 2 days` (one backfill block, older than any head block). */
export function suiteAStart(nowMs: number): number {
  const twoHours = 2 * 3600;
  return Math.floor((nowMs / 1000 - 2 * 86400) / twoHours) * twoHours;
}

const hhmm = (sec: number): string => new Date(sec * 1000).toISOString().slice(11, 16);
const iso = (sec: number): string => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');

/** The ticket of a case: latency got worse on the cluster since the abnormal region began; never the cause. */
export function caseTicket(c: ConvertedCase, key: string) {
  return {
    mode: 'read' as const,
    trigger: 'replay' as const,
    cutoff: iso(c.endSec),
    ticket: {
      key,
      title: `Latency got worse on cluster ${c.cluster}`,
      description: `Since about ${hhmm(c.abnormalStartSec)} UTC our transactions are slower than usual on cluster ${c.cluster}. Can you check what is going on?`,
      reporterRole: 'customer' as const,
      createdAt: iso(c.endSec - TICKET_LEAD_SECONDS),
      labels: [] as string[],
      comments: [],
    },
  };
}
