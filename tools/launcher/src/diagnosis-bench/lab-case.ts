// Diagnosis benchmark, suite L (incident lab, docs/incident-lab.md): the case file format
// (bench/lab/cases/<id>.json.gz), its zod schema and the time stretch the recorder applies.
// Pure apart from reading case files.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { METRIC_FAMILY_IDS } from '@aoc/metric-ontology';
import { z } from 'zod';
import { REPO_ROOT } from './paths';
import { CaseTicket, LABEL_NAME, METRIC_NAME } from './scenarios';

export const LAB_DIR = join(REPO_ROOT, 'bench', 'lab');
export const LAB_CASES_DIR = join(LAB_DIR, 'cases');

/** Failure-mode ids, the same as services/router/data/failure-modes.json `modes[].id`. */
export const FAILURE_MODES = [
  'cpu-load',
  'cpu-statement',
  'connection-exhaustion',
  'lock-contention',
  'deadlocks',
  'storage-full-data',
  'storage-full-wal',
  'storage-full-temp',
  'replication-lag-write-volume',
  'replication-lag-replica-capacity',
  'replication-lag-replica-query',
  'checkpoint-storm',
  'io-limit',
  'memory-pressure',
  'failover',
  'restart',
  'network',
  'backup-maintenance',
  'batch-job',
  'changefeed-lag',
  'hotspot',
  'plan-regression',
  'healthy',
] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];
export const FailureModeId = z.enum(FAILURE_MODES);

export const ONSETS = ['before', 'early', 'middle', 'late'] as const;
export type Onset = (typeof ONSETS)[number];

const Iso = z.iso.datetime({ offset: true });
const Family = z.enum(METRIC_FAMILY_IDS);
const LabelValue = z.string().regex(/^[^"\\\n]{0,200}$/, 'label values must not contain quotes, backslashes or newlines');
const Labels = z.record(z.string().regex(LABEL_NAME, 'label names must be Prometheus label names'), LabelValue);

/** One series, columnar: `t` seconds after `recorded.caseStart` (case time), `v` the values. */
export const LabSeries = z
  .object({
    metric: z.string().regex(METRIC_NAME, 'must be a Prometheus metric name'),
    labels: Labels,
    type: z.enum(['gauge', 'counter']),
    t: z.array(z.number().min(0)),
    v: z.array(z.number().finite()),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.t.length !== s.v.length) ctx.addIssue({ code: 'custom', path: ['v'], message: `${s.v.length} values for ${s.t.length} times` });
    if (!s.labels['cluster']) ctx.addIssue({ code: 'custom', path: ['labels', 'cluster'], message: 'every series carries the target label cluster' });
    for (let i = 1; i < s.t.length; i++) {
      if (s.t[i] <= s.t[i - 1]) {
        ctx.addIssue({ code: 'custom', path: ['t', i], message: 'times must increase' });
        break;
      }
    }
  });
export type LabSeries = z.infer<typeof LabSeries>;

export const LabLogLine = z
  .object({
    /** Seconds after `recorded.caseStart` (case time). */
    t: z.number().min(0),
    labels: Labels,
    line: z.string().max(4000),
  })
  .strict();
export type LabLogLine = z.infer<typeof LabLogLine>;

export const LabTruth = z
  .object({
    mode: FailureModeId,
    state: z.enum(['active', 'recovered', 'healthy']),
    faultStart: Iso.nullable(),
    faultEnd: Iso.nullable(),
    /** Metric-ontology families that count as naming the cause. */
    families: z.array(Family),
    alsoAcceptModes: z.array(FailureModeId),
  })
  .strict()
  .superRefine((t, ctx) => {
    const healthy = t.mode === 'healthy';
    if (healthy !== (t.state === 'healthy')) ctx.addIssue({ code: 'custom', path: ['state'], message: healthy ? 'a healthy case has state healthy' : 'state healthy is for mode healthy only' });
    if (healthy && (t.faultStart !== null || t.families.length > 0)) ctx.addIssue({ code: 'custom', path: ['faultStart'], message: 'a healthy case has no fault and no families' });
    if (!healthy && (t.faultStart === null || t.families.length === 0)) ctx.addIssue({ code: 'custom', path: ['faultStart'], message: 'a fault case has a faultStart and families' });
    if (t.state === 'recovered' && t.faultEnd === null) ctx.addIssue({ code: 'custom', path: ['faultEnd'], message: 'a recovered case says when the fault ended' });
    if (t.state === 'active' && t.faultEnd !== null) ctx.addIssue({ code: 'custom', path: ['faultEnd'], message: 'an active case has no faultEnd' });
  });
export type LabTruth = z.infer<typeof LabTruth>;

export const LabCase = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'must be a lower-case slug'),
    engine: z.enum(['postgres', 'mariadb']),
    cluster: z.string().regex(/^lab-(pg|my)-\d{2,3}$/, 'lab clusters are lab-pg-NN / lab-my-NN'),
    mode: FailureModeId,
    variant: z
      .object({
        intensity: z.enum(['low', 'high']),
        onset: z.enum(ONSETS).nullable(),
        redHerring: FailureModeId.nullable(),
      })
      .strict(),
    recorded: z
      .object({
        at: Iso,
        durationRealS: z.number().positive(),
        /** Case seconds per real second. */
        timeScale: z.number().positive(),
        /** Case time of t = 0 (the first sample). */
        caseStart: Iso,
        versions: z.record(z.string(), z.string()),
      })
      .strict(),
    truth: LabTruth,
    ticket: CaseTicket,
    series: z.array(LabSeries).min(1),
    logs: z.array(LabLogLine),
    statements: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.truth.mode !== c.mode) ctx.addIssue({ code: 'custom', path: ['truth', 'mode'], message: `truth.mode ${c.truth.mode} differs from mode ${c.mode}` });
    const wrong = c.series.findIndex((s) => s.labels['cluster'] !== c.cluster);
    if (wrong >= 0) ctx.addIssue({ code: 'custom', path: ['series', wrong, 'labels', 'cluster'], message: `every series carries cluster="${c.cluster}"` });
    const t = c.ticket.ticket;
    const text = `${t.title}\n${t.description}`;
    if (!text.includes(c.cluster)) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket', 'description'], message: `the ticket names the cluster ${c.cluster}` });
    if (/\b20\d\d-\d\d-\d\d\b/.test(text)) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket'], message: 'ticket text carries clock times only, no dates (the replay moves cases by whole days)' });
    if (Date.parse(c.ticket.cutoff) % 60_000 !== 0) ctx.addIssue({ code: 'custom', path: ['ticket', 'cutoff'], message: 'the cutoff is on a whole minute' });
    if (Date.parse(t.createdAt) > Date.parse(c.ticket.cutoff)) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket', 'createdAt'], message: 'the ticket is created before its cutoff' });
  });
export type LabCase = z.infer<typeof LabCase>;

/** Parses one case (already un-gzipped JSON); errors name the file and every bad field. */
export function parseLabCase(raw: unknown, file: string): LabCase {
  const parsed = LabCase.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: invalid lab case:\n${parsed.error.issues.map((i) => `  - ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('\n')}`);
  }
  if (parsed.data.id !== basename(file, '.json.gz')) throw new Error(`${file}: id "${parsed.data.id}" must equal the file name`);
  return parsed.data;
}

export function readLabCase(path: string): LabCase {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8'));
  } catch (error) {
    throw new Error(`${path}: not gzipped JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseLabCase(raw, path);
}

/** Every committed case in file-name order; ids, clusters and ticket keys are unique. */
export function loadLabCases(dir: string = LAB_CASES_DIR): LabCase[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json.gz'));
  } catch {
    return [];
  }
  const owners = new Map<string, string>();
  return files.sort().map((f) => {
    const c = readLabCase(join(dir, f));
    for (const key of [`cluster:${c.cluster}`, `ticket:${c.ticket.ticket.key}`]) {
      const owner = owners.get(key);
      if (owner) throw new Error(`${f}: ${key} is already used by ${owner}`);
      owners.set(key, f);
    }
    return c;
  });
}

/**
 * Real time -> case time. The recorder runs a case for a few real minutes and writes it
 * stretched: one real second is `scale` case seconds, the real end maps to `caseEndMs`.
 */
export interface Stretch {
  realStartMs: number;
  realEndMs: number;
  scale: number;
  caseEndMs: number;
}

export function caseStartMs(s: Stretch): number {
  return s.caseEndMs - (s.realEndMs - s.realStartMs) * s.scale;
}

/** The case time of a real instant (ms). */
export function toCaseMs(s: Stretch, realMs: number): number {
  return s.caseEndMs - (s.realEndMs - realMs) * s.scale;
}

/**
 * A sample's value in case time: counters are multiplied by the factor, so that per-second rates
 * over the stretched time equal the real rates; gauges keep their value, except gauges that
 * measure elapsed time (an age: x factor) or hold a Unix time (mapped like a sample's time).
 */
export function stretchValue(s: Stretch, kind: 'gauge' | 'counter' | 'age' | 'timestamp', value: number): number {
  switch (kind) {
    case 'counter':
    case 'age':
      return value * s.scale;
    case 'timestamp':
      return value > 0 ? toCaseMs(s, value * 1000) / 1000 : value;
    case 'gauge':
      return value;
  }
}
