import { familyLabel } from '@aoc/metric-ontology';
import { clock, deviatesBadly } from '../family-rules';
import { val } from './conditions';
import { worst, type EvidenceContext } from './evidence-context';
import type { Hypothesis } from './evaluate-modes';
import { changeFactor, type SignalState } from './signal-state';

/**
 * The observations under a confirmed mode: one line per family that bears on it (what decided it,
 * the symptom the ticket asks about, the other families the mode reads that moved), each saying
 * where the series usually is, what it did in the window and where it ended, with units and UTC
 * times. A family appears once, whatever number of series or queries measured it; a series that
 * neither moved nor bears on the mode (an uptime counting up) is left out.
 */
const MAX_OBSERVATIONS = 4;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Where the series usually is, and where that comes from. */
function usualPart(st: SignalState): string | null {
  if (st.usual === null) return null;
  return `usually ${val(st, st.usual)}${st.usualFrom === 'prior_hour' ? ' (the hour before the window)' : ''}`;
}

/** Seconds since 1970 past September 2001: a series this large in seconds is a clock (a start or boot time), not a level. */
const UNIX_TIME_FLOOR = 1e9;

/** A start or boot time: its change is an event (a restart), reported as such, never as a level. */
function isClock(st: SignalState): boolean {
  return st.signal.unit === 'seconds' && (st.signal.min ?? 0) * st.signal.scale >= UNIX_TIME_FLOOR;
}

/** Away from the usual level when the window began by at least a quarter of the way to its extreme: worth saying. */
function startedAway(st: SignalState, extreme: number | null): boolean {
  if (!st.elevatedAtStart || st.start === null || st.usual === null || extreme === null) return false;
  const span = Math.abs(extreme - st.usual);
  return span > 0 && Math.abs(st.start - st.usual) >= 0.25 * span;
}

/** What the series did inside the window, by the shape of its excursion, in the direction it went. */
function movePart(st: SignalState): string {
  const falling = st.sustained !== null && st.usual !== null && st.sustained !== st.usual ? st.sustained < st.usual : st.signal.badDirection === 'down';
  const extreme = falling ? st.low : st.high;
  const at = falling ? '' : ` at ${clock(st.signal.maxAt)}`;
  const start = startedAway(st, extreme) ? `already at ${val(st, st.start)} when the window began, ` : '';
  switch (st.shape) {
    case 'flat':
      return st.low === st.high ? `${start}held ${val(st, st.low)} throughout the window` : `${start}stayed between ${val(st, st.low)} and ${val(st, st.high)}`;
    case 'ramp':
      return `${start}${(st.rampPerHour ?? 0) >= 0 ? 'climbed' : 'fell'} steadily by ${val(st, Math.abs(st.rampPerHour ?? 0))} per hour`;
    case 'spike':
      return `${start}spiked to ${val(st, extreme)}${at} and came back`;
    case 'oscillation':
      return `${start}swung between ${val(st, st.low)} and ${val(st, st.high)}`;
    case 'step':
      return `${start}${falling ? 'dropped' : 'rose'} to ${val(st, st.sustained)}${st.signal.shiftAt !== null ? ` from about ${clock(st.signal.shiftAt)}` : ''}${extreme !== st.sustained ? ` (${falling ? 'lowest' : 'peak'} ${val(st, extreme)}${at})` : ''}`;
    default:
      return `${start}${falling ? 'lowest' : 'peak'} ${val(st, extreme)}${at}`;
  }
}

export function familyObservation(st: SignalState): string {
  const parts = [usualPart(st), movePart(st), st.end !== null && st.shape !== 'flat' ? `${val(st, st.end)} at the end of the window` : null].filter((p): p is string => p !== null);
  return `${capital(familyLabel(st.signal.family))} (${st.signal.metric}): ${parts.join('; ')}.`;
}

/** A family that left its usual level in its bad direction, or was already away from it when the window began. */
function moved(st: SignalState): boolean {
  return st.elevatedAtStart || deviatesBadly(st.signal);
}

/** How far the series went from its usual level, either way (1 = not at all). */
function reach(st: SignalState): number {
  const f = Math.max(changeFactor(st, 'up') ?? 1, changeFactor(st, 'down') ?? 1);
  return Number.isFinite(f) ? f : Number.MAX_SAFE_INTEGER;
}

/**
 * The families bearing on the lead, most telling first: those that moved (what decided it, what
 * came back, the symptom, what else the mode reads), the largest move first; then the steady ones
 * that decided it or that the ticket asks about ("latency stayed at 10 ms" answers the ticket).
 */
function bearingFamilies(lead: Hypothesis, ctx: EvidenceContext, asked: readonly string[]): SignalState[] {
  const reads = [...lead.mode.evidence.families, ...lead.mode.symptoms] as string[];
  const candidates = [...new Set([...lead.families, ...lead.recoveredFamilies, ...asked, ...reads])]
    .map((f) => worst(ctx, f))
    .filter((st): st is SignalState => st !== null && !isClock(st));
  const changed = candidates.filter(moved).sort((a, b) => Number(!lead.families.includes(a.signal.family)) - Number(!lead.families.includes(b.signal.family)) || reach(b) - reach(a));
  const steady = candidates.filter((st) => !moved(st) && (lead.families.includes(st.signal.family) || asked.includes(st.signal.family)));
  // Then whatever else moved, largest first: an engineer reports CPU that followed a connection
  // pile-up too, whether or not the mode reads it.
  const shown = new Set(candidates.map((st) => st.signal.family));
  const others = [...ctx.byFamily.values()]
    .map((states) => states[0])
    .filter((st): st is SignalState => st !== undefined && !shown.has(st.signal.family) && !isClock(st) && moved(st))
    .sort((a, b) => reach(b) - reach(a));
  return [...changed, ...steady, ...others];
}

export function leadObservations(lead: Hypothesis, ctx: EvidenceContext, asked: readonly string[]): string[] {
  return bearingFamilies(lead, ctx, asked).slice(0, MAX_OBSERVATIONS).map(familyObservation);
}
