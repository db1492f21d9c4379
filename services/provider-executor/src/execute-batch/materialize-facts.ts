import type { EvidenceFactV1, PlannedQueryV1 } from '@aoc/contracts';
import type { QueryEvidence } from '@aoc/providers';
import { z } from 'zod';
import { asSeriesResult, materializeStatements } from './materialize-statements';

const SeriesSummary = z.object({
  labels: z.record(z.string(), z.string()),
  points: z.number(),
  first: z.number().nullable(),
  last: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  maxAt: z.string().nullable(),
});
const MetricResult = z.object({ seriesCount: z.number(), series: z.array(SeriesSummary) });

const SAFE_LABELS = new Set(['cluster', 'component', 'type', 'changefeed', 'job', 'le', 'store', 'db', 'sql_type', 'result']);

function fmt(n: number | null): string {
  if (n === null) return 'n/a';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 0.001 || abs >= 1e6)) return n.toExponential(2);
  return String(Math.round(n * 1000) / 1000);
}

function hhmm(iso: string | null): string {
  return iso ? `${iso.slice(11, 16)}Z` : 'n/a';
}

function labelText(labels: Record<string, string>): string {
  const safe = Object.entries(labels).filter(([k]) => SAFE_LABELS.has(k));
  return safe.map(([k, v]) => `${k}=${v}`).join(',');
}

export interface Materialized {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
}

/**
 * Deterministic extraction of compact facts from allowed result fields: peak, when, start, end
 * and baseline of each metric series; counts for other results. Never "query succeeded".
 */
export function materializeFacts(queries: readonly PlannedQueryV1[], evidence: readonly QueryEvidence[]): Materialized {
  const facts: EvidenceFactV1[] = [];
  const observations: string[] = [];
  const gaps: string[] = [];
  for (const e of evidence) {
    const planned = queries.find((q) => q.id === e.id);
    const purpose = planned?.purpose ?? e.id;
    if (e.status === 'failed') {
      gaps.push(`${purpose} (${e.id}) could not be read: ${e.error_code ?? 'failed'}${e.detail_error ? ` (${e.detail_error.slice(0, 160)})` : ''}`);
      continue;
    }
    // TopSQL and slow-query results (also when empty: no slow statement is a fact, not a gap).
    const statements = materializeStatements(e.id, purpose, e.result);
    if (statements) {
      facts.push(...statements.facts);
      observations.push(...statements.observations);
      gaps.push(...statements.gaps);
      continue;
    }
    if (e.status === 'empty') {
      gaps.push(`${purpose} (${e.id}) returned no data for the window`);
      facts.push({ queryId: e.id, kind: 'count', subject: `${e.id}: series`, value: 0, unit: null, attributes: {} });
      continue;
    }
    const metric = MetricResult.safeParse(asSeriesResult(e.result));
    if (!metric.success) {
      facts.push({ queryId: e.id, kind: 'note', subject: e.id, value: 'result shape not summarised by this build', unit: null, attributes: {} });
      gaps.push(`${purpose} (${e.id}) returned a result this build cannot summarise`);
      continue;
    }
    const top = metric.data.series.slice(0, 3);
    for (const s of top) {
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
        },
      });
    }
    const lead = top[0];
    if (!lead) continue;
    const rise = lead.first !== null && lead.max !== null && lead.first > 0 ? lead.max / lead.first : null;
    const change = rise !== null && rise >= 1.5 ? `, ${fmt(rise)}x its starting value` : '';
    const spread =
      metric.data.seriesCount > 1 && top[1] && top[1].max !== null && lead.max !== null && top[1].max > 0 && lead.max / top[1].max >= 1.5
        ? `; the next series peaks at ${fmt(top[1].max)}${labelText(top[1].labels) ? ` (${labelText(top[1].labels)})` : ''}`
        : metric.data.seriesCount > 1
          ? `; ${metric.data.seriesCount} series peak at similar levels`
          : '';
    observations.push(
      `${purpose}: peak ${fmt(lead.max)} at ${hhmm(lead.maxAt)} (start ${fmt(lead.first)}, end ${fmt(lead.last)}, mean ${fmt(lead.mean)}${change})${labelText(lead.labels) ? ` on ${labelText(lead.labels)}` : ''}${spread}.`.slice(0, 500),
    );
  }
  return { facts: facts.slice(0, 200), observations: observations.slice(0, 20), gaps: gaps.slice(0, 20) };
}
