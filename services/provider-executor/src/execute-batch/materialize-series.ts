import type { PlannedQueryV1 } from '@aoc/contracts';
import { classifyMetric } from '@aoc/metric-ontology';
import { metricNamesOf, SeriesSummarySchema } from '@aoc/providers';
import { z } from 'zod';

/**
 * A package's series summary as recorded: results recorded before anomaly scoring lack its five
 * fields, and those recorded before shapes lack every field after `shiftAt` (already optional).
 */
export const StoredSeriesSummary = SeriesSummarySchema.partial({ baselineMedian: true, recentMedian: true, anomalyScore: true, direction: true, shiftAt: true });
export type StoredSeriesSummary = z.infer<typeof StoredSeriesSummary>;

/** A metric result as the executor reads it; the bounds fields are set only by packages that report them. */
export const StoredMetricResult = z.object({
  seriesCount: z.number(),
  series: z.array(StoredSeriesSummary),
  omittedSeries: z.number().optional(),
  scoredSeries: z.number().optional(),
  clampedWindow: z.object({ from: z.string(), to: z.string() }).optional(),
  stepSeconds: z.number().optional(),
});
export type StoredMetricResult = z.infer<typeof StoredMetricResult>;

const SAFE_LABELS = new Set(['cluster', 'component', 'type', 'changefeed', 'job', 'le', 'store', 'db', 'sql_type', 'result']);
export const METRIC_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*$/;

export function fmt(n: number | null): string {
  if (n === null) return 'n/a';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 0.001 || abs >= 1e6)) return n.toExponential(2);
  return String(Math.round(n * 1000) / 1000);
}

export function hhmm(iso: string | null): string {
  return iso ? `${iso.slice(11, 16)}Z` : 'n/a';
}

export function labelText(labels: Record<string, string>): string {
  const safe = Object.entries(labels).filter(([k]) => SAFE_LABELS.has(k));
  const name = labels['__name__'] && METRIC_NAME.test(labels['__name__']) ? [labels['__name__']] : [];
  return [...name, ...safe.map(([k, v]) => `${k}=${v}`)].join(',');
}

/** A number in at most four significant digits, as short as JavaScript writes it (`1235000`, `1.235e-7`). */
export function compactNumber(n: number): string {
  return String(Number(n.toPrecision(4)));
}

/** The 12 bucket means as one attribute: comma-separated, `null` for an empty bucket; within the contract's attribute length. */
export function shapeText(shape: readonly (number | null)[], maxLength: number): string {
  return shape
    .map((v) => (v === null ? 'null' : compactNumber(v)))
    .join(',')
    .slice(0, maxLength);
}

/** Functions over a counter that already account for its resets. */
const RESET_AWARE = /\b(rate|irate|increase|resets|changes|delta|idelta|deriv)\s*\(/;

/** Metric names a planned PromQL query reads, in order (none for other operations or PromQL that does not parse). */
export function queryMetricNames(planned: PlannedQueryV1 | undefined): string[] {
  if (!planned || (planned.operation !== 'promql_range' && planned.operation !== 'promql_instant')) return [];
  try {
    return metricNamesOf(planned.expression);
  } catch {
    return [];
  }
}

/** The metric a series is of: its own `__name__` (grouped queries), else the first the query reads. */
export function seriesMetric(planned: PlannedQueryV1 | undefined, s: Pick<StoredSeriesSummary, 'labels'>): string | null {
  const own = s.labels['__name__'];
  if (own && METRIC_NAME.test(own)) return own;
  return queryMetricNames(planned)[0] ?? null;
}

/** An empty result of a query that names no metric (`count({label="target"})`): the provider holds nothing for the target. */
export function noSeriesAtAll(planned: PlannedQueryV1 | undefined): boolean {
  return !!planned && (planned.operation === 'promql_range' || planned.operation === 'promql_instant') && queryMetricNames(planned).length === 0;
}

/**
 * What a metric result could not establish, in words: a window cut to the provider's limit, a
 * raised step, a result too large to summarise whole, samples that were NaN or ±Inf, steps without
 * samples and counter resets read raw. (A unit the ontology does not know is the metric fact's
 * `unitKind: 'unknown'`: values are raw samples, not converted.)
 */
export function seriesQuality(queryId: string, purpose: string, planned: PlannedQueryV1 | undefined, result: StoredMetricResult): string[] {
  const gaps: string[] = [];
  const at = `${purpose} (${queryId})`;
  if (result.clampedWindow) gaps.push(`${at}: the window is longer than the provider's metrics limit; only ${result.clampedWindow.from} to ${result.clampedWindow.to} was read, earlier changes are not seen`);
  if (result.stepSeconds !== undefined) gaps.push(`${at}: read at a ${result.stepSeconds} s step (coarser than planned) to stay within the points the provider serves per series`);
  if (result.scoredSeries !== undefined) {
    gaps.push(`${at} returned ${result.seriesCount} series; only ${result.scoredSeries} (the highest peaks and the largest shifts) were summarised and ${result.series.length} kept, so a change on another series may be missed`);
  }
  const nonFinite = result.series.reduce((n, s) => n + (s.nonFinitePoints ?? 0), 0);
  if (nonFinite > 0) {
    const none = result.series.every((s) => s.points === 0);
    gaps.push(none ? `${at} returned only NaN or infinite samples (${nonFinite}): its level could not be determined` : `${at}: ${nonFinite} NaN or infinite sample(s) were left out of the statistics`);
  }
  const gappy = result.series.filter((s) => (s.missingPoints ?? 0) > 0.1 * (s.points + (s.missingPoints ?? 0) + (s.nonFinitePoints ?? 0)));
  if (gappy.length > 0) {
    const worst = gappy.reduce((a, b) => ((b.longestGapSeconds ?? 0) > (a.longestGapSeconds ?? 0) ? b : a));
    gaps.push(`${at}: ${gappy.length} series lack samples for part of the window (up to ${worst.missingPoints} steps, longest gap ${Math.round((worst.longestGapSeconds ?? 0) / 60)} min); their shape shows the gaps as null`);
  }
  const raw = planned && !RESET_AWARE.test(planned.expression);
  const reset = raw ? result.series.find((s) => (s.drops ?? 0) > 0 && classifyMetric(seriesMetric(planned, s) ?? '').kind === 'counter') : undefined;
  if (reset) gaps.push(`${at}: the counter ${seriesMetric(planned, reset)} was reset ${reset.drops} time(s) in the window (last at ${hhmm(reset.lastDrop?.at ?? null)}); raw values across a reset are not comparable`);
  return gaps;
}
