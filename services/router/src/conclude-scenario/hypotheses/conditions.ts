import { classifyMetric, familyLabel, formatValue, isMetricFamilyId, metricFamily } from '@aoc/metric-ontology';
import { BEYOND_BOUND, MIN_COUNT_CHANGE, clock, deviatesBadly, recovered } from '../family-rules';
import { logPatternWords, type Condition } from './failure-modes.data';
import { largest, worst, worstInUnit, type EvidenceContext } from './evidence-context';
import { changeFactor, extremeOf, hoursToBound, type SignalState } from './signal-state';

/**
 * One condition tested against the evidence: it holds, fails on measured data, or cannot be
 * decided because what it reads was not measured (`unknown`, never a pass). Each result carries
 * the line of evidence that decided it, how large the finding is (0-1, for ranking) and when it
 * began.
 */
export interface ConditionResult {
  result: 'holds' | 'fails' | 'unknown';
  line: string;
  /** 0-1: how far past its threshold the finding is (a limit reached = 1, a 25 % rise ≈ 0.1). */
  magnitude: number;
  at: number | null;
  /** The family the line is about, when there is one. */
  family: string | null;
  /** A state (a limit, a level, an event, a log line, a statement), not only a change against the usual level. */
  state?: boolean;
  /** The state held in the hour before the window too: a standing condition, not what changed. */
  chronic?: boolean;
  /** A state that names its mechanism (a log line, an event, a limit reached), not a level over a threshold. */
  names?: boolean;
  /** When a discrete finding (an event, a log pattern) was last seen, when known. */
  lastAt?: number | null;
}

/** Conditions that read a state rather than a change: they stand on their own, whatever changed first. */
const STATE_KINDS: ReadonlySet<Condition['kind']> = new Set(['atLimit', 'level', 'nearEmpty', 'event', 'log', 'statement', 'count', 'skew', 'tracks']);

const scaled = (st: SignalState, v: number | null) => (v === null ? null : v * st.signal.scale);
/** A raw value of a series in its family's unit, for wording. */
export const val = (st: SignalState, v: number | null) => formatValue(scaled(st, v), st.signal.unit);
const label = (f: string) => familyLabel(f);
const pct = (r: number) => `${Math.round(r * 100)}%`;

const unknown = (family: string | null, line: string): ConditionResult => ({ result: 'unknown', line, magnitude: 0, at: null, family });
const fails = (family: string | null, line: string): ConditionResult => ({ result: 'fails', line, magnitude: 0, at: null, family });
const holds = (family: string | null, line: string, magnitude: number, at: number | null): ConditionResult => ({ result: 'holds', line, magnitude: Math.max(0, Math.min(1, magnitude)), at, family });

/** A series that left zero has no ratio: its size is unknown, so it ranks as a clear but not a huge change. */
const FROM_ZERO_MAGNITUDE = 0.6;
/** Magnitude of a change factor: log-scaled so 2x ≈ 0.3, 10x ≈ 0.6, 100x and more ≈ 1. */
export const factorMagnitude = (f: number) => (Number.isFinite(f) ? Math.min(1, Math.log10(Math.max(1, f)) / 2 + (f >= 1.5 ? 0.1 : 0)) : FROM_ZERO_MAGNITUDE);

const notMeasured = (family: string) => unknown(family, `no ${label(family)} data for this target in the window`);

/** A level this many times worse than in the hour before the window is a condition that grew. */
const WORSENED = 2;
const round2 = (n: number) => Math.round(n * 10) / 10;

/** When a state began: the window start when it was already there, else its shift or peak time. */
function onsetOf(st: SignalState, ctx: EvidenceContext): number | null {
  if (st.elevatedAtStart) return ctx.window?.from ?? null;
  return st.signal.shiftAt ?? st.signal.maxAt;
}

const usualText = (st: SignalState) => (st.usualFrom === 'prior_hour' ? 'its level in the hour before the window' : 'its usual level');

/**
 * The bound a limit family sets for a series: its largest series in the same unit (free bytes are
 * set against capacity in bytes, never an inode count), else the setting of that name.
 */
function limitOf(ctx: EvidenceContext, family: string, of: SignalState): { value: number; text: (v: number) => string } | null {
  const st = largest(ctx, family, of.signal.unit);
  const bound = st ? (st.signal.last ?? st.signal.max) : null;
  if (st && bound !== null && bound > 0) return { value: (bound * st.signal.scale) / of.signal.scale, text: (v) => val(of, v) };
  const setting = ctx.settings.get(family);
  return setting !== undefined && setting > 0 ? { value: setting, text: (v) => formatValue(v, 'count') } : null;
}

/** The series a level against a bound is read from: the worst in the family's own unit, else the worst. */
const boundedSeries = (ctx: EvidenceContext, family: string) => worstInUnit(ctx, family) ?? worst(ctx, family);

function atLimit(c: Extract<Condition, { kind: 'atLimit' }>, ctx: EvidenceContext): ConditionResult {
  const st = boundedSeries(ctx, c.family);
  if (!st) return notMeasured(c.family);
  const limit = limitOf(ctx, c.limit, st);
  if (!limit) return unknown(c.family, `${label(c.limit)} is not measured, so ${label(c.family)} cannot be set against it`);
  const peak = st.signal.max;
  if (peak === null) return notMeasured(c.family);
  const ratio = peak / limit.value;
  if (ratio > BEYOND_BOUND) return unknown(c.family, `${label(c.family)} (${val(st, peak)}) exceeds the ${label(c.limit)} read (${limit.text(limit.value)}): the two series are not of the same resource`);
  const startRatio = st.start !== null ? st.start / limit.value : 0;
  if (ratio < c.ratio) return fails(c.family, `${label(c.family)} peaked at ${val(st, peak)}, ${pct(ratio)} of the ${label(c.limit)} of ${limit.text(limit.value)}`);
  const already = startRatio >= c.ratio;
  const line = already
    ? `${label(c.family)} was already at ${val(st, st.start)} (${pct(startRatio)} of the ${label(c.limit)} of ${limit.text(limit.value)}) when the window began and peaked at ${val(st, peak)}`
    : `${label(c.family)} reached ${val(st, peak)} at ${clock(st.signal.maxAt)}, ${pct(ratio)} of the ${label(c.limit)} of ${limit.text(limit.value)}`;
  const chronic = st.signal.priorMedian !== null && st.signal.priorMedian / limit.value >= c.ratio;
  const text = chronic ? `${line}; it was as high in the hour before the window (${val(st, st.signal.priorMedian)}), a standing condition` : line;
  return { ...holds(c.family, text, 0.85 + 0.15 * Math.min(1, ratio), already ? (ctx.window?.from ?? null) : (st.signal.shiftAt ?? st.signal.maxAt)), chronic };
}

/**
 * Why a level threshold was not reached, with the extreme that came closest: "held 40 %" alone
 * hides a peak of 74 % that came and went, which is what a reader checks first.
 */
function levelMissed(c: Extract<Condition, { kind: 'level' }>, st: SignalState, v: number): string {
  const bound = c.atLeast !== undefined && v < c.atLeast ? `below the ${formatValue(c.atLeast, st.signal.unit)} that would matter` : `above the ${formatValue(c.atMost ?? 0, st.signal.unit)} that would matter`;
  const name = `${label(c.family)} (${st.signal.metric})`;
  if (c.over === 'peak') return `${name} peaked at ${formatValue(v, st.signal.unit)} at ${clock(st.signal.maxAt)}, ${bound}`;
  if (c.over === 'low') return `${name} fell only to ${formatValue(v, st.signal.unit)}, ${bound}`;
  const peak = scaled(st, st.signal.max);
  const extreme = peak !== null && peak !== v && c.atLeast !== undefined ? ` and peaked at ${formatValue(peak, st.signal.unit)} at ${clock(st.signal.maxAt)}` : '';
  return `${name} held ${formatValue(v, st.signal.unit)} over the second half of the window${extreme}, ${bound}`;
}

function level(c: Extract<Condition, { kind: 'level' }>, ctx: EvidenceContext): ConditionResult {
  // A threshold is in the family's unit: a load average or a context-switch rate is no CPU percentage.
  const st = c.unit ? worstInUnit(ctx, c.family, c.unit) : worstInUnit(ctx, c.family);
  if (!st) return worst(ctx, c.family) ? unknown(c.family, `no ${label(c.family)} series in ${c.unit ?? "the family's own unit"}, so its level cannot be set against a threshold`) : notMeasured(c.family);
  const raw = c.over === 'peak' ? st.signal.max : c.over === 'low' ? st.signal.min : st.sustained;
  const v = scaled(st, raw);
  if (v === null) return notMeasured(c.family);
  const okLow = c.atLeast === undefined || v >= c.atLeast;
  const okHigh = c.atMost === undefined || v <= c.atMost;
  const what = c.over === 'sustained' ? 'held' : c.over === 'low' ? 'fell to' : 'peaked at';
  const text = `${label(c.family)} (${st.signal.metric}) ${what} ${formatValue(v, st.signal.unit)}`;
  if (!(okLow && okHigh)) return fails(c.family, levelMissed(c, st, v));
  const from = st.start !== null && (c.atLeast === undefined || (scaled(st, st.start) ?? -Infinity) >= c.atLeast) && (c.atMost === undefined || (scaled(st, st.start) ?? Infinity) <= c.atMost);
  const prior = scaled(st, st.signal.priorMedian);
  const bad = c.atLeast !== undefined || c.atMost === undefined ? 'up' : 'down';
  // Already bad before the window but twice as bad now is an incident that grew, not a standing condition.
  const worsened = prior !== null && prior !== 0 && (bad === 'up' ? v >= WORSENED * prior : v <= prior / WORSENED);
  const wasBad = prior !== null && c.over !== 'peak' && (c.atLeast === undefined || prior >= c.atLeast) && (c.atMost === undefined || prior <= c.atMost);
  const chronic = wasBad && !worsened;
  const standing = !wasBad || prior === null ? '' : chronic ? `; it was at ${formatValue(prior, st.signal.unit)} in the hour before the window too, a standing condition` : `; it was already at ${formatValue(prior, st.signal.unit)} in the hour before the window and got ${round2(bad === 'up' ? v / prior : prior / v)}x worse`;
  return { ...holds(c.family, `${text}${from ? ' from the start of the window' : ''}${c.over === 'sustained' ? ' over the second half of the window' : ''}${standing}`, 0.9, from ? (ctx.window?.from ?? null) : onsetOf(st, ctx)), chronic };
}

function nearEmpty(c: Extract<Condition, { kind: 'nearEmpty' }>, ctx: EvidenceContext): ConditionResult {
  const st = boundedSeries(ctx, c.family);
  if (!st) return notMeasured(c.family);
  const low = st.signal.min;
  if (low === null) return notMeasured(c.family);
  const cap = c.capacity ? limitOf(ctx, c.capacity, st) : null;
  if (cap && low > cap.value * BEYOND_BOUND) return unknown(c.family, `${label(c.family)} (${val(st, low)}) exceeds the ${label(c.capacity ?? c.family)} read (${cap.text(cap.value)}): the two series are not of the same resource`);
  const reference = cap?.value ?? st.usual ?? st.signal.first;
  if (reference === null || reference <= 0) return unknown(c.family, `no capacity or usual level to set ${label(c.family)} against`);
  const share = low / reference;
  const of = cap ? `of the ${label(c.capacity ?? c.family)} of ${cap.text(cap.value)}` : `of ${usualText(st)} of ${val(st, reference)}`;
  if (share <= c.ratio) return holds(c.family, `${label(c.family)} fell to ${val(st, low)} (${pct(share)} ${of}) at ${clock(st.signal.shiftAt)}`, 1, onsetOf(st, ctx));
  const hours = c.withinHours !== undefined && st.rampPerHour !== null && st.rampPerHour < 0 ? hoursToBound(st, 0) : null;
  if (hours !== null && c.withinHours !== undefined && hours <= c.withinHours) {
    return holds(c.family, `${label(c.family)} is falling by ${val(st, -st.rampPerHour! )} per hour to ${val(st, st.end)}: at this rate it runs out in about ${hours < 1 ? `${Math.max(1, Math.round(hours * 60))} minutes` : `${Math.round(hours * 10) / 10} hours`}`, 0.8, st.signal.shiftAt);
  }
  return fails(c.family, `${label(c.family)} stayed at ${val(st, low)} or more (${pct(share)} ${of})`);
}

type Floored = { family: string; atLeast?: number; unit?: string };

/**
 * The series a change condition reads. With a floor, those in the floor's unit. Without one, the
 * worst series and the family's primary metric (row lock waits that rose are not hidden behind a
 * lock-timeout counter that stayed put); any other series of the family does not stand in for it.
 */
function seriesFor(c: Floored, ctx: EvidenceContext): SignalState[] | ConditionResult {
  const all = ctx.byFamily.get(c.family) ?? [];
  if (all.length === 0) return notMeasured(c.family);
  const own = isMetricFamilyId(c.family) ? metricFamily(c.family).unit : 'unknown';
  if (c.atLeast !== undefined) {
    const unit = c.unit ?? own;
    const inUnit = all.filter((st) => st.signal.unit === unit);
    return inUnit.length > 0 ? inUnit : unknown(c.family, `no ${label(c.family)} series in ${unit}, so the size of its change cannot be judged`);
  }
  return all.filter((st, i) => i === 0 || classifyMetric(st.signal.metric).primary);
}

/** A change whose extreme stays under the condition's floor: too small to matter, whatever its ratio. */
function underFloor(c: Floored, st: SignalState, extreme: number | null): ConditionResult | null {
  if (c.atLeast === undefined || extreme === null || extreme * st.signal.scale >= c.atLeast) return null;
  return fails(c.family, `${label(c.family)} (${st.signal.metric}) reached only ${val(st, extreme)}, below the ${formatValue(c.atLeast, st.signal.unit)} that would matter`);
}

/** The largest holding result over the series, else the first series' own result. */
function bestOf(results: readonly ConditionResult[]): ConditionResult {
  const held = results.filter((r) => r.result === 'holds').sort((a, b) => b.magnitude - a.magnitude);
  return held[0] ?? results[0];
}

function change(c: Extract<Condition, { kind: 'rise' | 'fall' }>, ctx: EvidenceContext): ConditionResult {
  const series = seriesFor(c, ctx);
  if (!Array.isArray(series)) return series;
  return bestOf(series.map((st) => changeOf(c, st, ctx)));
}

function changeOf(c: Extract<Condition, { kind: 'rise' | 'fall' }>, st: SignalState, ctx: EvidenceContext): ConditionResult {
  const dir = c.kind === 'rise' ? 'up' : 'down';
  const factor = changeFactor(st, dir);
  if (factor === null) return notMeasured(c.family);
  const extreme = extremeOf(st, dir);
  const times = Number.isFinite(factor) ? `${factor >= 10 ? Math.round(factor) : Math.round(factor * 10) / 10}x` : 'from zero';
  const line = `${label(c.family)} (${st.signal.metric}) ${dir === 'up' ? 'rose' : 'fell'} from ${usualText(st)} of ${val(st, st.usual)} to ${val(st, extreme)} (${times})${st.signal.shiftAt ? ` from ${clock(st.signal.shiftAt)}` : ''}`;
  // A plain statistical wobble is not a change: the providers' shift test must agree, or the move must be large.
  const real = deviatesBadly(st.signal) || st.elevatedAtStart || factor >= 2 * c.factor || st.shape === 'ramp';
  // A count that moved by one or two (threads running 1 → 2) is no change, whatever its ratio.
  const tiny = st.signal.unit === 'count' && st.usual !== null && extreme !== null && Math.abs(extreme - st.usual) * st.signal.scale < MIN_COUNT_CHANGE;
  if (factor < c.factor || !real || tiny) return fails(c.family, `${label(c.family)} stayed near ${usualText(st)} of ${val(st, st.usual)} (at most ${val(st, extreme)})`);
  const small = dir === 'up' ? underFloor(c, st, extreme) : null;
  if (small) return small;
  const back = recovered(st.signal) ? `, and was back to ${val(st, st.signal.last)} by the end of the window` : '';
  return holds(c.family, `${line}${back}`, factorMagnitude(factor), onsetOf(st, ctx));
}

function ramp(c: Extract<Condition, { kind: 'ramp' }>, ctx: EvidenceContext): ConditionResult {
  const series = seriesFor(c, ctx);
  if (!Array.isArray(series)) return series;
  return bestOf(series.map((st) => rampOf(c, st, ctx)));
}

function rampOf(c: Extract<Condition, { kind: 'ramp' }>, st: SignalState, ctx: EvidenceContext): ConditionResult {
  if (st.shape === 'unknown') return unknown(c.family, `the trend of ${label(c.family)} is not available (no series shape)`);
  const slope = st.rampPerHour;
  if (st.shape !== 'ramp' || slope === null || (c.direction === 'up' ? slope <= 0 : slope >= 0)) return fails(c.family, `${label(c.family)} shows no steady ${c.direction === 'up' ? 'rise' : 'fall'} over the window (${st.shape})`);
  const small = c.direction === 'up' ? underFloor(c, st, st.signal.max) : null;
  if (small) return small;
  const rel = st.usual ? Math.abs(slope / st.usual) : 1;
  return holds(c.family, `${label(c.family)} ${c.direction === 'up' ? 'climbed' : 'declined'} steadily by ${val(st, Math.abs(slope))} per hour, from ${val(st, st.start)} to ${val(st, st.end)}`, Math.min(1, 0.4 + rel), st.signal.shiftAt ?? ctx.window?.from ?? null);
}

function steady(c: Extract<Condition, { kind: 'steady' }>, ctx: EvidenceContext): ConditionResult {
  const st = worst(ctx, c.family);
  if (!st) return notMeasured(c.family);
  if ((st.signal.max ?? 0) === 0 && (st.signal.min ?? 0) === 0) {
    // Zero throughout: a symptom that is bad when it rises (slow queries, errors) never showed, which
    // is a reading; an activity (a query rate) at zero has nothing that could have stayed level.
    return st.signal.badDirection === 'up'
      ? holds(c.family, `${label(c.family)} (${st.signal.metric}) stayed at zero throughout the window`, 0.5, null)
      : unknown(c.family, `${label(c.family)} (${st.signal.metric}) was zero throughout: no activity to compare`);
  }
  const up = changeFactor(st, 'up');
  const down = changeFactor(st, 'down');
  if (up === null || down === null) return notMeasured(c.family);
  const moved = Math.max(up, down) - 1;
  const basis = st.sustained !== null && st.usual ? Math.abs(st.sustained / st.usual - 1) : moved;
  return basis <= c.within
    ? holds(c.family, `${label(c.family)} stayed near ${usualText(st)} of ${val(st, st.usual)} (within ${pct(basis)})`, 0.5, null)
    : fails(c.family, `${label(c.family)} moved from ${val(st, st.usual)} to ${val(st, st.sustained)}`);
}

function outpaces(c: Extract<Condition, { kind: 'outpaces' }>, ctx: EvidenceContext): ConditionResult {
  const a = worst(ctx, c.family);
  const b = worst(ctx, c.other);
  if (!a) return notMeasured(c.family);
  if (!b) return notMeasured(c.other);
  const fa = changeFactor(a, 'up');
  const fb = changeFactor(b, 'up');
  if (fa === null || fb === null) return unknown(c.family, `no usual level for ${label(c.family)} or ${label(c.other)}`);
  const ratio = fb > 0 ? fa / Math.max(fb, 1) : fa;
  const text = `${label(c.family)} grew ${Number.isFinite(fa) ? `${Math.round(fa * 10) / 10}x` : 'from zero'} while ${label(c.other)} grew ${Math.round(fb * 10) / 10}x`;
  return ratio >= c.factor ? holds(c.family, text, factorMagnitude(ratio), a.signal.shiftAt) : fails(c.family, text);
}

/** Two steady rises that start this close together started together. */
const TOGETHER_MS = 10 * 60_000;

function tracks(c: Extract<Condition, { kind: 'tracks' }>, ctx: EvidenceContext): ConditionResult {
  const a = worst(ctx, c.family);
  const b = worst(ctx, c.other);
  if (!a) return notMeasured(c.family);
  if (!b) return notMeasured(c.other);
  if (a.signal.unit !== b.signal.unit) return unknown(c.family, `${label(c.family)} and ${label(c.other)} are not in one unit, so their rates cannot be compared`);
  const sa = a.shape === 'ramp' && a.rampPerHour !== null ? a.rampPerHour * a.signal.scale : null;
  const sb = b.shape === 'ramp' && b.rampPerHour !== null ? b.rampPerHour * b.signal.scale : null;
  if (sa === null || sb === null || sa <= 0 || sb <= 0) return fails(c.family, `${label(c.family)} and ${label(c.other)} did not climb steadily together`);
  const ratio = Math.max(sa, sb) / Math.min(sa, sb);
  const ta = onsetOf(a, ctx);
  const tb = onsetOf(b, ctx);
  const together = ta === null || tb === null || Math.abs(ta - tb) <= TOGETHER_MS;
  const since = ta === null || tb === null ? '' : clock(ta) === clock(tb) ? `, both from ${clock(ta)}` : `, from ${clock(ta)} and ${clock(tb)}`;
  const text = `${label(c.family)} grew by ${val(a, a.rampPerHour)} per hour while ${label(c.other)} grew by ${val(b, b.rampPerHour)} per hour${since}`;
  return ratio <= c.within && together ? holds(c.family, `${text}: they grew in step`, 0.9, ta !== null && tb !== null ? Math.min(ta, tb) : (ta ?? tb)) : fails(c.family, text);
}

function before(c: Extract<Condition, { kind: 'before' }>, ctx: EvidenceContext): ConditionResult {
  const a = worst(ctx, c.first);
  const b = worst(ctx, c.then);
  if (!a || !b) return notMeasured(!a ? c.first : c.then);
  const ta = onsetOf(a, ctx);
  const tb = onsetOf(b, ctx);
  if (!deviatesBadly(a.signal) && !a.elevatedAtStart) return fails(c.first, `${label(c.first)} did not move`);
  if (ta === null || tb === null) return unknown(c.first, `no onset time for ${label(c.first)} or ${label(c.then)}`);
  const text = `${label(c.first)} changed at ${clock(ta)}, ${label(c.then)} at ${clock(tb)}`;
  return ta <= tb + 60_000 ? holds(c.first, text, 0.5, ta) : fails(c.first, text);
}

function skew(c: Extract<Condition, { kind: 'skew' }>, ctx: EvidenceContext): ConditionResult {
  const states = ctx.byFamily.get(c.family) ?? [];
  if (states.length < 2) return states.length === 0 ? notMeasured(c.family) : unknown(c.family, `only one ${label(c.family)} series, so no spread across nodes`);
  const [a, b] = states;
  const ratio = a.signal.max !== null && b.signal.max !== null && b.signal.max > 0 ? a.signal.max / b.signal.max : null;
  if (ratio === null) return unknown(c.family, `no peak to compare across ${label(c.family)} series`);
  const text = `${label(c.family)} of ${a.signal.subject} peaked at ${val(a, a.signal.max)}, ${Math.round(ratio * 10) / 10}x the next (${b.signal.subject})`;
  return ratio >= c.atLeast ? holds(c.family, text, factorMagnitude(ratio), a.signal.maxAt) : fails(c.family, text);
}

function eventOrLog(c: Extract<Condition, { kind: 'event' | 'log' }>, ctx: EvidenceContext): ConditionResult {
  const kinds = c.kind === 'event' ? c.events : [];
  const patterns = c.patterns;
  const ev = ctx.events.find((e) => kinds.includes(e.kind as (typeof kinds)[number]));
  if (ev) return { ...holds(null, `${ev.kind.replace(/_/g, ' ')} at ${clock(ev.at)} (${ev.text})`, 0.8, ev.at), lastAt: ev.at };
  const log = patterns.map((p) => [p, ctx.logPatterns.get(p)] as const).find(([, v]) => v !== undefined);
  if (log && log[1]) {
    const text = `the database log shows ${log[1].count} line${log[1].count === 1 ? '' : 's'} of ${logPatternWords(log[0])} from ${clock(log[1].at)}`;
    const floor = c.kind === 'log' ? (c.atLeast ?? 1) : 1;
    if (log[1].count < floor) return fails(null, `${text}, fewer than the ${floor} that would stand out from background noise`);
    // A restart or promotion the uptime metrics were measured for and do not show stands only with them.
    const unseen = kinds.some((k) => ctx.eventCoverage.has(k)) && !ctx.events.some((e) => kinds.includes(e.kind as (typeof kinds)[number]));
    const found = unseen ? { ...holds(null, `${text}; the uptime and role metrics show no such event in the window`, 0.5, log[1].at), chronic: true } : holds(null, text, 0.75, log[1].at);
    return { ...found, lastAt: log[1].last };
  }
  const eventsRead = kinds.length > 0 && ctx.read.events;
  const logsRead = patterns.length > 0 && ctx.read.logs;
  if (eventsRead || logsRead) return fails(null, `no ${[...kinds, ...patterns].map((k) => k.replace(/_/g, ' ')).join(' or ')} ${logsRead ? 'line in the database log' : 'event'} in the window`);
  const missing = patterns.length > 0 ? (ctx.notConfigured.has('logs') ? 'the database log is not configured for this target' : 'the database log was not read') : 'no event source covers this target';
  return unknown(null, missing);
}

function statement(c: Extract<Condition, { kind: 'statement' }>, ctx: EvidenceContext): ConditionResult {
  const lead = ctx.leadStatement;
  if (!lead) return unknown(null, ctx.notConfigured.has('statements') ? 'statement statistics are not configured for this target' : 'no statement statistics were read');
  if (lead.share === null) return unknown(null, `the statement statistics give no share of time for ${lead.ref}`);
  const kind = typeof lead.attrs['statementType'] === 'string' ? lead.attrs['statementType'] : 'OTHER';
  const text = `statement ${lead.ref} (${kind}) takes ${Math.round(lead.share)}% of the statement time`;
  if (lead.share < c.atLeast) return fails(null, text);
  // The load's own statement leads whatever the cause; only one of the mode's kinds names it.
  if (c.types && !(c.types as readonly string[]).includes(kind)) return fails(null, `${text}, but it is ${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}, not ${c.types.join(' or ')}`);
  if (c.rowsPerCall === undefined) return holds(null, text, lead.share / 100, null);
  const perCall = typeof lead.attrs['rowsPerCall'] === 'number' ? lead.attrs['rowsPerCall'] : null;
  if (perCall === null) return unknown(null, `${text}; the statistics give no rows per call`);
  const rows = `${text}, ${perCall >= 100 ? Math.round(perCall) : perCall} rows per call`;
  return perCall >= c.rowsPerCall ? holds(null, rows, lead.share / 100, null) : fails(null, `${rows} (not a bulk statement)`);
}

function count(c: Extract<Condition, { kind: 'count' }>, ctx: EvidenceContext): ConditionResult {
  const got = ctx.counts.get(c.family);
  if (got === undefined) return unknown(c.family, `no session or statement statistics of ${label(c.family)}`);
  const v = got.value;
  if (!got.cumulative) {
    const text = `${v} ${label(c.family)} in the session statistics when they were read`;
    return v >= c.atLeast ? holds(c.family, text, 0.7, null) : fails(c.family, text);
  }
  // A total since start rules out (none ever) but cannot place what it counts in the window.
  const text = `${v} ${label(c.family)} counted since the server started or its statistics were reset`;
  return v >= c.atLeast ? unknown(c.family, `${text}; the total does not say whether any fell in the window`) : fails(c.family, text);
}

function named(c: Extract<Condition, { kind: 'named' }>, ctx: EvidenceContext): ConditionResult {
  const states = ctx.byFamily.get(c.family) ?? [];
  if (states.length === 0) return notMeasured(c.family);
  const re = new RegExp(c.pattern, 'i');
  const hit = states.find((st) => re.test(st.signal.metric));
  return hit ? holds(c.family, `${label(c.family)} is measured by ${hit.signal.metric}`, 0.3, null) : fails(c.family, `no ${label(c.family)} series is of that kind`);
}

function quiet(ctx: EvidenceContext): ConditionResult {
  const states = [...ctx.byFamily.values()].flat();
  if (states.length === 0 || !states.some((st) => st.signal.score !== null)) return unknown(null, 'no series could be set against its usual level');
  const moved = states.filter((st) => deviatesBadly(st.signal) || st.elevatedAtStart);
  if (moved.length > 0) return fails(moved[0].signal.family, `${label(moved[0].signal.family)} left its usual level`);
  const shown = states.slice(0, 4).map((st) => `${label(st.signal.family)} stayed between ${val(st, st.signal.min)} and ${val(st, st.signal.max)}`);
  return holds(null, shown.join('; '), 0.6, null);
}

/**
 * States that name their mechanism outright: a log line or event, a configured limit reached, a
 * volume run out, a statement or session count. A level over a threshold (CPU at 90 %) is a
 * state too, but as often the effect of another cause as a cause of its own.
 */
const NAMING_KINDS: ReadonlySet<Condition['kind']> = new Set(['atLimit', 'nearEmpty', 'event', 'log', 'statement', 'count', 'tracks']);

export function evaluateCondition(c: Condition, ctx: EvidenceContext): ConditionResult {
  const r = evaluate(c, ctx);
  return STATE_KINDS.has(c.kind) ? { ...r, state: true, ...(NAMING_KINDS.has(c.kind) ? { names: true } : {}) } : r;
}

function evaluate(c: Condition, ctx: EvidenceContext): ConditionResult {
  switch (c.kind) {
    case 'atLimit':
      return atLimit(c, ctx);
    case 'level':
      return level(c, ctx);
    case 'nearEmpty':
      return nearEmpty(c, ctx);
    case 'rise':
    case 'fall':
      return change(c, ctx);
    case 'deviates': {
      const st = worst(ctx, c.family);
      if (!st) return notMeasured(c.family);
      const hit = (ctx.byFamily.get(c.family) ?? []).find((s) => deviatesBadly(s.signal));
      return hit ? change({ kind: hit.signal.direction === 'down' ? 'fall' : 'rise', family: c.family, factor: 1 }, { ...ctx, byFamily: new Map([[c.family, [hit]]]) }) : fails(c.family, `${label(c.family)} stayed near ${usualText(st)} of ${val(st, st.usual)}`);
    }
    case 'ramp':
      return ramp(c, ctx);
    case 'steady':
      return steady(c, ctx);
    case 'outpaces':
      return outpaces(c, ctx);
    case 'before':
      return before(c, ctx);
    case 'tracks':
      return tracks(c, ctx);
    case 'skew':
      return skew(c, ctx);
    case 'event':
    case 'log':
      return eventOrLog(c, ctx);
    case 'statement':
      return statement(c, ctx);
    case 'count':
      return count(c, ctx);
    case 'named':
      return named(c, ctx);
    case 'quiet':
      return quiet(ctx);
  }
}
