import type { FamilySignal } from '../family-rules';

/**
 * The state of one series over the window, not only its change: where it usually is (the hour
 * before the window when the provider sent it, else the window's first half), whether it was
 * already away from there when the window began, its trend (a ramp and its slope) and the shape
 * of its excursion (step, spike, oscillation). Values stay in the series' raw unit; `scale`
 * turns them into the family's unit for wording.
 */
export type ChangeShape = 'flat' | 'step' | 'spike' | 'ramp' | 'oscillation' | 'unknown';

export interface SignalState {
  signal: FamilySignal;
  /** The usual level the change is measured against, and where it came from. */
  usual: number | null;
  usualFrom: 'prior_hour' | 'window_start' | null;
  /** The level at the start and the end of the window (first and last bucket, else first and last sample). */
  start: number | null;
  end: number | null;
  /** The level held over the second half of the window (median of its buckets, else the recent median). */
  sustained: number | null;
  shape: ChangeShape;
  /** Change per hour (raw unit) when the series trends steadily, else null. */
  rampPerHour: number | null;
  /** Already away from the usual level when the window began (needs the prior hour). */
  elevatedAtStart: boolean;
  /** The highest and lowest 5-minute level (bucket means; the raw extremes without a shape): one odd sample is not a change. */
  high: number | null;
  low: number | null;
}

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const present = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => x !== null);

/** A steady trend: the fit explains most of the variance and the series moved by a real share of its level. */
const RAMP_R2 = 0.75;
const RAMP_MIN_SHARE = 0.15;

function classifyShape(buckets: readonly number[], s: FamilySignal): { shape: ChangeShape; rampPerHour: number | null } {
  const lo = Math.min(...buckets);
  const hi = Math.max(...buckets);
  const level = Math.max(Math.abs(lo), Math.abs(hi));
  if (level === 0 || (hi - lo) / level < 0.1) return { shape: 'flat', rampPerHour: null };
  const r2 = s.trendR2;
  const slope = s.slopePerHour;
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const moved = Math.abs(last - first) / level;
  if (slope !== null && r2 !== null && r2 >= RAMP_R2 && moved >= RAMP_MIN_SHARE) return { shape: 'ramp', rampPerHour: slope };
  // Without a fit: monotone buckets that end at the extreme are a ramp too.
  const diffs = buckets.slice(1).map((b, i) => b - buckets[i]);
  const rising = diffs.filter((d) => d > 0).length;
  const falling = diffs.filter((d) => d < 0).length;
  if (slope === null && moved >= RAMP_MIN_SHARE && (rising >= diffs.length - 1 || falling >= diffs.length - 1)) {
    return { shape: 'ramp', rampPerHour: ((last - first) / Math.max(1, buckets.length - 1)) * buckets.length };
  }
  const signChanges = diffs.slice(1).filter((d, i) => Math.sign(d) !== 0 && Math.sign(diffs[i]) !== 0 && Math.sign(d) !== Math.sign(diffs[i])).length;
  const mid = (lo + hi) / 2;
  const highBuckets = buckets.filter((b) => b > mid).length;
  if (signChanges >= 6) return { shape: 'oscillation', rampPerHour: null };
  if (highBuckets <= 2 && buckets[buckets.length - 1] <= mid) return { shape: 'spike', rampPerHour: null };
  return { shape: 'step', rampPerHour: null };
}

export function signalState(s: FamilySignal): SignalState {
  const buckets = s.shape ? present(s.shape) : [];
  const usable = buckets.length >= 4;
  const start = usable ? buckets[0] : s.first;
  const end = usable ? buckets[buckets.length - 1] : s.last;
  const sustained = usable ? median(buckets.slice(Math.floor(buckets.length / 2))) : s.recent;
  const usual = s.priorMedian ?? s.baseline ?? s.first;
  const usualFrom = s.priorMedian !== null ? 'prior_hour' : usual !== null ? 'window_start' : null;
  const { shape, rampPerHour } = usable ? classifyShape(buckets, s) : { shape: 'unknown' as const, rampPerHour: null };
  let elevatedAtStart = false;
  if (s.priorMedian !== null && start !== null) {
    const gap = Math.abs(start - s.priorMedian);
    elevatedAtStart = gap > 0.25 * Math.max(Math.abs(s.priorMedian), 1e-9) && (s.badDirection === 'both' || (s.badDirection === 'up' ? start > s.priorMedian : start < s.priorMedian));
  }
  const high = usable ? Math.max(...buckets) : s.max;
  const low = usable ? Math.min(...buckets) : s.min;
  return { signal: s, usual, usualFrom, start, end, sustained, shape, rampPerHour, elevatedAtStart, high, low };
}

/** The extreme level in a direction (the highest 5-minute level going up, the lowest going down). */
export function extremeOf(st: SignalState, direction: 'up' | 'down'): number | null {
  return direction === 'up' ? st.high : st.low;
}

/**
 * Change factor against the usual level in a direction: peak / usual going up, usual / low going
 * down. A series that left zero counts as an unbounded change when its extreme is not zero.
 */
export function changeFactor(st: SignalState, direction: 'up' | 'down'): number | null {
  const usual = st.usual;
  const extreme = extremeOf(st, direction);
  if (usual === null || extreme === null) return null;
  if (direction === 'up') {
    if (usual <= 0) return extreme > 0 ? Number.POSITIVE_INFINITY : 1;
    return extreme / usual;
  }
  if (extreme <= 0) return usual > 0 ? Number.POSITIVE_INFINITY : 1;
  return usual / extreme;
}

/** Hours until a ramp reaches a bound (a limit going up, zero going down), or null when it does not head there. */
export function hoursToBound(st: SignalState, bound: number): number | null {
  const slope = st.rampPerHour;
  const end = st.end;
  if (slope === null || end === null || slope === 0) return null;
  const hours = (bound - end) / slope;
  return hours > 0 ? hours : null;
}
