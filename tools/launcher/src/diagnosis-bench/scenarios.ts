// Diagnosis benchmark (bench/diagnosis/), suite B: reviewed managed-database scenarios (test/cases/*.json), each a
// ticket in a user's words plus a compact generator spec per series, expanded here by a seeded,
// deterministic generator into 1-minute samples. Pure apart from reading the case files.
//
// Generator (see README.md): minute m counts from the analysis window's start (cutoff - 60 min);
// samples run every minute from m = -PRELUDE_MINUTES to the cutoff (m = 60). A series' level is
// `base`, changed by its events in order:
//   step / drop  level = to from `at` (until `until`, when given)
//   ramp         level goes linearly from what it was at `at` to `to` at `until`, then stays
//   spike        level = to from `at` until `until` (default one minute)
//   reset        counters: the cumulative value restarts at `to` (default 0); clock series: the
//                process restarts (uptime to `to`, default 0)
// then noise: level x (1 + noise x u), u uniform in [-1, 1] from a PRNG seeded by case id and
// series index, clamped to [min, max] (min defaults to 0) and rounded when `integer`. A counter's
// level is its rate per second; its value adds level x 60 each minute from `start`. A clock
// series (`clock: uptime | start_time`) has `base` = uptime in seconds at m = 0 and no noise:
// `uptime` exports the uptime, `start_time` the Unix time of the last (re)start.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FrozenTicketV1, RunMode, RunTrigger } from '@aoc/contracts';
import { METRIC_FAMILY_IDS } from '@aoc/metric-ontology';
import type { FixtureSeries } from '@aoc/providers/testing';
import { z } from 'zod';
import { BENCH_DIR } from './paths';

/** The reviewed case files. */
export const CASES_DIR = join(BENCH_DIR, 'test', 'cases');
/** A valid Prometheus metric name (no colons: those are for recording rules). */
export const METRIC_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A valid Prometheus label name. */
export const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const WINDOW_MINUTES = 60;
/** Minutes of samples before the window, so baseline queries find data. */
export const PRELUDE_MINUTES = 180;
const MINUTE = 60;

const Family = z.enum(METRIC_FAMILY_IDS);
const FamilyOrNone = z.union([Family, z.literal('none')]);
export const ENGINES = ['postgres', 'mysql', 'tidb', 'aurora-postgres', 'aurora-mysql', 'rds-postgres', 'rds-mysql'] as const;
export const SCENARIO_KINDS = [
  'connection-exhaustion',
  'storage-full',
  'replication-lag',
  'cpu-saturation',
  'memory-pressure',
  'io-saturation',
  'lock-contention',
  'checkpoint-wal',
  'failover-restart',
  'maintenance-backup',
  'network',
  'healthy',
  'recovered',
  'red-herring',
  'missing-metrics',
  'unknown-cluster',
  'no-cluster',
] as const;

const LabelValue = z.string().regex(/^[^"\\\n]{0,200}$/, 'label values must not contain quotes, backslashes or newlines');

export const SeriesEvent = z
  .object({
    at: z.number().min(-PRELUDE_MINUTES).max(WINDOW_MINUTES),
    kind: z.enum(['step', 'ramp', 'spike', 'drop', 'reset']),
    to: z.number().finite().optional(),
    until: z.number().min(-PRELUDE_MINUTES).max(WINDOW_MINUTES + 1).optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.kind !== 'reset' && e.to === undefined) ctx.addIssue({ code: 'custom', path: ['to'], message: `a ${e.kind} needs "to"` });
    if (e.kind === 'ramp' && (e.until === undefined || e.until <= e.at)) ctx.addIssue({ code: 'custom', path: ['until'], message: 'a ramp needs "until" after "at"' });
    if (e.until !== undefined && e.until <= e.at) ctx.addIssue({ code: 'custom', path: ['until'], message: '"until" must be after "at"' });
  });
export type SeriesEvent = z.infer<typeof SeriesEvent>;

export const SeriesSpec = z
  .object({
    metric: z.string().regex(METRIC_NAME, 'must be a Prometheus metric name'),
    labels: z.record(z.string().regex(LABEL_NAME, 'label names must be Prometheus label names'), LabelValue),
    type: z.enum(['gauge', 'counter']),
    base: z.number().finite(),
    noise: z.number().min(0).max(1).default(0.02),
    events: z.array(SeriesEvent).default([]),
    clock: z.enum(['uptime', 'start_time']).optional(),
    start: z.number().min(0).optional(),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    integer: z.boolean().optional(),
    symptom: z.boolean().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (!s.labels['cluster']) ctx.addIssue({ code: 'custom', path: ['labels', 'cluster'], message: 'every series carries the target label cluster' });
    if (s.clock && s.type !== 'gauge') ctx.addIssue({ code: 'custom', path: ['clock'], message: 'a clock series is a gauge' });
    if (s.clock && s.base < PRELUDE_MINUTES * MINUTE) ctx.addIssue({ code: 'custom', path: ['base'], message: `a clock series starts before the prelude: base (uptime at the window start) >= ${PRELUDE_MINUTES * MINUTE}` });
    if (s.type === 'counter' && s.base < 0) ctx.addIssue({ code: 'custom', path: ['base'], message: 'a counter rate cannot be negative' });
    s.events.forEach((e, i) => {
      if (e.kind === 'reset' && s.type !== 'counter' && !s.clock) ctx.addIssue({ code: 'custom', path: ['events', i, 'kind'], message: 'reset applies to counters and clock series only' });
      if (s.clock && e.kind !== 'reset') ctx.addIssue({ code: 'custom', path: ['events', i, 'kind'], message: 'a clock series only takes reset events' });
    });
    if (s.min !== undefined && s.max !== undefined && s.min > s.max) ctx.addIssue({ code: 'custom', path: ['max'], message: 'max below min' });
  });
export type SeriesSpec = z.infer<typeof SeriesSpec>;

/** The ticket exactly as services/router/examples/tickets/*.json carry it (without their reviewer note). */
export const CaseTicket = z
  .object({
    mode: RunMode,
    trigger: RunTrigger,
    cutoff: z.iso.datetime({ offset: true }),
    ticket: FrozenTicketV1.strict(),
  })
  .strict();

export const Expected = z
  .object({
    family: FamilyOrNone,
    /** Further families that also count as naming the cause, where it genuinely shows in several. */
    alsoAccept: z.array(Family).max(3).optional(),
    decision: z.enum(['internal_only', 'human_required', 'clarification_needed']),
    state: z.enum(['active', 'recovered', 'healthy', 'missing_evidence', 'clarify']),
    redHerring: Family.optional(),
    mustMention: z.array(z.string().min(1).max(80)).max(6).optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    const noCause = e.state === 'healthy' || e.state === 'missing_evidence' || e.state === 'clarify';
    if (noCause !== (e.family === 'none')) ctx.addIssue({ code: 'custom', path: ['family'], message: `state ${e.state} ${noCause ? 'names no family ("none")' : 'needs a family'}` });
    if (e.state === 'clarify' && e.decision !== 'clarification_needed') ctx.addIssue({ code: 'custom', path: ['decision'], message: 'a clarify case expects clarification_needed' });
    if (e.redHerring && (e.redHerring === e.family || e.alsoAccept?.includes(e.redHerring))) ctx.addIssue({ code: 'custom', path: ['redHerring'], message: 'the red herring cannot be an accepted family' });
    if (e.family === 'none' && e.alsoAccept?.length) ctx.addIssue({ code: 'custom', path: ['alsoAccept'], message: 'nothing to accept when no family is expected' });
  });
export type Expected = z.infer<typeof Expected>;

export const ScenarioCase = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'must be a lower-case slug'),
    engine: z.enum(ENGINES),
    kind: z.enum(SCENARIO_KINDS),
    summary: z.string().min(10).max(300),
    ticket: CaseTicket,
    series: z.array(SeriesSpec).min(10).max(25),
    expected: Expected,
  })
  .strict()
  .superRefine((c, ctx) => {
    const clusters = new Set(c.series.map((s) => s.labels['cluster']));
    if (clusters.size !== 1) ctx.addIssue({ code: 'custom', path: ['series'], message: `every series of a case carries the same cluster label (found ${[...clusters].join(', ')})` });
    const cluster = [...clusters][0] ?? '';
    const t = c.ticket.ticket;
    const text = `${t.title}\n${t.description}\n${t.comments.map((x) => x.body).join('\n')}`;
    const named = new RegExp(`(^|[^A-Za-z0-9_-])${cluster.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`).test(text);
    if (c.expected.state === 'clarify' ? named : !named) {
      ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket', 'description'], message: c.expected.state === 'clarify' ? `a clarify case must not name its data's cluster "${cluster}"` : `the ticket must name the cluster "${cluster}" as users do` });
    }
    if (/\b20\d\d-\d\d-\d\d\b/.test(text)) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket'], message: 'ticket text carries clock times only, no dates (the harness moves cases by whole days)' });
    const cutoff = Date.parse(c.ticket.cutoff);
    if (cutoff % (MINUTE * 1000) !== 0) ctx.addIssue({ code: 'custom', path: ['ticket', 'cutoff'], message: 'the cutoff is on a whole minute' });
    if (Date.parse(t.createdAt) > cutoff) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket', 'createdAt'], message: 'the ticket is created before its cutoff' });
    if (Date.parse(t.createdAt) < cutoff - WINDOW_MINUTES * MINUTE * 1000) ctx.addIssue({ code: 'custom', path: ['ticket', 'ticket', 'createdAt'], message: 'the ticket is created within the hour before its cutoff' });
    const keys = new Set<string>();
    c.series.forEach((s, i) => {
      const key = `${s.metric}{${Object.entries(s.labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}="${v}"`)
        .join(',')}}`;
      if (keys.has(key)) ctx.addIssue({ code: 'custom', path: ['series', i], message: `duplicate series ${key}` });
      keys.add(key);
    });
    const types = new Map<string, string>();
    c.series.forEach((s, i) => {
      const seen = types.get(s.metric);
      if (seen && seen !== s.type) ctx.addIssue({ code: 'custom', path: ['series', i, 'type'], message: `${s.metric} is both ${seen} and ${s.type}` });
      types.set(s.metric, s.type);
    });
  });
export type ScenarioCase = z.infer<typeof ScenarioCase>;

/** Parses one case file; a bad file is an error naming the file and every bad field. */
export function parseScenarioCase(raw: unknown, file: string): ScenarioCase {
  const parsed = ScenarioCase.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: invalid suite-B case:\n${parsed.error.issues.map((i) => `  - ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('\n')}`);
  }
  if (parsed.data.id !== basename(file, '.json')) throw new Error(`${file}: id "${parsed.data.id}" must equal the file name`);
  return parsed.data;
}

/** Every case of the suite, in file-name order; ids, ticket keys and clusters are unique across it. */
export function loadScenarioCases(dir: string = CASES_DIR): ScenarioCase[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const cases: ScenarioCase[] = [];
  const owners = new Map<string, string>();
  for (const f of files) {
    const path = join(dir, f);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`${path}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    const c = parseScenarioCase(raw, path);
    for (const [what, value] of [
      ['ticket key', c.ticket.ticket.key],
      ['cluster', c.series[0].labels['cluster']],
    ] as const) {
      const owner = owners.get(`${what}:${value}`);
      if (owner) throw new Error(`${path}: ${what} "${value}" is already used by ${owner}`);
      owners.set(`${what}:${value}`, path);
    }
    cases.push(c);
  }
  if (cases.length === 0) throw new Error(`${dir}: no suite-B case files`);
  return cases;
}

export function clusterOf(c: ScenarioCase): string {
  return c.series[0].labels['cluster'];
}

/** Deterministic 32-bit seed of a string (FNV-1a). */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The level of a series at minute m, before noise. */
export function levelAt(spec: Pick<SeriesSpec, 'base' | 'events'>, m: number): number {
  let level = spec.base;
  for (const e of spec.events) {
    if (m < e.at) continue;
    switch (e.kind) {
      case 'step':
      case 'drop':
        if (e.until === undefined || m < e.until) level = e.to as number;
        break;
      case 'spike':
        if (m < (e.until ?? e.at + 1)) level = e.to as number;
        break;
      case 'ramp': {
        const until = e.until as number;
        const to = e.to as number;
        level = m >= until ? to : level + ((to - level) * (m - e.at)) / (until - e.at);
        break;
      }
      case 'reset':
        break;
    }
  }
  return level;
}

/** Reset events that happen in (previous minute, m]. */
function resetAt(spec: Pick<SeriesSpec, 'events'>, m: number): { to?: number } | undefined {
  return spec.events.find((e) => e.kind === 'reset' && e.at > m - 1 && e.at <= m);
}

/** Expands one spec into samples, [unix seconds, value], one per minute over [windowStart - prelude, windowStart + 60 min]. */
export function generateSamples(spec: SeriesSpec, windowStartSec: number, seed: number): [number, number][] {
  const random = prng(seed);
  const out: [number, number][] = [];
  const lo = spec.min ?? 0;
  const hi = spec.max ?? Number.POSITIVE_INFINITY;
  const shape = (level: number): number => {
    const noisy = level * (1 + spec.noise * (2 * random() - 1));
    const clamped = Math.min(hi, Math.max(lo, noisy));
    return spec.integer ? Math.round(clamped) : Math.round(clamped * 1e6) / 1e6;
  };
  let cumulative = spec.start ?? Math.round(Math.max(0, spec.base) * 86400);
  let uptime = spec.base - PRELUDE_MINUTES * MINUTE;
  for (let m = -PRELUDE_MINUTES; m <= WINDOW_MINUTES; m++) {
    const t = windowStartSec + m * MINUTE;
    const reset = resetAt(spec, m);
    if (spec.clock) {
      uptime = reset ? (reset.to ?? 0) : m === -PRELUDE_MINUTES ? uptime : uptime + MINUTE;
      out.push([t, spec.clock === 'uptime' ? Math.max(0, uptime) : t - uptime]);
      continue;
    }
    const value = shape(levelAt(spec, m));
    if (spec.type === 'counter') {
      if (reset) cumulative = reset.to ?? 0;
      else if (m > -PRELUDE_MINUTES) cumulative += value * MINUTE;
      out.push([t, spec.integer ? Math.round(cumulative) : Math.round(cumulative * 1e3) / 1e3]);
    } else {
      out.push([t, value]);
    }
  }
  return out;
}

export interface ExpandedCase {
  case: ScenarioCase;
  cluster: string;
  /** The ticket request moved by `shiftDays` whole days. */
  request: z.infer<typeof CaseTicket>;
  shiftDays: number;
  windowStartSec: number;
  cutoffSec: number;
  series: FixtureSeries[];
  /** Metric names marked `symptom` (excluded from the reference ranker). */
  symptomMetrics: string[];
}

const DAY_MS = 86400_000;
const shiftIso = (iso: string, days: number): string => new Date(Date.parse(iso) + days * DAY_MS).toISOString().replace('.000Z', 'Z');

/**
 * Whole days that move a case's cutoff onto the UTC day `anchorDayMs` (midnight) while keeping its
 * clock time, so every run places the suite in the recent past (ticket text carries clock times only).
 */
export function shiftDaysFor(cutoffIso: string, anchorDayMs: number): number {
  const cutoffDay = Math.floor(Date.parse(cutoffIso) / DAY_MS) * DAY_MS;
  return Math.round((anchorDayMs - cutoffDay) / DAY_MS);
}

/** The UTC midnight suite B is moved to: three days before now, so even 23:59 cutoffs lie two days in the past. */
export function suiteBAnchorDay(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - 3 * DAY_MS;
}

export function expandCase(c: ScenarioCase, anchorDayMs: number): ExpandedCase {
  const shiftDays = shiftDaysFor(c.ticket.cutoff, anchorDayMs);
  const request = {
    ...c.ticket,
    cutoff: shiftIso(c.ticket.cutoff, shiftDays),
    ticket: {
      ...c.ticket.ticket,
      createdAt: shiftIso(c.ticket.ticket.createdAt, shiftDays),
      comments: c.ticket.ticket.comments.map((x) => ({ ...x, createdAt: shiftIso(x.createdAt, shiftDays) })),
    },
  };
  const cutoffSec = Date.parse(request.cutoff) / 1000;
  const windowStartSec = cutoffSec - WINDOW_MINUTES * MINUTE;
  const series = c.series.map((s, i) => ({
    metric: s.metric,
    type: s.type,
    labels: { ...s.labels },
    samples: generateSamples(s, windowStartSec, seedOf(`${c.id}#${i}`)),
  }));
  return { case: c, cluster: clusterOf(c), request, shiftDays, windowStartSec, cutoffSec, series, symptomMetrics: [...new Set(c.series.filter((s) => s.symptom).map((s) => s.metric))] };
}
