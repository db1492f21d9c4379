import fc from 'fast-check';
import { ANOMALY_SCORING_VERSION, ANOMALY_Z_THRESHOLD, dropLowestRanked, keepLeadSeries, MIN_BASELINE_POINTS, MIN_RECENT_POINTS, mostAnomalousIndex, NO_ANOMALY_SCORE, scoreAnomaly, type TimedValue } from './anomaly-score';

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

const jitter = noise(7);

describe('scoreAnomaly (robust shift of the median at a per-series change point)', () => {
  it('names its version and threshold', () => {
    expect(ANOMALY_SCORING_VERSION).toBe('robust-shift-v3');
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

  it('dates a step seen through rate() from where its ramp began, not from the middle of the ramp', () => {
    // A step at 10:24 seen through rate()[5m]: a 5-minute ramp; the best two-level fit splits it at 10:27.
    const s = scoreAnomaly(series((m) => (m < 25 ? 2.8 : m < 30 ? 2.8 + (m - 24) * 0.96 : 7.6)), WINDOW);
    expect(s.anomalyScore).toBeGreaterThan(100);
    expect(s.baselineMedian).toBe(2.8);
    expect(s.recentMedian).toBe(7.6);
    expect(s.shiftAt).toBe('2026-11-20T10:25:00.000Z');
    // A clean step is dated at its first point, on either side of the middle of the window.
    expect(scoreAnomaly(series((m) => (m >= 33 ? 200 : 100)), WINDOW).shiftAt).toBe('2026-11-20T10:33:00.000Z');
    expect(scoreAnomaly(series((m) => (m >= 27 ? 200 : 100)), WINDOW).shiftAt).toBe('2026-11-20T10:27:00.000Z');
  });

  // Both fail with the midpoint split: at 20 % it takes 18 faulty minutes into its 30-minute
  // baseline and sees no shift; at 85 % its recent median is the old level (21 of 30 minutes).
  it.each([
    [20, 12, 180, 'up'],
    [85, 51, 40, 'down'],
  ] as const)('finds a fault that began at %i %% of the window, dated at its start, the old level as baseline median and the new as recent median', (_, minute, level, direction) => {
    const s = scoreAnomaly(series((m) => (m >= minute ? level : 100) + 2 * jitter(m)), WINDOW);
    expect(s.anomalyScore).toBeGreaterThan(20);
    expect(s).toMatchObject({ direction, shiftAt: `2026-11-20T10:${minute}:00.000Z` });
    expect(s.baselineMedian).toBeCloseTo(100, -1);
    expect(s.recentMedian).toBeCloseTo(level, -1);
    expect(s.ratio).toBeCloseTo(level / 100, 1);
  });

  it('gives no direction when the deviation rounds to a score of 0', () => {
    expect(scoreAnomaly(series((m) => (m >= 30 ? 0.024615 - 1e-12 : 0.024615)), WINDOW)).toMatchObject({ anomalyScore: 0, direction: null, shiftAt: null });
  });

  it('keeps a single spike in a long flat-noise series under the threshold, while a sustained step scores above', () => {
    // 12 hours at 15 s (2880 points); the spike is 100 noise amplitudes high.
    const long = (value: (i: number) => number) => Array.from({ length: 2880 }, (_, i) => [T0 + i * 15, 100 + 2 * jitter(i % 1000) + value(i)] as const);
    for (const at of [100, 1500, 2870]) {
      const spike = scoreAnomaly(long((i) => (i === at ? 200 : 0)));
      expect([at, spike.anomalyScore! < ANOMALY_Z_THRESHOLD, spike.shiftAt]).toEqual([at, true, null]);
    }
    // A step a tenth of that height, held for the last 30 minutes, is a fault.
    const step = scoreAnomaly(long((i) => (i >= 2760 ? 20 : 0)));
    expect(step.anomalyScore).toBeGreaterThan(10);
    expect(step).toMatchObject({ direction: 'up', shiftAt: new Date((T0 + 2760 * 15) * 1000).toISOString() });
    // So a ranking puts the step first.
    expect(mostAnomalousIndex([scoreAnomaly(long((i) => (i === 2000 ? 500 : 0))), step])).toBe(1);
  });

  it('scores a one-point spike in a short window as no shift: the recent median stays at the baseline', () => {
    const s = scoreAnomaly(series((m) => (m === 45 ? 500 : 100 + 2 * jitter(m))), WINDOW);
    expect(s.anomalyScore).toBeLessThan(ANOMALY_Z_THRESHOLD);
    expect(s.shiftAt).toBeNull();
    expect(s.ratio).toBeCloseTo(1, 1);
  });

  it('scores a steady trend through the whole window under the threshold, far below a step of the same size, and a ramp that starts inside it above', () => {
    const trend = scoreAnomaly(series((m) => 100 + m), WINDOW);
    const step = scoreAnomaly(series((m) => (m >= 30 ? 159 : 100)), WINDOW);
    expect(trend.anomalyScore).toBeGreaterThan(2);
    expect(trend.anomalyScore).toBeLessThan(ANOMALY_Z_THRESHOLD);
    expect(trend).toMatchObject({ direction: 'up', shiftAt: null });
    expect(step.anomalyScore as number).toBeGreaterThan((trend.anomalyScore as number) * 5);
    // Flat with noise until 10:40, then a ramp: dated near its start.
    const ramp = scoreAnomaly(series((m) => 100 + jitter(m) + (m >= 40 ? 3 * (m - 39) : 0)), WINDOW);
    expect(ramp.anomalyScore).toBeGreaterThan(10);
    expect(ramp.direction).toBe('up');
    expect(ramp.shiftAt! >= '2026-11-20T10:40:00.000Z' && ramp.shiftAt! <= '2026-11-20T10:43:00.000Z').toBe(true);
  });

  it('does not read blips of an idle gauge (a baseline MAD of 0) as a shift', () => {
    // Mostly 0 with scattered small counts, more of them late in the window by chance.
    const idle = [0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0, 1, 0, 1, 1, 0, 2, 1, 0, 1, 1, 0, 2, 1];
    expect(scoreAnomaly(series((m) => idle[m]), WINDOW).anomalyScore).toBeLessThan(ANOMALY_Z_THRESHOLD);
    // The same gauge going busy is a shift.
    expect(scoreAnomaly(series((m) => idle[m] + (m >= 40 ? 20 : 0)), WINDOW)).toMatchObject({ direction: 'up', shiftAt: '2026-11-20T10:40:00.000Z' });
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

  it('searches the split on the series\' own points, whatever the window, and orders unsorted samples first', () => {
    // The series exists only in the last 20 minutes of the window.
    const late = series((m) => (m >= 50 ? 300 : 100)).slice(40);
    const s = scoreAnomaly(late, WINDOW);
    expect(s.baselineMedian).toBe(100);
    expect(s.shiftAt).toBe('2026-11-20T10:50:00.000Z');
    expect(scoreAnomaly(late)).toEqual(s);
    const shuffled = [...series((m) => (m >= 38 ? 200 : 100))].reverse();
    expect(scoreAnomaly(shuffled, WINDOW)).toEqual(scoreAnomaly(series((m) => (m >= 38 ? 200 : 100)), WINDOW));
  });
});

describe('scoreAnomaly invariants on arbitrary input (fast-check)', () => {
  const time = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: T0 - 86400, max: T0 + 86400 }) }, { weight: 1, arbitrary: fc.double() });
  const value = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, 0, 1, -1), fc.integer({ min: -5, max: 5 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
  const points = fc.array(fc.tuple(time, value), { maxLength: 120 });
  const kept = (ps: readonly TimedValue[]) => ps.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v) && Math.abs(t) <= 8.64e12);

  it('never throws, and its statistics keep their meaning', () => {
    fc.assert(
      fc.property(points, (ps) => {
        const s = scoreAnomaly(ps);
        const finite = kept(ps);
        if (finite.length < MIN_BASELINE_POINTS + MIN_RECENT_POINTS) {
          expect(s).toEqual(NO_ANOMALY_SCORE);
          return;
        }
        // NaN and infinite values (and times no Date holds) are dropped, nothing else changes.
        expect(scoreAnomaly(finite)).toEqual(s);
        for (const x of [s.anomalyScore, s.baselineMedian, s.recentMedian]) expect(Number.isFinite(x)).toBe(true);
        const score = s.anomalyScore as number;
        expect(score).toBeGreaterThanOrEqual(0);
        expect(s.shiftAt !== null).toBe(score >= ANOMALY_Z_THRESHOLD);
        expect(s.direction === null).toBe(score === 0);
        if (s.direction === 'up') expect(s.recentMedian!).toBeGreaterThanOrEqual(s.baselineMedian!);
        if (s.direction === 'down') expect(s.recentMedian!).toBeLessThanOrEqual(s.baselineMedian!);
        if (s.shiftAt !== null) expect(finite.some(([t]) => new Date(t * 1000).toISOString() === s.shiftAt)).toBe(true);
        expect(s.ratio === null || Number.isFinite(s.ratio)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('scores a flat series 0, and a change under 1 % of the level at most 1, wherever it happens', () => {
    const level = fc.oneof(fc.double({ min: 1e-3, max: 1e9, noNaN: true }), fc.double({ min: -1e9, max: -1e-3, noNaN: true }));
    fc.assert(
      fc.property(level, fc.double({ min: -0.0099, max: 0.0099, noNaN: true }), fc.integer({ min: 8, max: 200 }), fc.nat(), (c, relative, n, at) => {
        const flat = scoreAnomaly(series(() => c, n));
        expect(flat).toMatchObject({ anomalyScore: 0, direction: null, shiftAt: null });
        const step = scoreAnomaly(series((m) => (m >= at % n ? c + relative * Math.abs(c) : c), n));
        expect(step.anomalyScore!).toBeLessThanOrEqual(1);
        expect(step.shiftAt).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('ranks a sustained step above a single spike of any height in the same noise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 600 }), fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.double({ min: 1, max: 1e6, noNaN: true }), fc.nat(), (n, startFraction, height, at) => {
        const noisy = (extra: (i: number) => number) => Array.from({ length: n }, (_, i) => [T0 + i * 15, 100 + 2 * jitter(i % 1000) + extra(i)] as const);
        const start = Math.round(startFraction * n);
        const spike = scoreAnomaly(noisy((i) => (i === at % n ? height : 0)));
        const step = scoreAnomaly(noisy((i) => (i >= start ? 30 : 0)));
        expect(spike.anomalyScore!).toBeLessThan(ANOMALY_Z_THRESHOLD);
        expect(step.anomalyScore!).toBeGreaterThan(ANOMALY_Z_THRESHOLD);
      }),
      { numRuns: 200 },
    );
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
