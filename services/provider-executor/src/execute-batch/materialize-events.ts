import type { EvidenceFactV1, PlannedQueryV1 } from '@aoc/contracts';
import { classifyMetric, familiesInText } from '@aoc/metric-ontology';
import { METRIC_EVENT_RULES, type MetricEventRule } from './materialize-event-rules';
import { fmt, hhmm, labelText, seriesMetric, type StoredSeriesSummary } from './materialize-series';

/** At most this many event facts per query (a result keeps at most a few series anyway). */
const MAX_EVENTS_PER_QUERY = 10;
const SAFE_LABEL_VALUE = /[^A-Za-z0-9_:.-]/g;
const DAY_S = 86_400;

interface Found {
  at: string;
  from?: number;
  to?: number;
  /** The state held already at the window start and in the hour before it: `at` is then only the window start. */
  beforeWindow?: boolean;
  detail: string;
}

const compiled = METRIC_EVENT_RULES.map((rule) => ({ rule, name: rule.name ? new RegExp(`^(?:${rule.name})$`) : null }));

/** The first rule whose family, pattern, kind and name conditions the metric meets, or null. */
export function eventRuleFor(metric: string): MetricEventRule | null {
  const c = classifyMetric(metric);
  const hit = compiled.find(
    ({ rule, name }) =>
      (!rule.families || rule.families.includes(c.family)) &&
      (!rule.patternIds || (c.patternId !== null && rule.patternIds.includes(c.patternId))) &&
      (!rule.kind || rule.kind === c.kind) &&
      (!name || name.test(metric)),
  );
  return hit?.rule ?? null;
}

/** A label value as a short safe token (alert names and severities are operator text). */
export function safeLabel(value: string | undefined): string | null {
  if (!value) return null;
  const safe = value.replace(SAFE_LABEL_VALUE, '_').slice(0, 64);
  return safe.length > 0 ? safe : null;
}

/** The family an alert is about, from the words of its name (`PostgresqlTooManyConnections` → connections), else `unknown`. */
export function alertFamily(alertname: string): string {
  const words = alertname
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_:.-]+/g, ' ')
    .toLowerCase()
    .trim();
  // The family's words first ("too many connections"), then the name read as a metric name (`..._uptime`).
  return familiesInText(words)[0]?.family ?? classifyMetric(words.replace(/ +/g, '_')).family;
}

/** Leading and trailing empty buckets of a shape; null without a shape or without any point. */
function edges(shape: readonly (number | null)[] | undefined): { leading: number; trailing: number } | null {
  if (!shape || shape.every((v) => v === null)) return null;
  const leading = shape.findIndex((v) => v !== null);
  const trailing = shape.length - 1 - shape.map((v) => v !== null).lastIndexOf(true);
  return { leading, trailing };
}

function detect(rule: MetricEventRule, s: StoredSeriesSummary): Found | null {
  switch (rule.when) {
    case 'drop': {
      const d = s.lastDrop;
      if (!s.drops || !d || !(d.from > 0) || (d.from - d.to) / d.from < (rule.minRelativeChange ?? 0)) return null;
      return { at: d.at, from: d.from, to: d.to, detail: `fell from ${fmt(d.from)} to ${fmt(d.to)} at ${hhmm(d.at)}` };
    }
    case 'rise': {
      const c = s.lastChange;
      if (!s.changes || !c || s.first === null || s.last === null || !(s.last > s.first)) return null;
      // A start time is the epoch second of the start: exact, where it lies at most a day before the change was seen.
      const seen = Date.parse(c.at) / 1000;
      const at = rule.atFromValue && c.to <= seen && c.to >= seen - DAY_S ? new Date(c.to * 1000).toISOString() : c.at;
      return { at, from: s.first, to: s.last, detail: `moved later at ${hhmm(at)}` };
    }
    case 'flip': {
      const c = s.lastChange;
      if (!s.changes || !c) return null;
      return { at: c.at, from: c.from, to: c.to, detail: `changed from ${fmt(c.from)} to ${fmt(c.to)} at ${hhmm(c.at)}${s.changes > 1 ? ` (${s.changes} changes)` : ''}` };
    }
    case 'presence': {
      const e = edges(s.shape);
      if (!e || (e.leading === 0) === (e.trailing === 0)) return null;
      // Present the hour before the window and missing at its start is a gap, not an appearance.
      if (e.leading > 0) return (s.priorPoints ?? 0) > 0 || !s.firstAt ? null : { at: s.firstAt, from: 0, to: 1, detail: `appeared at ${hhmm(s.firstAt)}` };
      return s.lastAt ? { at: s.lastAt, from: 1, to: 0, detail: `vanished after ${hhmm(s.lastAt)}` } : null;
    }
    case 'differs': {
      if (s.first === null || s.last === null || s.first === s.last) return null;
      const at = s.lastChange?.at ?? 'n/a';
      return { at, from: s.first, to: s.last, detail: `changed from ${fmt(s.first)} to ${fmt(s.last)}${at !== 'n/a' ? ` at ${hhmm(at)}` : ''}` };
    }
    case 'present': {
      if (s.points === 0) return null;
      const before = s.shape?.[0] !== null && s.shape?.[0] !== undefined && (s.priorPoints ?? 0) > 0;
      const at = s.firstAt ?? s.maxAt ?? 'n/a';
      return { at, ...(before ? { beforeWindow: true } : {}), detail: before ? 'already firing before the window' : `firing from ${hhmm(at === 'n/a' ? null : at)}` };
    }
    case 'positive': {
      if (s.max === null || !(s.max > 0)) return null;
      return { at: s.maxAt ?? 'n/a', detail: `reached ${fmt(s.max)} at ${hhmm(s.maxAt)}` };
    }
  }
}

/**
 * Events read off the series of one metric result by the rules of `materialize-event-rules.ts`:
 * `kind: 'event'` facts with `source: 'metrics'`, the event, the metric's ontology family, when
 * (`at`, ISO or `n/a`), the metric, and where they apply the values before and after
 * (`from`/`to`) and an alert's name and severity.
 */
export function materializeEvents(queryId: string, planned: PlannedQueryV1 | undefined, series: readonly StoredSeriesSummary[]): EvidenceFactV1[] {
  const facts: EvidenceFactV1[] = [];
  const seen = new Set<string>();
  for (const s of series) {
    const metric = seriesMetric(planned, s);
    const rule = metric ? eventRuleFor(metric) : null;
    if (!metric || !rule) continue;
    const found = detect(rule, s);
    if (!found) continue;
    const alertname = rule.event === 'alert_firing' ? safeLabel(s.labels['alertname']) : null;
    const severity = rule.event === 'alert_firing' ? safeLabel(s.labels['severity']) : null;
    const key = `${rule.event}/${metric}/${alertname ?? ''}/${found.at}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const family = alertname ? alertFamily(alertname) : classifyMetric(metric).family;
    const { __name__: _name, ...labels } = s.labels;
    const where = labelText(labels);
    const what = alertname ? `${alertname}${severity ? ` (${severity})` : ''}` : `${metric}${where ? `{${where}}` : ''}`;
    facts.push({
      queryId,
      kind: 'event',
      subject: `${rule.event}: ${what} ${found.detail} (${rule.says})`.slice(0, 200),
      value: rule.event,
      unit: null,
      attributes: {
        source: 'metrics',
        event: rule.event,
        family,
        at: found.at,
        metric: metric.slice(0, 200),
        rule: rule.id,
        ...(found.from !== undefined ? { from: found.from } : {}),
        ...(found.to !== undefined ? { to: found.to } : {}),
        ...(alertname ? { alertname } : {}),
        ...(severity ? { severity } : {}),
        ...(found.beforeWindow ? { startedBeforeWindow: true } : {}),
      },
    });
    if (facts.length >= MAX_EVENTS_PER_QUERY) break;
  }
  return facts;
}
