import { ANOMALY_SCORING_VERSION, ANOMALY_Z_THRESHOLD, dropLowestRanked, keepLeadSeries, MIN_BASELINE_POINTS, MIN_RECENT_POINTS, mostAnomalousIndex, scoreAnomaly, type TimedValue } from './anomaly-score';

const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
const WINDOW = { start: T0, end: T0 + 3600 };

/** One point a minute from 10:00 to 10:59, the value a function of the minute. */
function series(value: (minute: number) => number, minutes = 60): TimedValue[] {
  return Array.from({ length: minutes }, (_, m) => [T0 + m * 60, value(m)] as const);
}

/** Deterministic uniform noise in [-1, 1] (a small LCG), so no test depends on chance. */
function noise(seed: number): (i: number) => number {
  const values: number[] = [];
  let state = seed >>> 0;
  for (let i = 0; i < 1000; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    values.push((state / 2 ** 32) * 2 - 1);
  }
  return (i) => values[i];
}

describe('scoreAnomaly (robust z against the first half of the window)', () => {
  const jitter = noise(7);

  it('names its version and threshold', () => {
    expect(ANOMALY_SCORING_VERSION).toBe('robust-z-v1');
    expect(ANOMALY_Z_THRESHOLD).toBe(3.5);
  });

  it('scores a step change high, upward, from the minute it happened', () => {
    const s = scoreAnomaly(series((m) => (m >= 38 ? 200 : 100) + 2 * jitter(m)), WINDOW);
    expect(s.anomalyScore).toBeGreaterThan(30);
    expect(s.direction).toBe('up');
    expect(s.shiftAt).toBe('2026-11-20T10:38:00.000Z');
    expect(s.baselineMedian).toBeCloseTo(100, 0);
    expect(s.recentMedian).toBeCloseTo(200, -1);
    expect(s.ratio).toBeCloseTo(2, 1);
  });

  it('dates a step that began shortly before the split from when it began, not from the split', () => {
    // A step at 14:00 seen through rate()[5m]: a 5-minute ramp, partly in the baseline.
    const s = scoreAnomaly(series((m) => (m < 25 ? 2.8 : m < 30 ? 2.8 + (m - 24) * 0.96 : 7.6)), WINDOW);
    expect(s.anomalyScore).toBeGreaterThan(100);
    expect(s.baselineMedian).toBe(2.8);
    expect(s.shiftAt).toBe('2026-11-20T10:25:00.000Z');
    // A run that starts inside the recent window is not followed back.
    expect(scoreAnomaly(series((m) => (m >= 33 ? 200 : 100)), WINDOW).shiftAt).toBe('2026-11-20T10:33:00.000Z');
  });

  it('gives no direction when the deviation rounds to a score of 0', () => {
    expect(scoreAnomaly(series((m) => (m >= 30 ? 0.024615 - 1e-12 : 0.024615)), WINDOW)).toMatchObject({ anomalyScore: 0, direction: null, shiftAt: null });
  });

  it('scores a one-point spike high while the recent median stays at the baseline', () => {
    const s = scoreAnomaly(series((m) => (m === 45 ? 500 : 100 + 2 * jitter(m))), WINDOW);
    expect(s.anomalyScore).toBeGreaterThan(100);
    expect(s.direction).toBe('up');
    expect(s.shiftAt).toBe('2026-11-20T10:45:00.000Z');
    expect(s.ratio).toBeCloseTo(1, 1);
  });

  it('scores a gradual ramp above the threshold but far below a step of the same size', () => {
    const ramp = scoreAnomaly(series((m) => 100 + m), WINDOW);
    const step = scoreAnomaly(series((m) => (m >= 30 ? 159 : 100)), WINDOW);
    expect(ramp.anomalyScore).toBeGreaterThan(ANOMALY_Z_THRESHOLD);
    expect(ramp.anomalyScore).toBeLessThan(10);
    expect(step.anomalyScore as number).toBeGreaterThan((ramp.anomalyScore as number) * 5);
    expect(ramp.direction).toBe('up');
    // The ramp crosses the threshold late in the recent window, not at its start.
    expect(ramp.shiftAt! > '2026-11-20T10:45:00.000Z').toBe(true);
  });

  it('scores a flat series 0 with no direction and no shift', () => {
    expect(scoreAnomaly(series(() => 42), WINDOW)).toEqual({ baselineMedian: 42, recentMedian: 42, anomalyScore: 0, direction: null, shiftAt: null, ratio: 1 });
    expect(scoreAnomaly(series(() => 0), WINDOW)).toMatchObject({ anomalyScore: 0, direction: null, ratio: null });
  });

  it('still scores a real step after a flat baseline, including one at zero', () => {
    const fromFlat = scoreAnomaly(series((m) => (m >= 40 ? 150 : 100)), WINDOW);
    expect(fromFlat.anomalyScore).toBe(50); // 50 over a floor of 1 % of the level
    expect(fromFlat.shiftAt).toBe('2026-11-20T10:40:00.000Z');
    const fromZero = scoreAnomaly(series((m) => (m >= 40 ? 5 : 0)), WINDOW);
    expect(fromZero.anomalyScore).toBe(100);
    expect(fromZero).toMatchObject({ direction: 'up', ratio: null, baselineMedian: 0, recentMedian: 5 });
  });

  it('does not flag a noisy but stable series, and ignores a change under 1 % of a flat level', () => {
    const noisy = scoreAnomaly(series((m) => 100 + 5 * jitter(m)), WINDOW);
    expect(noisy.anomalyScore).toBeLessThan(ANOMALY_Z_THRESHOLD);
    expect(noisy.shiftAt).toBeNull();
    expect(scoreAnomaly(series((m) => (m >= 40 ? 100.5 : 100)), WINDOW).anomalyScore).toBe(0.5);
  });

  it('sets shiftAt exactly when the score reaches the threshold, also right at its edge', () => {
    for (const step of [3.3, 3.44, 3.45, 3.49, 3.5, 3.51, 3.6, -3.5, -3.49]) {
      for (const seed of [0, 1]) {
        const s = scoreAnomaly(series((m) => 100 + (m >= 40 ? step : 0) + seed * 0.3 * jitter(m)), WINDOW);
        expect([step, seed, s.shiftAt !== null]).toEqual([step, seed, (s.anomalyScore as number) >= ANOMALY_Z_THRESHOLD]);
      }
    }
    expect(scoreAnomaly(series((m) => 100 + (m >= 40 ? 3.5 : 0)), WINDOW)).toMatchObject({ anomalyScore: 3.5, shiftAt: '2026-11-20T10:40:00.000Z' });
  });

  it('scores a downward change as down', () => {
    const s = scoreAnomaly(series((m) => (m >= 40 ? 30 : 100) + jitter(m)), WINDOW);
    expect(s.direction).toBe('down');
    expect(s.anomalyScore).toBeGreaterThan(30);
    expect(s.shiftAt).toBe('2026-11-20T10:40:00.000Z');
    expect(s.ratio).toBeCloseTo(0.3, 1);
  });

  it('returns nulls with too few points, and for an instant sample', () => {
    const none = { baselineMedian: null, recentMedian: null, anomalyScore: null, direction: null, shiftAt: null, ratio: null };
    expect(scoreAnomaly(series(() => 1, MIN_BASELINE_POINTS + MIN_RECENT_POINTS - 1))).toEqual(none);
    expect(scoreAnomaly([[T0, 1]])).toEqual(none);
    expect(scoreAnomaly([])).toEqual(none);
    // Enough points, but the recent window would be shorter than its minimum.
    expect(scoreAnomaly(series(() => 1, MIN_BASELINE_POINTS + 1), { start: T0, end: T0 + 60 * MIN_BASELINE_POINTS })).toEqual(none);
  });

  it('drops NaN and infinite values before scoring', () => {
    const clean = series((m) => (m >= 38 ? 200 : 100) + 2 * jitter(m));
    const dirty: TimedValue[] = clean.map(([t, v], i) => [t, i % 7 === 3 ? NaN : i % 11 === 5 ? (i % 2 ? Infinity : -Infinity) : v]);
    const kept = clean.filter((_, i) => !(i % 7 === 3 || i % 11 === 5));
    expect(scoreAnomaly(dirty, WINDOW)).toEqual(scoreAnomaly(kept, WINDOW));
    expect(scoreAnomaly(dirty, WINDOW).anomalyScore).toBeGreaterThan(30);
    expect(scoreAnomaly(series(() => NaN), WINDOW).anomalyScore).toBeNull();
  });

  it('splits at the middle of the query window, and orders unsorted samples first', () => {
    // The series exists only in the last 20 minutes: the first MIN_BASELINE_POINTS points become its baseline.
    const late = series((m) => (m >= 50 ? 300 : 100)).slice(40);
    const s = scoreAnomaly(late, WINDOW);
    expect(s.baselineMedian).toBe(100);
    expect(s.shiftAt).toBe('2026-11-20T10:50:00.000Z');
    const shuffled = [...series((m) => (m >= 38 ? 200 : 100))].reverse();
    expect(scoreAnomaly(shuffled, WINDOW)).toEqual(scoreAnomaly(series((m) => (m >= 38 ? 200 : 100)), WINDOW));
  });
});

describe('ranking series by max while keeping the most anomalous one', () => {
  const s = (id: string, max: number, anomalyScore: number | null) => ({ id, max, anomalyScore });
  const all = [s('a', 5, 1), s('b', 9, 0.5), s('c', 1, 40), s('d', 7, null), s('e', 3, 2)];

  it('finds the most anomalous entry, ignoring missing scores', () => {
    expect(mostAnomalousIndex(all)).toBe(2);
    expect(mostAnomalousIndex([s('x', 1, null)])).toBeNull();
    expect(mostAnomalousIndex([])).toBeNull();
  });

  it('keeps the top series by max and puts the most anomalous one last when the cut would drop it', () => {
    expect(keepLeadSeries(all, 3).map((x) => x.id)).toEqual(['b', 'd', 'c']);
    expect(keepLeadSeries(all, 5).map((x) => x.id)).toEqual(['b', 'd', 'a', 'e', 'c']);
    expect(keepLeadSeries([s('a', 5, 1), s('b', 9, 30), s('c', 1, 2)], 2).map((x) => x.id)).toEqual(['b', 'a']);
  });

  it('drops the lowest-ranked series but spares the most anomalous one', () => {
    const kept = keepLeadSeries(all, 3);
    dropLowestRanked(kept);
    expect(kept.map((x) => x.id)).toEqual(['b', 'c']);
    dropLowestRanked(kept);
    expect(kept.map((x) => x.id)).toEqual(['c']);
    dropLowestRanked(kept);
    expect(kept).toEqual([]);
  });
});
