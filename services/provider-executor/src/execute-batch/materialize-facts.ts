import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import { classifyMetric, formatValue } from '@aoc/metric-ontology';
import { ANOMALY_Z_THRESHOLD, mostAnomalousIndex, selectorLabels, type QueryEvidence } from '@aoc/providers';
import { materializeEvents } from './materialize-events';
import { materializeChannelNote, materializeLogs } from './materialize-logs';
import { materializeMySqlStats } from './materialize-mysql-stats';
import { materializePgStats } from './materialize-pg-stats';
import { fmt as plainNumber, hhmm, labelText, noSeriesAtAll, queryMetricNames, seriesQuality, shapeText, StoredMetricResult, type StoredSeriesSummary as SeriesSummary } from './materialize-series';
import { asSeriesResult, materializeStatements } from './materialize-statements';

/** The longest string attribute a fact may carry (from the contract). */
const MAX_ATTRIBUTE_LENGTH = maxStringAttribute();

function maxStringAttribute(): number {
  const values = EvidenceFactV1.shape.attributes.unwrap().valueType;
  for (const option of values.options) {
    if (option.type === 'string' && option.maxLength !== null) return option.maxLength;
  }
  return 200;
}

/** The anomaly statistics of a series as fact attributes; a statistic the package could not compute is left out. */
function anomalyAttributes(s: SeriesSummary): Record<string, string | number> {
  const stats = { anomalyScore: s.anomalyScore, baselineMedian: s.baselineMedian, recentMedian: s.recentMedian, direction: s.direction, shiftAt: s.shiftAt };
  return Object.fromEntries(Object.entries(stats).filter((e): e is [string, string | number] => e[1] !== null && e[1] !== undefined));
}

/**
 * Shape, trend and prior-hour level of a range series as fact attributes: `shape` (12 bucket means,
 * comma-separated, `null` for an empty bucket), `slopePerHour`, `trendR2`, `priorMedian`, and the
 * data quality counts `nonFinitePoints` and `missingPoints` when above 0. Each is left out when the
 * package did not compute it (recordings made before these statistics, instant results).
 */
function shapeAttributes(s: SeriesSummary): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (s.shape) out['shape'] = shapeText(s.shape, MAX_ATTRIBUTE_LENGTH);
  if (typeof s.slope === 'number') out['slopePerHour'] = s.slope;
  if (typeof s.trend === 'number') out['trendR2'] = s.trend;
  if (typeof s.priorMedian === 'number') out['priorMedian'] = s.priorMedian;
  if (s.nonFinitePoints) out['nonFinitePoints'] = s.nonFinitePoints;
  if (s.missingPoints) out['missingPoints'] = s.missingPoints;
  return out;
}

/**
 * A strong deviation (score at or above the threshold) in plain words, or null. "Rose from … to …"
 * when the recent median itself moved beyond the threshold; otherwise an excursion (a spike, or a
 * ramp still under way) with the recent median given alongside. The recent median's own z is
 * bounded from below with the series extreme (max going up, min going down), which is exact when
 * the extreme lies in the recent window.
 */
function deviationText(s: SeriesSummary, fmt: (n: number | null) => string): string | null {
  const { anomalyScore: score, baselineMedian: base, recentMedian: recent, direction } = s;
  if (typeof score !== 'number' || score < ANOMALY_Z_THRESHOLD || typeof base !== 'number' || typeof recent !== 'number' || !direction) return null;
  const extreme = direction === 'up' ? (s.max ?? base) - base : base - (s.min ?? base);
  const medianZ = extreme > 0 ? (Math.abs(recent - base) * score) / extreme : 0;
  const sustained = medianZ >= ANOMALY_Z_THRESHOLD && Math.sign(recent - base) === (direction === 'up' ? 1 : -1);
  return sustained
    ? `${direction === 'up' ? 'rose' : 'fell'} from a baseline median of ${fmt(base)} to ${fmt(recent)} (robust z ${plainNumber(score)}, shift at ${hhmm(s.shiftAt ?? null)})`
    : `${direction === 'up' ? 'rose above' : 'dropped below'} its baseline median of ${fmt(base)} (robust z ${plainNumber(score)}, first at ${hhmm(s.shiftAt ?? null)}; recent median ${fmt(recent)})`;
}

/** Units a customer reads with the number (`97%`, `12 MiB`, `310 ms`); counts and unknown units stay plain. */
const SHOWN_UNITS: ReadonlySet<string> = new Set(['percent', 'ratio', 'bytes', 'bytes_per_second', 'seconds', 'per_second']);

/**
 * How an observation prints a query's values: in its family's unit when the query reads one metric
 * (a query grouped by metric name may mix units), plain otherwise.
 */
function valueFormat(planned: PlannedQueryV1 | undefined, family: Record<string, string>): (n: number | null) => string {
  const unit = family['unitKind'];
  // CPU seconds per second are busy cores, not a duration: "3.6 s" would mislead.
  if (!planned || !unit || !SHOWN_UNITS.has(unit) || planned.expression.includes('__name__') || (family['family'] === 'cpu' && unit === 'seconds')) return plainNumber;
  const scale = Number(family['unitScale'] ?? 1);
  return (n) => (n === null ? plainNumber(n) : formatValue(n * scale, unit));
}

/**
 * The metric family a query reads, from the first metric name of its PromQL (ontology
 * classification), so diagnosis rules reason over families whatever the exporter's names.
 */
export function familyAttributes(planned: PlannedQueryV1 | undefined, seriesName?: string): Record<string, string> {
  if (!planned || (planned.operation !== 'promql_range' && planned.operation !== 'promql_instant')) return {};
  // A grouped query (`by (__name__)`) names each series' metric in its labels.
  const name = seriesName ?? queryMetricNames(planned)[0];
  if (!name) return {};
  // A split name (handlers_total{handler=~"commit"}) is classified with the matchers the query put on it.
  const c = classifyMetric(name, seriesName ? {} : selectorLabels(planned.expression, name));
  // A busy-share counter is a percentage only when the query excluded its idle states.
  const unit = c.busyShare && !planned.expression.includes(`${c.busyShare.label}!~`) ? 'unknown' : c.unit;
  // `scale` turns a raw sample into the family's unit (KB → bytes, ms → seconds); 1 is left out.
  return { family: c.family, metric: name.slice(0, 200), badDirection: c.badDirection, unitKind: unit, ...(c.scale !== 1 ? { unitScale: String(c.scale) } : {}) };
}

export interface Materialized {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
}

/**
 * Deterministic extraction of compact facts from allowed result fields: peak, when, start, end
 * and baseline of each metric series, with its anomaly statistics; counts for other results.
 * Never "query succeeded". Per query the facts are the top three series by max (the first is the
 * lead series mechanism rules read), then the most anomalous series of the whole result when it
 * is not among them. Observations, one per query, are ordered by the query's highest anomaly
 * score, most anomalous first (queries without a score keep their order, last).
 */
export function materializeFacts(queries: readonly PlannedQueryV1[], evidence: readonly QueryEvidence[]): Materialized {
  const facts: EvidenceFactV1[] = [];
  const observations: { text: string; score: number }[] = [];
  const gaps: string[] = [];
  for (const e of evidence) {
    const planned = queries.find((q) => q.id === e.id);
    const purpose = planned?.purpose ?? e.id;
    const family = familyAttributes(planned);
    if (e.status === 'failed') {
      // A metric result larger than the provider's response limit holds too many series to read whole.
      const tooMany = e.error_code === 'PROVIDER.OUTPUT_TOO_LARGE' && (planned?.operation === 'promql_range' || planned?.operation === 'promql_instant') ? '; the target has more series for it than one read holds: aggregate over fewer labels' : '';
      gaps.push(`${purpose} (${e.id}) could not be read: ${e.error_code ?? 'failed'}${e.detail_error ? ` (${e.detail_error.slice(0, 160)})` : ''}${tooMany}`);
      continue;
    }
    // TopSQL and slow-query results, PostgreSQL statistics (`sql`) and log summaries (`logs`), also
    // when empty: no slow statement, no blocked session or no error line is a fact, not a gap.
    const statements = materializeStatements(e.id, purpose, e.result) ?? materializeMySqlStats(e.id, purpose, e.result) ?? materializePgStats(e.id, purpose, e.result) ?? materializeLogs(e.id, purpose, e.result) ?? materializeChannelNote(e.id, purpose, e.result);
    if (statements) {
      facts.push(...statements.facts);
      observations.push(...statements.observations.map((text) => ({ text, score: -1 })));
      gaps.push(...statements.gaps);
      continue;
    }
    if (e.status === 'empty') {
      gaps.push(
        noSeriesAtAll(planned)
          ? `${purpose} (${e.id}): the provider holds no series at all for the target in the window, so no metric of it could be determined`
          : `${purpose} (${e.id}) returned no data for the window`,
      );
      facts.push({ queryId: e.id, kind: 'count', subject: `${e.id}: series`, value: 0, unit: null, attributes: { ...family } });
      continue;
    }
    const metric = StoredMetricResult.safeParse(asSeriesResult(e.result));
    if (!metric.success) {
      facts.push({ queryId: e.id, kind: 'note', subject: e.id, value: 'result shape not summarised by this build', unit: null, attributes: {} });
      gaps.push(`${purpose} (${e.id}) returned a result this build cannot summarise`);
      continue;
    }
    const fmt = valueFormat(planned, family);
    const top = metric.data.series.slice(0, 3);
    const mostIndex = mostAnomalousIndex(metric.data.series);
    const most = mostIndex === null ? null : metric.data.series[mostIndex];
    for (const s of most && (mostIndex ?? 0) >= top.length ? [...top, most] : top) {
      facts.push({
        queryId: e.id,
        kind: 'metric_summary',
        subject: `${e.id}{${labelText(s.labels)}}`.slice(0, 200),
        value: s.max,
        unit: null,
        attributes: {
          min: s.min ?? 'n/a',
          first: s.first ?? 'n/a',
          last: s.last ?? 'n/a',
          mean: s.mean ?? 'n/a',
          maxAt: s.maxAt ?? 'n/a',
          points: s.points,
          ...(s.labels['__name__'] ? familyAttributes(planned, s.labels['__name__']) : family),
          ...anomalyAttributes(s),
          ...shapeAttributes(s),
        },
      });
    }
    facts.push(...materializeEvents(e.id, planned, metric.data.series));
    gaps.push(...seriesQuality(e.id, purpose, planned, metric.data));
    const lead = top[0];
    if (!lead) continue;
    const rise = lead.first !== null && lead.max !== null && lead.first > 0 ? lead.max / lead.first : null;
    const change = rise !== null && rise >= 1.5 ? `, ${plainNumber(rise)}x its starting value` : '';
    const spread =
      metric.data.seriesCount > 1 && top[1] && top[1].max !== null && lead.max !== null && top[1].max > 0 && lead.max / top[1].max >= 1.5
        ? `; the next series peaks at ${fmt(top[1].max)}${labelText(top[1].labels) ? ` (${labelText(top[1].labels)})` : ''}`
        : metric.data.seriesCount > 1
          ? `; ${metric.data.seriesCount} series peak at similar levels`
          : '';
    const deviation = most ? deviationText(most, fmt) : null;
    const on = (s: SeriesSummary) => (labelText(s.labels) ? ` on ${labelText(s.labels)}` : '');
    // A series that rose yet scores low rose early: say so rather than "no shift", which reads as "flat".
    const calm =
      typeof most?.anomalyScore !== 'number'
        ? ''
        : change
          ? `; the rise happened within the first half of the window, so it does not stand out against that half (${metric.data.seriesCount > 1 ? 'highest ' : ''}robust z ${plainNumber(most.anomalyScore)})`
          : `; ${metric.data.seriesCount > 1 ? 'no series shifts between the first and second half of the window (highest robust z' : 'no shift between the first and second half of the window (robust z'} ${plainNumber(most.anomalyScore)})`;
    const text =
      most && deviation
        ? `${purpose}${on(most)} ${deviation}; ${most === lead ? 'peak' : `the highest series${on(lead)} peaks at`} ${fmt(lead.max)} at ${hhmm(lead.maxAt)}.`
        : `${purpose}: peak ${fmt(lead.max)} at ${hhmm(lead.maxAt)} (start ${fmt(lead.first)}, end ${fmt(lead.last)}, mean ${fmt(lead.mean)}${change})${on(lead)}${spread}${calm}.`;
    observations.push({ text: text.slice(0, 500), score: most?.anomalyScore ?? -1 });
  }
  // Array.prototype.sort is stable: equal scores keep the query order.
  const ranked = [...observations].sort((a, b) => b.score - a.score).map((o) => o.text);
  return { facts: facts.slice(0, 200), observations: ranked.slice(0, 20), gaps: gaps.slice(0, 20) };
}
