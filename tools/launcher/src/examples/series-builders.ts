import type { FixtureSeries } from '@aoc/providers/testing';

/** Building blocks of the synthetic incident series behind the bundled examples. */
export const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '+Inf'] as const;

/** Cumulative share of statements at or below each bucket bound. */
export type Distribution = Record<(typeof BUCKETS)[number], number>;

/** Epoch seconds of every minute in [from, to]. */
export function minutes(fromIso: string, toIso: string): number[] {
  const out: number[] = [];
  for (let t = Date.parse(fromIso) / 1000; t <= Date.parse(toIso) / 1000; t += 60) out.push(t);
  return out;
}

/** Counter series from a per-minute rate function. */
export function counter(metric: string, labels: Record<string, string>, times: number[], perSecond: (t: number) => number): FixtureSeries {
  let total = 0;
  return {
    metric,
    type: 'counter',
    labels,
    samples: times.map((t) => {
      total += perSecond(t) * 60;
      return [t, Math.round(total)];
    }),
  };
}

/** Cumulative bucket counters of a histogram from a rate and a distribution over time. */
export function histogram(metric: string, labels: Record<string, string>, times: number[], perSecond: (t: number) => number, distribution: (t: number) => Distribution): FixtureSeries[] {
  return BUCKETS.map((le) => counter(metric, { ...labels, le }, times, (t) => perSecond(t) * distribution(t)[le]));
}

/** Gauge series from a value function. */
export function gauge(metric: string, labels: Record<string, string>, times: number[], value: (t: number) => number): FixtureSeries {
  return { metric, type: 'gauge', labels, samples: times.map((t) => [t, value(t)]) };
}
