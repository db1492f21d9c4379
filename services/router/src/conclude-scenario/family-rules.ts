import type { CausalStrength, EvidenceFactV1, Severity } from '@aoc/contracts';
import { familyLabel, formatValue } from '@aoc/metric-ontology';
import { signalState } from './hypotheses/signal-state';
import { DEVIATION_THRESHOLD, DRIVES, MIN_RELATIVE_CHANGE, EFFECT_FAMILIES, EVENTS, FAMILY_ADVICE, FLOORS, LIMITS, NEGLIGIBLE, SESSION_MOVES, ONSET_WINDOW, RECOVERED_WITHIN, SATURATION, SIMULTANEITY, THROUGHPUT_FAMILIES } from './family-rules.data';


/** The lead series of one metric query, as the family rules read it. */
export interface FamilySignal {
  queryId: string;
  family: string;
  metric: string;
  badDirection: 'up' | 'down' | 'both';
  unit: string;
  /** Multiplier from the raw samples to `unit`. */
  scale: number;
  points: number;
  first: number | null;
  last: number | null;
  min: number | null;
  max: number | null;
  maxAt: number | null;
  score: number | null;
  direction: 'up' | 'down' | null;
  shiftAt: number | null;
  baseline: number | null;
  recent: number | null;
  /** The executor classified the query's metric (facts recorded before families lack it). */
  classified: boolean;
  /** The window in 12 equal buckets (bucket means, null when empty), when the package sent it. */
  shape: (number | null)[] | null;
  /** Least-squares slope per hour over the window (raw unit) and the fit's r², when sent. */
  slopePerHour: number | null;
  trendR2: number | null;
  /** Median of the hour before the window, where the provider holds it. */
  priorMedian: number | null;
  /** The series' labels as the fact subject shows them (safe labels only). */
  subject: string;
}

/** A bucket list as the executor writes it: comma-separated numbers, empty for a bucket with no sample. */
export function parseShape(v: unknown): (number | null)[] | null {
  if (typeof v !== 'string' || v.length === 0) return null;
  const parts = v.split(',').map((p) => (p.trim() === '' || p.trim() === 'null' ? null : Number(p)));
  if (parts.some((p) => p !== null && !Number.isFinite(p))) return null;
  return parts.some((p) => p !== null) ? parts : null;
}

export type FamilyConclusion =
  | { kind: 'missing'; statement: string; missing: string[] }
  | { kind: 'healthy'; statement: string }
  | {
      kind: 'cause';
      family: string;
      statement: string;
      strength: CausalStrength;
      openLink: string;
      mitigation: string;
      severity: Severity;
      counter: string[];
      recovered: boolean;
      /** Families the scenario needs that were not measured (the cause is named from the others). */
      unmeasured: string[];
    };

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== 'n/a' ? v : null);
/** An ISO time attribute in ms, or null (absent, 'n/a' or unreadable). */
export const time = (v: unknown): number | null => {
  const s = str(v);
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : null;
};

/** Every metric series the executor materialised (a query's top series and its most anomalous one), once each. */
export function familySignals(facts: readonly EvidenceFactV1[]): FamilySignal[] {
  const out = new Map<string, FamilySignal>();
  for (const f of facts) {
    if (f.kind !== 'metric_summary' || out.has(`${f.queryId}\n${f.subject}`)) continue;
    const a = f.attributes;
    const family = str(a['family']) ?? 'unknown';
    const baseline = num(a['baselineMedian']);
    const recent = num(a['recentMedian']);
    const bad = str(a['badDirection']);
    const direction = str(a['direction']);
    out.set(`${f.queryId}\n${f.subject}`, {
      queryId: f.queryId,
      family,
      metric: str(a['metric']) ?? f.queryId,
      badDirection: bad === 'up' || bad === 'down' ? bad : 'both',
      unit: str(a['unitKind']) ?? 'unknown',
      scale: Number(str(a['unitScale']) ?? 1) || 1,
      points: num(a['points']) ?? 0,
      first: num(a['first']),
      last: num(a['last']),
      min: num(a['min']),
      max: num(f.value),
      maxAt: time(a['maxAt']),
      score: num(a['anomalyScore']),
      // Older facts carry no direction: the side of the recent level gives it.
      direction: direction === 'up' || direction === 'down' ? direction : baseline !== null && recent !== null && recent !== baseline ? (recent > baseline ? 'up' : 'down') : null,
      shiftAt: time(a['shiftAt']),
      baseline,
      recent,
      classified: str(a['family']) !== null,
      shape: parseShape(a['shape']),
      slopePerHour: num(a['slopePerHour']),
      trendR2: num(a['trendR2']),
      priorMedian: num(a['priorMedian']),
      subject: f.subject,
    });
  }
  return [...out.values()].filter((s) => s.points > 0);
}

/** Families a query asked for that came back with no series. */
export function emptyFamilies(facts: readonly EvidenceFactV1[]): string[] {
  return [...new Set(facts.filter((f) => f.kind === 'count' && f.value === 0 && typeof f.attributes['family'] === 'string').map((f) => String(f.attributes['family'])))];
}

/** A raw value of a signal in its family's unit. */
const scaled = (s: Pick<FamilySignal, 'scale'>, v: number | null) => (v === null ? null : v * s.scale);

/** A time as customers read it (HH:MM UTC). */
export const clock = (ms: number | null) => (ms === null ? 'an unknown time' : `${new Date(ms).toISOString().slice(11, 16)} UTC`);

/** The smallest move of a count (sessions, threads, locks) that counts as a change. */
export const MIN_COUNT_CHANGE = SESSION_MOVES.atLeast;

/** Deviating in the direction that is bad for its family. */
export function deviatesBadly(s: FamilySignal): boolean {
  if (s.score === null || s.score < DEVIATION_THRESHOLD || s.direction === null) return false;
  // A statistically clear move of a few per cent (a smooth wave, a quiet series) is no incident.
  if (s.baseline !== null && s.recent !== null && s.baseline !== 0 && Math.abs(s.recent - s.baseline) < MIN_RELATIVE_CHANGE * Math.abs(s.baseline)) return false;
  // Nor is one more session or thread than usual (4 -> 5 connections), whatever its ratio.
  const extreme = s.direction === 'down' ? s.min : s.max;
  if (SESSION_MOVES.families.includes(s.family) && s.baseline !== null && extreme !== null && Math.abs(extreme - s.baseline) * s.scale < SESSION_MOVES.atLeast) return false;
  const peak = s.max === null ? null : s.max * s.scale;
  if (peak !== null && NEGLIGIBLE.some((n) => n.family === s.family && n.units.includes(s.unit) && peak < n.below)) return false;
  return s.badDirection === 'both' || s.direction === s.badDirection;
}

/** Back near its baseline at the end of the window. */
export function recovered(s: FamilySignal): boolean {
  if (s.baseline === null || s.last === null) return false;
  const extreme = s.direction === 'down' ? s.min : s.max;
  if (extreme === null) return false;
  const excursion = Math.abs(extreme - s.baseline);
  return excursion > 0 && Math.abs(s.last - s.baseline) <= RECOVERED_WITHIN * excursion;
}

interface Finding {
  signal: FamilySignal;
  /** Limit or floor reached: the strongest kind of evidence. */
  exhausted: string | null;
  /** Capacity reached (e.g. CPU at 100%): as strong, but it keeps its place in time. */
  saturated: string | null;
  start: number | null;
}

/** A used or free amount this far past its bound was not measured on what the bound limits (a database's size against another volume). */
export const BEYOND_BOUND = 1.05;

function limitFinding(s: FamilySignal, signals: readonly FamilySignal[]): string | null {
  const rule = LIMITS.find((l) => l.family === s.family);
  // A bound in the signal's own unit (bytes against bytes, never an inode count).
  const limit = rule ? signals.find((x) => x.family === rule.limit && x.unit === s.unit) : undefined;
  // The limit is a setting: its latest value is the one in force.
  const bound = limit ? scaled(limit, limit.last ?? limit.max) : null;
  const peak = scaled(s, s.max);
  const ratio = bound !== null && bound > 0 && peak !== null ? peak / bound : null;
  if (rule && limit && bound !== null && ratio !== null && ratio >= rule.ratio && ratio <= BEYOND_BOUND) {
    return `${familyLabel(s.family)} reached ${formatValue(peak, s.unit)} at ${clock(s.maxAt)}, ${Math.round(ratio * 100)}% of the limit of ${formatValue(bound, limit.unit)}`;
  }
  const event = EVENTS.find((e) => e.family === s.family);
  if (event?.when === 'rises' && s.first !== null && s.max !== null && s.max > s.first) return `${event.says} at about ${clock(s.maxAt)}`;
  if (event?.when === 'resets' && s.first !== null && s.min !== null && s.first > 0 && s.min < 0.5 * s.first) return `${event.says}${s.shiftAt ? ` at about ${clock(s.shiftAt)}` : ''}`;
  const floor = FLOORS.find((f) => f.family === s.family && s.badDirection === 'down');
  if (floor && s.first !== null && s.min !== null && s.first > 0 && s.min <= floor.ratio * s.first) {
    return `${familyLabel(s.family)} fell from ${formatValue(scaled(s, s.first), s.unit)} to ${formatValue(scaled(s, s.min), s.unit)}${s.shiftAt ? ` (falling from ${clock(s.shiftAt)})` : ''}`;
  }
  return null;
}

/** A utilisation that rose to its capacity in the window (not one already there before it). */
function saturationFinding(s: FamilySignal): string | null {
  const rule = SATURATION.find((r) => r.family === s.family && r.unit === s.unit);
  const level = (v: number | null) => (v === null ? null : v * s.scale);
  const [base, peak] = [level(s.baseline), level(s.max)];
  if (!rule || base === null || peak === null || base >= rule.from || peak < rule.at) return null;
  return `${familyLabel(s.family)} (${s.metric}) rose from its usual level of ${formatValue(base, s.unit)} to ${formatValue(peak, s.unit)}${s.shiftAt ? ` from ${clock(s.shiftAt)}` : ''}: it is saturated`;
}

function describeChange(s: FamilySignal): string {
  const up = s.direction !== 'down';
  const extreme = up ? s.max : s.min;
  const at = up && s.maxAt ? ` (highest at ${clock(s.maxAt)})` : '';
  return `${familyLabel(s.family)} (${s.metric}) ${up ? 'rose' : 'fell'} from its usual level of ${formatValue(scaled(s, s.baseline), s.unit)} to ${formatValue(scaled(s, extreme), s.unit)}, starting at ${clock(s.shiftAt)}${at}`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const advice = (family: string) => FAMILY_ADVICE[family] ?? FAMILY_ADVICE['default'];

/**
 * Conclusion over families: missing evidence first (never a conclusion from absence; a general
 * symptom such as slowness may still be explained by the other measured families), then a
 * healthy reading when nothing deviates, else the earliest sustained change (a limit or floor
 * reached outranks a plain deviation among simultaneous ones) is the candidate cause; changes that
 * start after the symptom are named as effects or red herrings; a cause back to normal by the end
 * of the window is reported as recovered, not active.
 */
export function concludeByFamily(
  facts: readonly EvidenceFactV1[],
  needed: readonly string[],
  window: { from: string; to: string } | null,
  options: { strict?: boolean; onset?: number | null } = {},
): FamilyConclusion | null {
  const signals = familySignals(facts);
  const measured = new Set(signals.map((s) => s.family));
  const missing = needed.filter((f) => !measured.has(f));
  const classified = signals.every((s) => s.classified);
  const findings: Finding[] = signals
    .map((s) => ({ signal: s, exhausted: limitFinding(s, signals), saturated: saturationFinding(s), start: s.shiftAt }))
    .filter((f) => f.exhausted !== null || deviatesBadly(f.signal));
  // Nothing the scenario needs was measured: say what is missing (for a general symptom, only when nothing else moved).
  if (classified && needed.length > 0 && missing.length === needed.length && (options.strict !== false || findings.length === 0)) {
    const others = signals.length > 0 ? ` (it does hold ${[...measured].map(familyLabel).slice(0, 5).join(', ')})` : '';
    return { kind: 'missing', missing, statement: `Not determined: the provider returned no ${missing.map(familyLabel).join(' or ')} data for this target in the window${others}, so this cause can be neither confirmed nor ruled out.` };
  }
  if (signals.length === 0) return null;
  if (findings.length === 0) {
    // Healthy needs the signals to have been assessed against their own baseline.
    if (!signals.some((s) => s.score !== null)) return null;
    const shown = signals.slice(0, 4).map((s) => `${familyLabel(s.family)} stayed between ${formatValue(scaled(s, s.min), s.unit)} and ${formatValue(scaled(s, s.max), s.unit)}`);
    return { kind: 'healthy', statement: `No measured signal moved away from its usual level during the window: ${shown.join('; ')}. The database shows no sign of the reported problem in this window.` };
  }
  const span = window ? Date.parse(window.to) - Date.parse(window.from) : 3_600_000;
  const tolerance = Math.max(SIMULTANEITY.minMs, SIMULTANEITY.windowShare * span);
  const stalled = (f: Finding) => THROUGHPUT_FAMILIES.includes(f.signal.family) && f.signal.direction === 'down' && f.exhausted === null;
  const causes = findings.filter((f) => (!EFFECT_FAMILIES.includes(f.signal.family) || f.exhausted !== null) && !stalled(f));
  // The customer's onset: changes that begin around it explain a new problem better than ones
  // already under way long before (a limit or floor reached is always a candidate).
  const onset = options.onset ?? null;
  const aroundOnset = (f: Finding) => f.exhausted !== null || onset === null || f.start === null || (f.start >= onset - ONSET_WINDOW.beforeMs && f.start <= onset + ONSET_WINDOW.afterMs);
  const candidates = causes.filter(aroundOnset);
  const pool = candidates.length > 0 ? candidates : causes.length > 0 ? causes : findings;
  const earliest = Math.min(...pool.map((f) => f.start ?? Number.POSITIVE_INFINITY));
  const simultaneous = pool.filter((f) => (f.start ?? Number.POSITIVE_INFINITY) <= earliest + tolerance || f.exhausted !== null);
  const drives = (a: Finding, b: Finding) => (DRIVES[a.signal.family] ?? []).includes(b.signal.family);
  // Among simultaneous changes: an exhausted limit first, then one no other change drives, then one
  // of the families the scenario is about, then the largest shift.
  const driven = (f: Finding) => simultaneous.some((g) => g !== f && g.signal.family !== f.signal.family && drives(g, f) && !drives(f, g));
  const asked = (f: Finding) => needed.includes(f.signal.family);
  const lead =
    [...simultaneous].sort(
      (a, b) =>
        Number(b.exhausted !== null || b.saturated !== null) - Number(a.exhausted !== null || a.saturated !== null) ||
        Number(driven(a)) - Number(driven(b)) ||
        Number(asked(b)) - Number(asked(a)) ||
        Number(a.signal.family === 'unknown') - Number(b.signal.family === 'unknown') ||
        (b.signal.score ?? 0) - (a.signal.score ?? 0),
    )[0] ?? pool[0];
  const symptoms = findings.filter((f) => f !== lead && (EFFECT_FAMILIES.includes(f.signal.family) || needed.includes(f.signal.family) || f.signal.family === lead.signal.family));
  const symptomStart = Math.min(lead.start ?? Number.POSITIVE_INFINITY, ...symptoms.map((f) => f.start ?? Number.POSITIVE_INFINITY));
  const later = findings.filter((f) => f !== lead && f.start !== null && f.start > symptomStart + tolerance && !symptoms.includes(f));
  const counter = later
    .slice(0, 2)
    .map((f) => `${describeChange(f.signal)}: that began after the problem started (${clock(Number.isFinite(symptomStart) ? symptomStart : null)}), so it is an effect or a coincidence, not the cause.`);
  const back = recovered(lead.signal);
  const change = lead.exhausted ?? lead.saturated ?? describeChange(lead.signal);
  // One or two five-minute intervals high and back by the end: a brief spike, never a sustained
  // change, unless it is what the customer reported (it begins around the onset they gave).
  const atOnset = onset !== null && lead.start !== null && lead.start >= onset - ONSET_WINDOW.beforeMs && lead.start <= onset + ONSET_WINDOW.afterMs;
  const spike = lead.exhausted === null && lead.saturated === null && !atOnset && signalState(lead.signal).shape === 'spike';
  const order = spike ? '; it was a brief spike (one or two five-minute intervals), not a sustained change' : pool.length > 1 && lead.start !== null && !later.includes(lead) ? '; it is the earliest sustained change among the measured signals' : '';
  const recoveredText = back ? ` It was back to ${formatValue(scaled(lead.signal, lead.signal.last), lead.signal.unit)} by the end of the window: the incident has recovered and is not active now.` : '';
  const unmeasured = missing.length === needed.length && needed.length > 0 ? missing : [];
  return {
    kind: 'cause',
    family: lead.signal.family,
    unmeasured,
    statement: capitalised(`${change}${order}.${recoveredText}`),
    // A metric no family knows can lead, but only weakly: its link to the symptom is unknown.
    strength: lead.exhausted !== null || lead.saturated !== null ? 'strong' : lead.signal.family === 'unknown' || spike ? 'weak' : 'moderate',
    openLink: advice(lead.signal.family).openLink,
    mitigation: advice(lead.signal.family).mitigation,
    severity: back ? 'medium' : 'high',
    counter,
    recovered: back,
  };
}
