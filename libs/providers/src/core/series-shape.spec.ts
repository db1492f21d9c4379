import { changesOf, coverageOf, finitePoints, medianOf, shapeOf, SHAPE_BUCKETS } from './series-shape';

const T0 = 1_800_000_000;
const window = { start: T0, end: T0 + 3600 };
/** One point a minute over the hour, value from `f(i)`. */
const minutes = (f: (i: number) => number) => Array.from({ length: 61 }, (_, i) => [T0 + i * 60, f(i)] as const);

describe('shapeOf', () => {
  it('tells a ramp from a step: same end points, different bucket means and fit', () => {
    const ramp = shapeOf(minutes((i) => i), window);
    const step = shapeOf(minutes((i) => (i < 30 ? 0 : 60)), window);
    expect(ramp.shape).toHaveLength(SHAPE_BUCKETS);
    expect(ramp.shape).toEqual([2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57.5]);
    expect(ramp.slope).toBe(60);
    expect(ramp.trend).toBe(1);
    expect(step.shape).toEqual([0, 0, 0, 0, 0, 0, 60, 60, 60, 60, 60, 60]);
    // A step fits a line far worse than a ramp.
    expect(step.trend as number).toBeLessThan(0.8);
    expect(step.slope as number).toBeGreaterThan(0);
  });

  it('leaves empty buckets null, scores a constant series as trendless, and needs three points for a fit', () => {
    const gappy = minutes(() => 5).filter(([t]) => t < T0 + 600 || t >= T0 + 1800);
    const shape = shapeOf(gappy, window);
    expect(shape.shape.slice(0, 6)).toEqual([5, 5, null, null, null, null]);
    expect(shape).toMatchObject({ slope: 0, trend: 0 });
    expect(shapeOf([[T0, 1], [T0 + 60, 2]], window)).toMatchObject({ slope: null, trend: null });
    expect(shapeOf([], window).shape).toEqual(Array(SHAPE_BUCKETS).fill(null));
  });

  it('stays finite for the largest doubles', () => {
    const huge = shapeOf(minutes((i) => (i % 2 === 0 ? 1.7e308 : 1.6e308)), window);
    expect(huge.shape.every((v) => v !== null && Number.isFinite(v))).toBe(true);
  });
});

describe('changesOf', () => {
  it('counts changes and drops and keeps the last of each', () => {
    const uptime = minutes((i) => (i < 40 ? 10_000 + i * 60 : (i - 40) * 60));
    const c = changesOf(uptime);
    expect(c.drops).toBe(1);
    expect(c.lastDrop).toEqual({ at: new Date((T0 + 40 * 60) * 1000).toISOString(), from: 10_000 + 39 * 60, to: 0 });
    expect(c.firstAt).toBe(new Date(T0 * 1000).toISOString());
    const flip = changesOf(minutes((i) => (i < 20 ? 1 : 0)));
    expect(flip).toMatchObject({ changes: 1, drops: 1, lastChange: { from: 1, to: 0 } });
    expect(changesOf(minutes(() => 3))).toMatchObject({ changes: 0, drops: 0, lastChange: null, lastDrop: null });
  });
});

describe('coverageOf and finitePoints', () => {
  it('counts missing evaluation steps and the longest stretch without a sample', () => {
    const times = minutes(() => 1)
      .map(([t]) => t)
      .filter((t) => t < T0 + 600 || t >= T0 + 1800);
    expect(coverageOf(times, window, 60)).toEqual({ missingPoints: 20, longestGapSeconds: 1200 });
    expect(coverageOf([], window, 60)).toEqual({ missingPoints: 61, longestGapSeconds: 3660 });
    expect(coverageOf(minutes(() => 1).map(([t]) => t), window, 60)).toEqual({ missingPoints: 0, longestGapSeconds: 0 });
  });

  it('drops NaN, ±Inf and unrepresentable times, and orders by time', () => {
    expect(finitePoints([[T0 + 60, 1], [T0, NaN], [T0 + 30, Infinity], [T0 + 10, -Infinity], [1e15, 2], [T0, 0]])).toEqual([[T0, 0], [T0 + 60, 1]]);
    expect(medianOf([3, NaN, 1, 2])).toBe(2);
    expect(medianOf([])).toBeNull();
  });
});
