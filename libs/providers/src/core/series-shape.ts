/**
 * Shape, trend and change statistics of one metric series over its query window. Pure: no I/O,
 * no clock. Like the anomaly score it sees raw points, so it runs inside the provider package and
 * only these compact numbers leave it.
 *
 * - `shape`: the window cut into `SHAPE_BUCKETS` equal time buckets, each the mean of its finite
 *   points (null for a bucket without one), six significant digits.
 * - `slope`: least-squares slope of value against time, in the series' raw unit per hour; `trend`
 *   the r² of that fit (0 for a constant series). Both null below `MIN_TREND_POINTS` points.
 * - Changes between consecutive finite points: how many times the value changed (`changes`) or
 *   fell (`drops`), and the last such step (`lastChange`, `lastDrop`: the time of the first point
 *   at the new value, the values before and after). A start-time gauge that changed, a role gauge
 *   that flipped, an uptime or raw counter that fell are read from these.
 * - Coverage: `firstAt`/`lastAt` (first and last finite point), `nonFinitePoints` (NaN, ±Inf
 *   dropped), and for a range query `missingPoints` (evaluation steps without a sample) and
 *   `longestGapSeconds` (the longest stretch of the window without a sample, beyond one step).
 */
import { round6, type TimedValue } from './anomaly-score';

export const SHAPE_BUCKETS = 12;
export const MIN_TREND_POINTS = 3;
/** Largest |epoch second| a Date holds (±8.64e15 ms). */
const MAX_EPOCH_SECONDS = 8.64e12;

export interface ValueStep {
  /** ISO time of the first point at the new value. */
  at: string;
  from: number;
  to: number;
}

export interface SeriesShape {
  shape: (number | null)[];
  slope: number | null;
  trend: number | null;
}

export interface SeriesChanges {
  firstAt: string | null;
  lastAt: string | null;
  changes: number;
  drops: number;
  lastChange: ValueStep | null;
  lastDrop: ValueStep | null;
}

export interface SeriesCoverage {
  missingPoints: number;
  longestGapSeconds: number;
}

/** Six significant digits (a compact, unit-free precision for bucket means). */
export function sig6(n: number): number {
  return Number.isFinite(n) ? Number(n.toPrecision(6)) : n;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

/** Finite points with a representable time, ordered by time. */
export function finitePoints(points: readonly TimedValue[]): TimedValue[] {
  return points.filter(([t, v]) => Number.isFinite(v) && Number.isFinite(t) && Math.abs(t) <= MAX_EPOCH_SECONDS).sort((a, b) => a[0] - b[0]);
}

/** Bucket means over [start, end] (unix seconds) and the least-squares trend of `points` (finite, time-ordered). */
export function shapeOf(points: readonly TimedValue[], window: { start: number; end: number }): SeriesShape {
  const means = new Float64Array(SHAPE_BUCKETS);
  const counts = new Uint32Array(SHAPE_BUCKETS);
  const span = window.end - window.start;
  for (const [t, v] of points) {
    if (!(span > 0) || t < window.start || t > window.end) continue;
    const i = Math.min(SHAPE_BUCKETS - 1, Math.floor(((t - window.start) / span) * SHAPE_BUCKETS));
    // A running mean on halved differences: the largest doubles do not overflow.
    counts[i]++;
    means[i] += ((v / 2 - means[i] / 2) / counts[i]) * 2;
  }
  const shape = Array.from(means, (m, i) => (counts[i] === 0 ? null : sig6(m)));
  return { shape, ...trendOf(points) };
}

/** Least-squares slope per hour and r², on centred time and value (null when they cannot be computed). */
function trendOf(points: readonly TimedValue[]): Pick<SeriesShape, 'slope' | 'trend'> {
  const n = points.length;
  if (n < MIN_TREND_POINTS) return { slope: null, trend: null };
  if (points.every(([, v]) => v === points[0][1])) return { slope: 0, trend: 0 };
  let tMean = 0;
  let vMean = 0;
  for (const [t, v] of points) {
    tMean += t / n;
    vMean += v / n;
  }
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [t, v] of points) {
    const dt = (t - tMean) / 3600;
    const dv = v - vMean;
    sxx += dt * dt;
    sxy += dt * dv;
    syy += dv * dv;
  }
  if (!(sxx > 0) || !Number.isFinite(sxy) || !Number.isFinite(syy)) return { slope: null, trend: null };
  const slope = sxy / sxx;
  const trend = syy > 0 ? Math.min(1, (sxy / sxx) * (sxy / syy)) : 0;
  return Number.isFinite(slope) ? { slope: sig6(slope), trend: round6(trend) } : { slope: null, trend: null };
}

/** Value changes and drops between consecutive points (finite, time-ordered). */
export function changesOf(points: readonly TimedValue[]): SeriesChanges {
  let changes = 0;
  let drops = 0;
  let lastChange: ValueStep | null = null;
  let lastDrop: ValueStep | null = null;
  for (let i = 1; i < points.length; i++) {
    const [t, v] = points[i];
    const prev = points[i - 1][1];
    if (v === prev) continue;
    changes++;
    lastChange = { at: iso(t), from: round6(prev), to: round6(v) };
    if (v < prev) {
      drops++;
      lastDrop = lastChange;
    }
  }
  return {
    firstAt: points.length > 0 ? iso(points[0][0]) : null,
    lastAt: points.length > 0 ? iso(points[points.length - 1][0]) : null,
    changes,
    drops,
    lastChange,
    lastDrop,
  };
}

/**
 * Evaluation steps of a range query over [start, end] that have no sample (NaN and ±Inf samples
 * count as present: they are reported apart), and the longest stretch without one beyond a step.
 */
export function coverageOf(times: readonly number[], window: { start: number; end: number }, stepSeconds: number): SeriesCoverage {
  if (!(stepSeconds > 0) || !(window.end >= window.start)) return { missingPoints: 0, longestGapSeconds: 0 };
  const expected = Math.floor((window.end - window.start) / stepSeconds + 1e-9) + 1;
  const sorted = [...times].sort((a, b) => a - b);
  let longest = 0;
  let previous = window.start - stepSeconds;
  for (const t of sorted) {
    longest = Math.max(longest, t - previous - stepSeconds);
    previous = t;
  }
  const lastStep = window.start + (expected - 1) * stepSeconds;
  longest = Math.max(longest, lastStep - previous);
  return { missingPoints: Math.max(0, expected - sorted.length), longestGapSeconds: Math.max(0, Math.round(longest)) };
}

/** Median of finite values, or null when there is none. */
export function medianOf(values: readonly number[]): number | null {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const k = sorted.length >> 1;
  return round6(sorted.length % 2 === 1 ? sorted[k] : sorted[k - 1] / 2 + sorted[k] / 2);
}
