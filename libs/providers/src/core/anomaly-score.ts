/**
 * Generic anomaly scoring of one metric series against a baseline window. Pure: no I/O, no
 * clock; it sees raw points, so it runs inside the provider package and only its compact
 * statistics leave it.
 *
 * Rule `robust-z-v1`:
 * - Non-finite values (NaN, ±Inf) are dropped and the rest are ordered by time.
 * - Baseline window: the points strictly before `splitAt` (by default the midpoint of the query
 *   window, or of the series' own time span when no window is given), extended to the first
 *   `MIN_BASELINE_POINTS` points when fewer fall before it. Recent window: every later point; it
 *   needs at least `MIN_RECENT_POINTS`. With fewer points every statistic is null.
 * - Scale: `1.4826 × MAD` of the baseline, never below 1 % of |baseline median| (of the largest
 *   |value| when that median is 0) nor 1e-12. So a flat baseline followed by a real step scores
 *   high, a flat series with no change scores 0, and a change smaller than 1 % of the level never
 *   scores above 1.
 * - Robust z of a point: `(x − baseline median) / scale`. The score is |z| of the recent point
 *   that deviates most (truncated to one decimal) and its sign gives the direction (none at 0).
 *   `shiftAt` is the first recent point whose score in that direction reaches
 *   `ANOMALY_Z_THRESHOLD`; when that is the very first recent point, the run of such points is
 *   followed back into the baseline, so a shift that began shortly before the split is dated
 *   when it began. A score at or above the threshold always comes with a `shiftAt`.
 */
export const ANOMALY_SCORING_VERSION = 'robust-z-v1';
/** |robust z| above which a recent point counts as shifted (Iglewicz and Hoaglin's 3.5). */
export const ANOMALY_Z_THRESHOLD = 3.5;
export const MIN_BASELINE_POINTS = 5;
export const MIN_RECENT_POINTS = 3;
/** Share of the window used as the baseline when no explicit split is given. */
export const BASELINE_FRACTION = 0.5;
const MAD_TO_SIGMA = 1.4826;
const RELATIVE_EPSILON = 0.01;
const ABSOLUTE_EPSILON = 1e-12;

/** `[unix seconds, value]`, the Prometheus sample order. */
export type TimedValue = readonly [number, number];

export interface AnomalyScore {
  baselineMedian: number | null;
  recentMedian: number | null;
  /** |robust z| of the most deviating recent point, truncated to one decimal. */
  anomalyScore: number | null;
  /** Sign of that deviation; null when there is none or too few points. */
  direction: 'up' | 'down' | null;
  /** ISO time the shift began: the first recent point reaching the threshold in that direction, or the start of its run when that run began before the split. */
  shiftAt: string | null;
  /** recent median / baseline median; null when the baseline median is 0. */
  ratio: number | null;
}

export const NO_ANOMALY_SCORE: AnomalyScore = { baselineMedian: null, recentMedian: null, anomalyScore: null, direction: null, shiftAt: null, ratio: null };

export interface AnomalyWindow {
  /** Unix seconds; the baseline ends at `start + BASELINE_FRACTION × (end − start)`. */
  start: number;
  end: number;
}

/** Rounds to 6 decimals, the precision of every series statistic. */
export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const ascending = (a: number, b: number) => a - b;

/** |z| truncated to one decimal (the 1e-9 absorbs float noise), so `score >= threshold` holds exactly when `shiftAt` is set. */
function scoreOf(z: number): number {
  return Math.floor(Math.abs(z) * 10 + 1e-9) / 10;
}

function robustScale(baseline: readonly number[], center: number, level: number): number {
  const mad = median(baseline.map((v) => Math.abs(v - center)).sort(ascending));
  return Math.max(mad * MAD_TO_SIGMA, RELATIVE_EPSILON * level, ABSOLUTE_EPSILON);
}

export function scoreAnomaly(points: readonly TimedValue[], window?: AnomalyWindow): AnomalyScore {
  const finite = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  if (finite.length < MIN_BASELINE_POINTS + MIN_RECENT_POINTS) return NO_ANOMALY_SCORE;
  const span = window ?? { start: finite[0][0], end: finite[finite.length - 1][0] };
  const splitAt = span.start + BASELINE_FRACTION * (span.end - span.start);
  const firstRecent = finite.findIndex(([t]) => t >= splitAt);
  const cut = Math.max(MIN_BASELINE_POINTS, firstRecent === -1 ? finite.length : firstRecent);
  const baseline = finite.slice(0, cut).map(([, v]) => v);
  const recent = finite.slice(cut);
  if (recent.length < MIN_RECENT_POINTS) return NO_ANOMALY_SCORE;

  const center = median([...baseline].sort(ascending));
  const recentMedian = median(recent.map(([, v]) => v).sort(ascending));
  const level = center !== 0 ? Math.abs(center) : finite.reduce((m, [, v]) => Math.max(m, Math.abs(v)), 0);
  const scale = robustScale(baseline, center, level);
  // z of every point; indices from `cut` on are the recent window.
  const z = finite.map(([, v]) => (v - center) / scale);
  let extreme = cut;
  for (let i = cut + 1; i < z.length; i++) if (Math.abs(z[i]) > Math.abs(z[extreme])) extreme = i;
  const score = scoreOf(z[extreme]);
  const sign = score === 0 ? 0 : Math.sign(z[extreme]);
  const beyond = (i: number) => Math.sign(z[i]) === sign && scoreOf(z[i]) >= ANOMALY_Z_THRESHOLD;
  let shift = sign === 0 ? -1 : z.findIndex((_, i) => i >= cut && beyond(i));
  if (shift === cut) while (shift > 0 && beyond(shift - 1)) shift--;
  return {
    baselineMedian: round6(center),
    recentMedian: round6(recentMedian),
    anomalyScore: score,
    direction: sign > 0 ? 'up' : sign < 0 ? 'down' : null,
    shiftAt: shift >= 0 ? new Date(finite[shift][0] * 1000).toISOString() : null,
    ratio: center !== 0 ? round6(recentMedian / center) : null,
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
