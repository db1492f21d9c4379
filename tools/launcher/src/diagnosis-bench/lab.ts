// Diagnosis benchmark, suite L (incident lab): a recorded case moved into the recent past, its
// folds, and how one run is scored against the case's ground truth. Pure apart from reading
// bench/lab/folds.json and the failure-mode catalogue.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureSeries } from '@aoc/providers/testing';
import { z } from 'zod';
import { LAB_DIR, type LabCase } from './lab-case';
import { REPO_ROOT } from './paths';
import { seedOf, shiftDaysFor, type CaseTicket } from './scenarios';
import { strengthRank } from './score';

const DAY_MS = 86400_000;

export interface LabStream {
  labels: Record<string, string>;
  entries: [number, string][];
}

export interface ExpandedLabCase {
  case: LabCase;
  request: z.infer<typeof CaseTicket>;
  shiftDays: number;
  cutoffSec: number;
  series: FixtureSeries[];
  streams: LabStream[];
}

const shiftIso = (iso: string, days: number): string => new Date(Date.parse(iso) + days * DAY_MS).toISOString().replace('.000Z', 'Z');

/** The engine's own stamp in front of a stored line (case files keep lines without it). */
export function stampLine(engine: LabCase['engine'], ms: number, line: string): string {
  const iso = new Date(ms).toISOString();
  if (engine === 'postgres') return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC ${line}`;
  // MariaDB's error log pads the hour with a space: "2026-12-02  9:40:55".
  return `${iso.slice(0, 10)} ${String(Number(iso.slice(11, 13))).padStart(2, ' ')}:${iso.slice(14, 19)} ${line}`;
}

/** Case seconds between the samples kept of a constant gauge: within Prometheus' 5-minute lookback, so it never drops out of a query. */
export const CONSTANT_GAUGE_STEP_S = 240;

/**
 * The samples of a series, a constant gauge thinned to one sample per CONSTANT_GAUGE_STEP_S
 * (and its last): most lab series are settings and versions, and a case loads in a quarter of
 * the samples. Counters and changing gauges keep every scrape.
 */
export function thinConstant(s: Pick<LabCase['series'][number], 't' | 'v' | 'type'>): [number, number][] {
  const all = s.t.map((t, i) => [t, s.v[i]] as [number, number]);
  if (s.type !== 'gauge' || s.v.some((v) => v !== s.v[0])) return all;
  let last = Number.NEGATIVE_INFINITY;
  return all.filter(([t], i) => {
    if (i < all.length - 1 && t - last < CONSTANT_GAUGE_STEP_S) return false;
    last = t;
    return true;
  });
}

/** Moves a case by whole days so its cutoff falls on `anchorDayMs` (as suite B), keeping clock times. */
export function expandLabCase(c: LabCase, anchorDayMs: number): ExpandedLabCase {
  const shiftDays = shiftDaysFor(c.ticket.cutoff, anchorDayMs);
  const startMs = Date.parse(c.recorded.caseStart) + shiftDays * DAY_MS;
  const request = {
    ...c.ticket,
    cutoff: shiftIso(c.ticket.cutoff, shiftDays),
    ticket: { ...c.ticket.ticket, createdAt: shiftIso(c.ticket.ticket.createdAt, shiftDays), comments: c.ticket.ticket.comments.map((x) => ({ ...x, createdAt: shiftIso(x.createdAt, shiftDays) })) },
  };
  const series: FixtureSeries[] = c.series.map((s) => ({ metric: s.metric, type: s.type, labels: { ...s.labels }, samples: thinConstant(s).map(([t, v]) => [Math.round(startMs / 1000) + t, v] as [number, number]) }));
  const streams = new Map<string, LabStream>();
  for (const l of c.logs) {
    const key = JSON.stringify(Object.entries(l.labels).sort());
    const s = streams.get(key) ?? { labels: { ...l.labels }, entries: [] };
    const ms = startMs + l.t * 1000;
    s.entries.push([ms, stampLine(c.engine, ms, l.line)]);
    streams.set(key, s);
  }
  return { case: c, request, shiftDays, cutoffSec: Date.parse(request.cutoff) / 1000, series, streams: [...streams.values()] };
}

// ---------------------------------------------------------------------------------------------
// Folds

export const FoldsFile = z
  .object({
    k: z.number().int().min(2).max(10),
    development: z.array(z.number().int().min(0)).min(1),
    note: z.string().optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    f.development.forEach((d, i) => {
      if (d >= f.k) ctx.addIssue({ code: 'custom', path: ['development', i], message: `fold ${d} does not exist with k = ${f.k}` });
    });
    if (new Set(f.development).size >= f.k) ctx.addIssue({ code: 'custom', path: ['development'], message: 'at least one fold must stay held out' });
  });
export type FoldsFile = z.infer<typeof FoldsFile>;

export const FOLDS_PATH = join(LAB_DIR, 'folds.json');

export function loadFolds(path: string = FOLDS_PATH): FoldsFile {
  const parsed = FoldsFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: invalid folds file:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}`);
  return parsed.data;
}

/**
 * Fold of every case: within each mode, cases ordered by a hash of their id go to folds
 * 0, 1, ..., k-1, 0, ... in turn, so each mode's variants spread over the folds. Adding a case
 * can move others of its mode: the split is of the committed set, and it is printed.
 */
export function assignFolds(cases: readonly Pick<LabCase, 'id' | 'mode'>[], k: number): Map<string, number> {
  const out = new Map<string, number>();
  const byMode = new Map<string, string[]>();
  for (const c of cases) byMode.set(c.mode, [...(byMode.get(c.mode) ?? []), c.id]);
  for (const ids of byMode.values()) {
    const ordered = [...ids].sort((a, b) => seedOf(a) - seedOf(b) || a.localeCompare(b));
    ordered.forEach((id, i) => out.set(id, i % k));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Failure-mode vocabulary (services/router/data/failure-modes.json, when present)

const Catalogue = z.object({ modes: z.array(z.object({ id: z.string(), vocabulary: z.array(z.string()).optional() }).loose()) }).loose();
export const FAILURE_MODES_PATH = join(REPO_ROOT, 'services', 'router', 'data', 'failure-modes.json');

/** Each mode's vocabulary, or null when the catalogue (or its vocabulary) is absent. */
export function loadVocabulary(path: string = FAILURE_MODES_PATH): Map<string, string[]> | null {
  if (!existsSync(path)) return null;
  const parsed = Catalogue.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const withWords = parsed.data.modes.filter((m) => m.vocabulary && m.vocabulary.length > 0);
  return withWords.length === 0 ? null : new Map(withWords.map((m) => [m.id, m.vocabulary ?? []]));
}

// ---------------------------------------------------------------------------------------------
// Scoring

/** What the bench reads of one brief row (router.scenario_threads). */
export interface LabBriefRow {
  scenario: string;
  brief: { leadingMechanism?: { strength?: string; family?: string | null; mode?: string | null }; severity?: string } | null;
}

export interface LabLead {
  mode: string | null;
  family: string | null;
  strength: string | null;
  severity: string | null;
  /** Some brief carries a `leadingMechanism.mode` field (the engine reports modes at all). */
  reportsModes: boolean;
  /** Some brief names a cause other than healthy at strength >= moderate. */
  namesFault: boolean;
}

/** The leading brief: highest strength, ties in scenario order (as the router reconciles). */
export function leadOf(rows: readonly LabBriefRow[]): LabLead {
  const ranked = rows.filter((r) => strengthRank(r.brief?.leadingMechanism?.strength ?? null) >= 0);
  const lead = [...ranked].sort((a, b) => strengthRank(b.brief?.leadingMechanism?.strength ?? null) - strengthRank(a.brief?.leadingMechanism?.strength ?? null))[0];
  const m = lead?.brief?.leadingMechanism;
  const namesFault = rows.some((r) => {
    const lm = r.brief?.leadingMechanism;
    return strengthRank(lm?.strength ?? null) >= strengthRank('moderate') && lm?.mode !== 'healthy' && (lm?.family != null || (lm?.mode != null && lm.mode !== 'healthy'));
  });
  return {
    mode: m?.mode ?? null,
    family: m?.family ?? null,
    strength: m?.strength ?? null,
    severity: lead?.brief?.severity ?? null,
    reportsModes: rows.some((r) => r.brief?.leadingMechanism != null && 'mode' in r.brief.leadingMechanism),
    namesFault,
  };
}

export interface LabScore {
  /** The leading cause is the case's mode (or an accepted one); healthy: no fault named. */
  causeOk: boolean;
  /** How the cause was judged: by mode, or by family where the engine gives no modes. */
  by: 'mode' | 'family';
  /** Healthy and recovered cases only: healthy named no fault; recovered: right cause and not reported as active (severity below high). */
  stateOk: boolean | null;
  /** The customer reply uses a word of the mode's vocabulary; null without a catalogue or for healthy. */
  vocabularyOk: boolean | null;
  /** A red-herring case whose leading mode is the red herring. */
  herringTaken: boolean | null;
}

export function scoreLab(c: Pick<LabCase, 'truth' | 'variant'>, lead: LabLead, reply: string, published: boolean, vocabulary: Map<string, string[]> | null): LabScore {
  const t = c.truth;
  const healthy = t.mode === 'healthy';
  const by = lead.reportsModes ? 'mode' : 'family';
  let causeOk: boolean;
  if (!published) causeOk = false;
  else if (healthy) causeOk = !lead.namesFault && (lead.mode === null || lead.mode === 'healthy');
  else if (by === 'mode') causeOk = lead.mode !== null && [t.mode, ...t.alsoAcceptModes].includes(lead.mode as LabCase['mode']);
  else causeOk = lead.family !== null && (t.families as string[]).includes(lead.family);
  const stateOk = t.state === 'healthy' ? causeOk : t.state === 'recovered' ? causeOk && lead.severity !== null && lead.severity !== 'high' && lead.severity !== 'critical' : null;
  const words = vocabulary?.get(t.mode);
  const text = reply.toLowerCase();
  return {
    causeOk,
    by,
    stateOk,
    vocabularyOk: !vocabulary || healthy || !words ? null : published && words.some((w) => text.includes(w.toLowerCase())),
    herringTaken: c.variant.redHerring ? published && lead.mode === c.variant.redHerring : null,
  };
}
