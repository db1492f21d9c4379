// Diagnosis benchmark (bench/diagnosis/): the reference ranker, "family of the most anomalous
// metric". It sees the raw series of the case inside the analysis window (what a perfect query of
// everything would return), scores every series with the providers' own robust-z `scoreAnomaly`
// (counters by their per-interval differences), keeps each metric's best series, and names the
// family of the top metric (`classifyMetric` of @aoc/metric-ontology). The symptom metric is
// excluded. With nothing at or above the shift threshold it names no family ("none").
import { classifyMetric } from '@aoc/metric-ontology';
import { ANOMALY_Z_THRESHOLD, scoreAnomaly, type AnomalyWindow } from '@aoc/providers';
import type { FixtureSeries } from '@aoc/providers/testing';

export interface ReferencePick {
  metric: string | null;
  score: number | null;
  /** Family of the top metric; "none" below the threshold. */
  family: string;
}

/** Per-interval differences of a counter (a drop is a reset: the new value counts from zero). */
export function counterDeltas(points: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 1; i < points.length; i++) {
    const d = points[i][1] - points[i - 1][1];
    out.push([points[i][0], d >= 0 ? d : points[i][1]]);
  }
  return out;
}

export function referencePick(series: readonly FixtureSeries[], window: AnomalyWindow, exclude: ReadonlySet<string>): ReferencePick {
  let best: { metric: string; score: number } | null = null;
  for (const s of series) {
    if (exclude.has(s.metric)) continue;
    const inWindow = s.samples.filter(([t]) => t >= window.start && t <= window.end).sort((a, b) => a[0] - b[0]);
    const points = s.type === 'counter' ? counterDeltas(inWindow) : inWindow;
    const score = scoreAnomaly(points, window).anomalyScore;
    if (score === null) continue;
    if (!best || score > best.score || (score === best.score && s.metric < best.metric)) best = { metric: s.metric, score };
  }
  if (!best) return { metric: null, score: null, family: 'none' };
  return { metric: best.metric, score: best.score, family: best.score >= ANOMALY_Z_THRESHOLD ? classifyMetric(best.metric).family : 'none' };
}
