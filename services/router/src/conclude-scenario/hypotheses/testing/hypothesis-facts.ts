import type { EvidenceFactV1 } from '@aoc/contracts';

/*
 * Evidence for the hypothesis specs (conditions.spec.ts, hypotheses.spec.ts,
 * hypothesis-brief.spec.ts): a one-hour window and metric_summary facts shaped as the executor
 * writes them, from 12 five-minute bucket values.
 */

export const FROM = '2026-11-03T09:40:00.000Z';
const TO = '2026-11-03T10:40:00.000Z';
export const WINDOW = { from: FROM, to: TO };
/** The instant `minute` minutes into the window. */
export const at = (minute: number) => new Date(Date.parse(FROM) + minute * 60_000).toISOString();

export interface SeriesSpec {
  family: string;
  metric?: string;
  unit?: string;
  bad?: 'up' | 'down' | 'both';
  shape: number[];
  prior?: number;
  score?: number;
  shiftMinute?: number;
  slope?: number;
  r2?: number;
}

/** A metric_summary fact as the executor writes it, from 12 bucket values. */
export function metric(s: SeriesSpec): EvidenceFactV1 {
  const half = s.shape.length / 2;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const max = Math.max(...s.shape);
  const min = Math.min(...s.shape);
  const baseline = median(s.shape.slice(0, half));
  const recent = median(s.shape.slice(half));
  return {
    queryId: s.family,
    kind: 'metric_summary',
    subject: `${s.family}{cluster=db-1}`,
    value: max,
    unit: null,
    attributes: {
      family: s.family,
      metric: s.metric ?? `${s.family}_metric`,
      badDirection: s.bad ?? 'up',
      unitKind: s.unit ?? 'count',
      min,
      first: s.shape[0],
      last: s.shape[s.shape.length - 1],
      mean: s.shape.reduce((a, b) => a + b, 0) / s.shape.length,
      maxAt: at(5 * s.shape.indexOf(max)),
      points: 240,
      anomalyScore: s.score ?? 0.5,
      baselineMedian: baseline,
      recentMedian: recent,
      direction: recent >= baseline ? 'up' : 'down',
      ...(s.shiftMinute !== undefined ? { shiftAt: at(s.shiftMinute) } : {}),
      shape: s.shape.join(','),
      ...(s.slope !== undefined ? { slopePerHour: s.slope, trendR2: s.r2 ?? 0.95 } : {}),
      ...(s.prior !== undefined ? { priorMedian: s.prior } : {}),
    },
  };
}

/** 12 buckets at one value. */
export const flat = (v: number) => Array.from({ length: 12 }, () => v);
/** A scenario thread over the window, as the router hands it to testHypotheses. */
export const thread = (scenario: string, families: string[], general = false) => ({ scenario, families, general, window: WINDOW, onset: null });
