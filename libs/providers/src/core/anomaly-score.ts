/**
 * Generic anomaly scoring of one metric series: did its level shift inside the window, when, and
 * how strongly. Pure: no I/O, no clock; it sees raw points, so it runs inside the provider package
 * and only its compact statistics leave it.
 *
 * Rule `robust-shift-v2` (the baseline split is chosen per series; `robust-z-v1` split every
 * series at the middle of the window and scored its most deviating later point):
 * - Points whose value is not finite (NaN, ±Inf), or whose time is not an epoch second a Date can
 *   hold, are dropped; the rest are ordered by time. With fewer than
 *   `MIN_BASELINE_POINTS + MIN_RECENT_POINTS` points every statistic is null.
 * - Change point: every split leaving at least `max(MIN_BASELINE_POINTS, ⌈10 % of n⌉)` points
 *   before it and `max(MIN_RECENT_POINTS, ⌈2 % of n⌉)` from it on is a candidate. The chosen one
 *   minimises the summed absolute deviation of each side from its own median: the best fit of one
 *   change in median level (Laplace likelihood). It is exact at a clean step, one outlier cannot
 *   move it, and it costs O(n log n) (running medians with sums in two heaps, forwards and
 *   backwards). When the shift found is strong, the split then moves back over the run of
 *   baseline-tail points already beyond the threshold in its direction, as long as the shift
 *   measured from there still reaches the threshold. That run is the ramp of a step read through
 *   rate(), or the start of a ramp, so `shiftAt` dates when the shift began.
 * - Baseline: the points before the split. Recent: the points from it on.
 * - Scale: `1.4826 × MAD` of the baseline (`1.2533 ×` its mean absolute deviation when the MAD is
 *   0, as for an idle gauge that mostly repeats one value). It never drops below the series'
 *   noise at the segment length: `1.4826 × median |x[i] − x[i−L]| / √2`, L = the least baseline
 *   length, which one shift barely moves. So a short baseline of a slowly wandering series does not
 *   look quiet. It also never drops below 1 % of |baseline median| (of the largest |value| when
 *   that median is 0) nor below 1e-12. So a flat baseline followed by a real step scores high, a
 *   flat series scores 0, and a change smaller than 1 % of the level never scores above 1.
 * - Score: |recent median − baseline median| / scale, truncated to one decimal. Its sign gives the
 *   direction (none at 0). It measures how far the level of the recent segment moved, not the
 *   most extreme point, so a single-sample spike does not outrank a sustained shift. `shiftAt` is
 *   the time of the first recent point (the chosen change point) exactly when the score reaches
 *   `ANOMALY_Z_THRESHOLD`.
 * - Excursions: a segment that ends before the last point (an incident that began and ended in the
 *   window) is scored against everything outside it; when its shift is larger than the best single
 *   split's, it describes the series (`recentMedian` is then the segment's level, `shiftAt` its start).
 * - Not a level shift, so it scores low: a steady trend through the whole window (no change point;
 *   a straight line scores under 3).
 *   A shift that begins in the first 10 % of the window has too short a baseline: it is dated at
 *   that edge, and one in the first 5 % is not found. One that holds for less than half of the
 *   shortest recent segment (`max(3 points, 2 %)`) cannot move its median and is not found either.
 */
export const ANOMALY_SCORING_VERSION = 'robust-shift-v3';
/** |robust z| of the recent level above which a series counts as shifted (Iglewicz and Hoaglin's 3.5). */
export const ANOMALY_Z_THRESHOLD = 3.5;
export const MIN_BASELINE_POINTS = 5;
export const MIN_RECENT_POINTS = 3;
/** Least share of the series before a candidate split (on top of `MIN_BASELINE_POINTS`): a baseline long enough to hold the level and its spread. */
export const MIN_BASELINE_FRACTION = 0.1;
/** Least share of the series from a candidate split on (on top of `MIN_RECENT_POINTS`): short, so a shift that began just before the end of the window is found. */
export const MIN_RECENT_FRACTION = 0.02;
/** @deprecated The fixed split of `robust-z-v1` (first half of the window as baseline); `robust-shift-v2` searches the split per series. */
export const BASELINE_FRACTION = 0.5;
const MAD_TO_SIGMA = 1.4826;
const MEAN_AD_TO_SIGMA = 1.253314;
const RELATIVE_EPSILON = 0.01;
const ABSOLUTE_EPSILON = 1e-12;
/** Largest |epoch second| a Date holds (±8.64e15 ms). */
const MAX_EPOCH_SECONDS = 8.64e12;
/** Above this |value| the series is rescaled by a power of two first, so no sum overflows. */
const RESCALE_ABOVE = 1e150;

/** `[unix seconds, value]`, the Prometheus sample order. */
export type TimedValue = readonly [number, number];

export interface AnomalyScore {
  /** Median of the baseline (the points before the chosen change point). */
  baselineMedian: number | null;
  /** Median of the recent segment (the chosen change point and every later point). */
  recentMedian: number | null;
  /** |recent median − baseline median| over the baseline's robust scale, truncated to one decimal. */
  anomalyScore: number | null;
  /** Sign of that shift; null when there is none or too few points. */
  direction: 'up' | 'down' | null;
  /** ISO time the shift began (the chosen change point), set exactly when the score reaches the threshold. */
  shiftAt: string | null;
  /** recent median / baseline median; null when the baseline median is 0. */
  ratio: number | null;
}

export const NO_ANOMALY_SCORE: AnomalyScore = { baselineMedian: null, recentMedian: null, anomalyScore: null, direction: null, shiftAt: null, ratio: null };

export interface AnomalyWindow {
  /** Unix seconds. The query window; `robust-shift-v2` searches the split on the series' own points and no longer reads it. */
  start: number;
  end: number;
}

/** Rounds to 6 decimals, the precision of every series statistic (a value too large for that is returned as is). */
export function round6(n: number): number {
  const scaled = n * 1e6;
  return Number.isFinite(scaled) ? Math.round(scaled) / 1e6 : n;
}

/**
 * Median of `a`, reordering it in place (quickselect, O(n)); the two middle values are halved
 * before they are added, so the largest doubles do not overflow.
 */
function medianInPlace(a: Float64Array): number {
  const k = a.length >> 1;
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const x = a[lo];
    const y = a[(lo + hi) >> 1];
    const z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  if (a.length % 2 === 1) return a[k];
  let below = a[0];
  for (let i = 1; i < k; i++) if (a[i] > below) below = a[i];
  return below / 2 + a[k] / 2;
}

/** |z| truncated to one decimal (the 1e-9 absorbs float noise), so `score >= threshold` holds exactly when `shiftAt` is set. */
function scoreOf(z: number): number {
  return Math.floor(Math.abs(z) * 10 + 1e-9) / 10;
}

/** Binary min-heap of doubles in a typed array, with the sum of what it holds. */
class MinHeap {
  private readonly items: Float64Array;
  size = 0;
  sum = 0;

  constructor(capacity: number) {
    this.items = new Float64Array(capacity);
  }

  top(): number {
    return this.items[0];
  }

  push(x: number): void {
    const items = this.items;
    let i = this.size++;
    this.sum += x;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent] <= x) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = x;
  }

  pop(): number {
    const items = this.items;
    const top = items[0];
    const last = items[--this.size];
    this.sum -= top;
    let i = 0;
    for (let child = 1; child < this.size; child = 2 * i + 1) {
      if (child + 1 < this.size && items[child + 1] < items[child]) child++;
      if (items[child] >= last) break;
      items[i] = items[child];
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * Sum of |x − median| of the first k points for every k = 0..n (of the last k when `fromEnd`):
 * the sum of the upper half minus the sum of the lower half (plus the median when k is odd), kept
 * by a running median in two heaps.
 */
function l1Costs(values: Float64Array, fromEnd: boolean): Float64Array {
  const n = values.length;
  const lower = new MinHeap(n); // negated, so its top is the largest of the lower half
  const upper = new MinHeap(n);
  const costs = new Float64Array(n + 1);
  for (let k = 1; k <= n; k++) {
    const x = values[fromEnd ? n - k : k - 1];
    if (lower.size === 0 || x <= -lower.top()) lower.push(-x);
    else upper.push(x);
    if (lower.size > upper.size + 1) upper.push(-lower.pop());
    else if (upper.size > lower.size) lower.push(-upper.pop());
    costs[k] = upper.sum + lower.sum + (lower.size > upper.size ? -lower.top() : 0);
  }
  return costs;
}

/**
 * The split of `values` with at least `first` points before it and `max(MIN_RECENT_POINTS,
 * ⌈MIN_RECENT_FRACTION × n⌉)` from it on (there is one from 8 points on) that minimises the
 * summed |x − median| of both sides, the first on a tie.
 */
function bestSplit(values: Float64Array, first: number): number {
  const n = values.length;
  const last = n - Math.max(MIN_RECENT_POINTS, Math.ceil(MIN_RECENT_FRACTION * n));
  // Costs on values centred at their median, so a large level cancels less precision.
  const mid = medianInPlace(values.slice());
  const centred = values.map((v) => v - mid);
  const before = l1Costs(centred, false);
  const after = l1Costs(centred, true);
  let cut = first;
  for (let k = first + 1; k <= last; k++) if (before[k] + after[n - k] < before[cut] + after[n - cut]) cut = k;
  return cut;
}

/** Robust spread of differences `lag` points apart, as a sigma of one point (a level shift moves only `lag` of them). */
function lagNoise(values: Float64Array, lag: number): number {
  const lagged = new Float64Array(values.length - lag);
  for (let i = lag; i < values.length; i++) lagged[i - lag] = Math.abs(values[i] - values[i - lag]);
  return (medianInPlace(lagged) * MAD_TO_SIGMA) / Math.SQRT2;
}

interface SplitStats {
  center: number;
  recentMedian: number;
  scale: number;
  /** Signed robust shift of the recent median. */
  z: number;
}

/** Statistics of `values` split before index `cut`; `maxAbs` stands in for the level when the baseline median is 0. */
function splitStats(values: Float64Array, cut: number, maxAbs: number, floor: number): SplitStats {
  const center = medianInPlace(values.slice(0, cut));
  const level = center !== 0 ? Math.abs(center) : maxAbs;
  const recentMedian = medianInPlace(values.slice(cut));
  const deviations = values.subarray(0, cut).map((v) => Math.abs(v - center));
  // MAD is 0 when most of the baseline repeats one value (an idle gauge): the mean absolute deviation stands in.
  const mean = deviations.reduce((sum, d) => sum + d, 0) / deviations.length;
  const mad = medianInPlace(deviations);
  const spread = mad > 0 ? mad * MAD_TO_SIGMA : mean * MEAN_AD_TO_SIGMA;
  const scale = Math.max(spread, RELATIVE_EPSILON * level, floor);
  return { center, recentMedian, scale, z: (recentMedian - center) / scale };
}

/** Candidate boundaries of an excursion: at most this many, evenly spread (so the search stays bounded). */
const EXCURSION_GRID = 32;
/** Least relative move of an excursion's level (smooth waves of a few per cent are no incident). */
const EXCURSION_MIN_EFFECT = 0.1;
/** Longer series are searched for excursions on this many block medians. */
const MAX_EXCURSION_POINTS = 240;
/** Before and after an excursion the levels differ by at most this share of its own shift. */
const RETURN_TOLERANCE = 0.25;

/**
 * The segment [start, end) that ends before the last point and deviates most from the rest: an
 * incident that began and ended inside the window (`robust-shift-v2` + excursions). Its level is
 * the segment's median against the median and robust scale of everything outside it, which must
 * hold the baseline minimum before the segment and at least as many points after it as the
 * shortest recent segment. Boundaries come from a grid of `EXCURSION_GRID` positions, on block
 * medians for series longer than `MAX_EXCURSION_POINTS`, so the cost per series stays bounded.
 */
function bestExcursion(values: Float64Array, first: number, level: number, floor: number): { start: number; stats: SplitStats } | null {
  const n = values.length;
  // Long series are searched on block medians (bounded cost per series), then scored on the raw points.
  const block = Math.max(1, Math.ceil(n / MAX_EXCURSION_POINTS));
  const work = block === 1 ? values : blockMedians(values, block);
  const m = work.length;
  const minLength = Math.max(MIN_RECENT_POINTS, Math.ceil(MIN_RECENT_FRACTION * n / block));
  const lead = Math.ceil(first / block);
  const step = Math.max(1, Math.ceil(m / EXCURSION_GRID));
  let best: { a: number; b: number; z: number } | null = null;
  for (let a = lead; a < m - 2 * minLength; a += step) {
    for (let b = a + minLength; b <= m - minLength; b += step) {
      const outside = new Float64Array(m - (b - a));
      outside.set(work.subarray(0, a));
      outside.set(work.subarray(b), a);
      const stats = segmentStats(outside, work.subarray(a, b), level, floor);
      if (best && Math.abs(stats.z) <= Math.abs(best.z)) continue;
      // An excursion is an incident, not the series' own wave: its level moves by a tenth at least.
      if (Math.abs(stats.recentMedian - stats.center) < EXCURSION_MIN_EFFECT * Math.abs(stats.center)) continue;
      // An excursion returns to the level it left: before and after it the series agrees.
      const before = medianInPlace(work.slice(0, a));
      const after = medianInPlace(work.slice(b));
      if (Math.abs(before - after) > RETURN_TOLERANCE * Math.abs(stats.recentMedian - stats.center)) continue;
      best = { a, b, z: stats.z };
    }
  }
  if (!best) return null;
  const start = Math.min(n - 1, best.a * block);
  const end = Math.min(n, best.b * block);
  const outside = new Float64Array(n - (end - start));
  outside.set(values.subarray(0, start));
  outside.set(values.subarray(end), start);
  return { start, stats: segmentStats(outside, values.subarray(start, end), level, floor) };
}

/** Medians of consecutive blocks of `size` points (the last block may be shorter). */
function blockMedians(values: Float64Array, size: number): Float64Array {
  const out = new Float64Array(Math.ceil(values.length / size));
  for (let i = 0; i < out.length; i++) out[i] = medianInPlace(values.slice(i * size, Math.min(values.length, (i + 1) * size)));
  return out;
}

/** Statistics of a segment against the points outside it (the same scale rules as a split). */
function segmentStats(outside: Float64Array, segment: Float64Array, maxAbs: number, floor: number): SplitStats {
  const joined = new Float64Array(outside.length + segment.length);
  joined.set(outside);
  joined.set(segment, outside.length);
  return splitStats(joined, outside.length, maxAbs, floor);
}

export function scoreAnomaly(points: readonly TimedValue[], _window?: AnomalyWindow): AnomalyScore {
  const finite = points.filter(([t, v]) => Number.isFinite(v) && Math.abs(t) <= MAX_EPOCH_SECONDS).sort((a, b) => a[0] - b[0]);
  const n = finite.length;
  if (n < MIN_BASELINE_POINTS + MIN_RECENT_POINTS) return NO_ANOMALY_SCORE;
  let maxAbs = 0;
  for (const [, v] of finite) maxAbs = Math.max(maxAbs, Math.abs(v));
  // A power of two, so rescaling is exact and the statistics scale back exactly.
  const unit = maxAbs > RESCALE_ABOVE ? 2 ** Math.min(1023, Math.ceil(Math.log2(maxAbs))) : 1;
  const values = Float64Array.from(finite, ([, v]) => v / unit);
  const level = maxAbs / unit;
  const first = Math.max(MIN_BASELINE_POINTS, Math.ceil(MIN_BASELINE_FRACTION * n));
  const floor = Math.max(ABSOLUTE_EPSILON / unit, lagNoise(values, first));

  let cut = bestSplit(values, first);
  let stats = splitStats(values, cut, level, floor);
  if (scoreOf(stats.z) >= ANOMALY_Z_THRESHOLD) {
    // Follow the shift back over the baseline-tail points already beyond the threshold.
    const sign = Math.sign(stats.z);
    let start = cut;
    while (start > first && Math.sign(values[start - 1] - stats.center) === sign && scoreOf((values[start - 1] - stats.center) / stats.scale) >= ANOMALY_Z_THRESHOLD) start--;
    const earlier = start < cut ? splitStats(values, start, level, floor) : null;
    if (earlier && Math.sign(earlier.z) === sign && scoreOf(earlier.z) >= ANOMALY_Z_THRESHOLD) {
      stats = earlier;
      cut = start;
    }
  }
  // An incident that ended inside the window is an excursion, not a shift of the last level:
  // the one with the larger robust shift describes the series.
  const excursion = bestExcursion(values, first, level, floor);
  let shiftIndex = cut;
  if (excursion && Math.abs(excursion.stats.z) > Math.abs(stats.z)) {
    stats = excursion.stats;
    shiftIndex = excursion.start;
  }
  const score = scoreOf(stats.z);
  const sign = score === 0 ? 0 : Math.sign(stats.z);
  const center = stats.center * unit;
  const recentMedian = stats.recentMedian * unit;
  const ratio = center !== 0 ? recentMedian / center : NaN;
  return {
    baselineMedian: round6(center),
    recentMedian: round6(recentMedian),
    anomalyScore: score,
    direction: sign > 0 ? 'up' : sign < 0 ? 'down' : null,
    shiftAt: score >= ANOMALY_Z_THRESHOLD ? new Date(finite[shiftIndex][0] * 1000).toISOString() : null,
    ratio: Number.isFinite(ratio) ? round6(ratio) : null,
  };
}

/** Index of the entry with the highest anomaly score (the first on a tie), or null when none has one. */
export function mostAnomalousIndex(series: readonly { anomalyScore?: number | null }[]): number | null {
  let best: number | null = null;
  let bestScore = -Infinity;
  for (let i = 0; i < series.length; i++) {
    const score = series[i].anomalyScore;
    if (typeof score === 'number' && score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

/** What ranking needs of a series summary. */
export interface RankedSeries {
  max: number | null;
  anomalyScore: number | null;
}

/**
 * The `maxSeries` series with the largest maxima, ordered by max (the "lead series" first). When
 * the most anomalous series falls outside that cut it takes the last place, so it is always kept
 * and the order by max still holds.
 */
export function keepLeadSeries<T extends RankedSeries>(series: readonly T[], maxSeries: number): T[] {
  const byMax = [...series].sort((a, b) => (b.max ?? -Infinity) - (a.max ?? -Infinity));
  const kept = byMax.slice(0, maxSeries);
  const most = mostAnomalousIndex(byMax);
  if (most !== null && most >= maxSeries && maxSeries > 0) kept[maxSeries - 1] = byMax[most];
  return kept;
}

/** Drops the lowest-ranked series (the last one) in place, sparing the most anomalous one. */
export function dropLowestRanked(series: RankedSeries[]): void {
  const last = series.length - 1;
  series.splice(last > 0 && mostAnomalousIndex(series) === last ? last - 1 : last, 1);
}
