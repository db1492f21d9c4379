import { MAX_QUERIES_PER_BATCH, type EvidenceRequestedV1 } from '@aoc/contracts';
import { familiesInText, familyLabel, isMetricFamilyId, type MetricFamilyId } from '@aoc/metric-ontology';
import type { PlanningCatalogV1, PlanningMetricV1 } from './planning-catalog';

/**
 * Family planning v1 (data first, engine below). The built-in planner maps the words of the
 * neutral question to metric families, then picks the discovered metrics of those families, so a
 * metric name no template knows is still planned when the ontology places it in a family.
 * v2 adds the event queries (firing alerts, changed settings) and the event families' units.
 */
export const FAMILY_PLAN_VERSION = 'family-plan-v2';

/** Families measured alongside an asked one: its limit, and the other side of a used/free pair. */
const COMPANIONS: Partial<Record<MetricFamilyId, readonly MetricFamilyId[]>> = {
  connections: ['connection_limit'],
  storage_free: ['storage_capacity', 'storage_used'],
  storage_used: ['storage_capacity', 'storage_free'],
  iops: ['iops_limit' as MetricFamilyId],
  memory: ['swap'],
};

/**
 * Context families, in order, measured with what budget is left: so the diagnosis can see which
 * change came first and name a co-occurring anomaly as a red herring.
 */
const CONTEXT_ORDER: readonly string[] = [
  'statement_latency', 'statement_rate', 'cpu', 'connections', 'connection_limit', 'active_sessions', 'memory', 'swap', 'storage_free', 'storage_used', 'iops', 'io_queue',
  'io_latency', 'io_throughput', 'replication_lag', 'lock_waits', 'transaction_age', 'locks', 'deadlocks', 'restarts', 'uptime', 'availability', 'failover', 'wal', 'checkpoints', 'network',
  'maintenance', 'errors', 'rows_read', 'rows_written', 'commits', 'rollbacks', 'cache_hit', 'io_credits', 'cpu_credits', 'iops_limit', 'storage_capacity',
];
/**
 * Families whose changes the executor reads as events (restart, role change: its
 * `materialize-event-rules.ts`). One unit of each is measured right after the asked families.
 */
const EVENT_FAMILIES: readonly string[] = ['uptime', 'restarts', 'failover'];
/** Prometheus' own series of alerts; the catalogue lists it where the target has alerting rules. */
const ALERTS_METRIC = 'ALERTS';
/** Name prefixes of exporters' settings gauges (postgres_exporter `pg_settings_*`, mysqld_exporter `mysql_global_variables_*`). */
const SETTINGS_PREFIXES: readonly string[] = ['pg_settings_', 'mysql_global_variables_'];

/** At most this many query units of metrics no family knows, ranked after the known ones by the executor. */
const MAX_UNKNOWN = 1;
const RATE_WINDOW = '5m';

export interface FamilyDraft {
  id: string;
  operation: 'promql_range';
  expression: string;
  purpose: string;
  family: string;
}

export interface FamilyPlan {
  drafts: FamilyDraft[];
  asked: string[];
  missing: string[];
}

/** Families the question asks to measure, with their companions, in order of mention. */
export function askedFamilies(question: string): string[] {
  const out: string[] = [];
  for (const { family } of familiesInText(question)) {
    for (const f of [family, ...(COMPANIONS[family] ?? [])]) if (isMetricFamilyId(f) && !out.includes(f)) out.push(f);
  }
  return out;
}

/** A CloudWatch-style statistic suffix, so variants of one metric count once. */
const STATISTIC = /_(average|maximum|minimum|sum|sample_count|p\d{2,3})$/i;
const baseOf = (name: string) => name.replace(STATISTIC, '').replace(/_(bucket|sum|count|total)$/, '');

/** Preference within a family: the statistic that shows the bad direction, then the plain name. */
function preference(m: PlanningMetricV1): number {
  const stat = STATISTIC.exec(m.name)?.[1]?.toLowerCase();
  if (!stat) return m.kind === 'histogram' && !m.name.endsWith('_bucket') ? 3 : 1;
  if ((m.badDirection === 'up' && stat === 'maximum') || (m.badDirection === 'down' && stat === 'minimum')) return 0;
  return stat === 'average' ? 1 : 2;
}

/** Metrics of a family, one per base name, best first. Histogram parts other than buckets are left out. */
function candidates(metrics: readonly PlanningMetricV1[], family: string): PlanningMetricV1[] {
  const usable = metrics.filter((m) => m.family === family && !(m.kind === 'histogram' && !m.name.endsWith('_bucket')));
  const sorted = [...usable].sort((a, b) => preference(a) - preference(b) || Number(b.primary === true) - Number(a.primary === true) || a.name.localeCompare(b.name));
  const seen = new Set<string>();
  const key = (m: PlanningMetricV1) => `${baseOf(m.name)}${m.matcher ?? ''}`;
  return sorted.filter((m) => (seen.has(key(m)) ? false : (seen.add(key(m)), true)));
}

/** Sum what partitions add up (connections by state, locks by mode); the worst side otherwise. */
function aggregator(m: Pick<PlanningMetricV1, 'badDirection' | 'unit'>): 'sum' | 'min' | 'max' {
  if (m.badDirection === 'down') return 'min';
  return m.unit === 'count' && m.badDirection === 'up' ? 'sum' : 'max';
}

/** The PromQL of one metric bound to the frozen target by its exact label matcher. */
export function familyExpression(m: PlanningMetricV1, label: string, target: string): string {
  const extra = m.matcher ? `,${m.matcher}` : '';
  const selector = `${m.name}{${label}="${target}"${extra}}`;
  // A state-split time counter (CPU seconds by mode): the percentage of all its time spent busy.
  if (m.aggregation === 'rate' && m.busyShare) {
    const busy = `${m.name}{${label}="${target}",${m.busyShare.label}!~"${m.busyShare.idle}"${extra}}`;
    return `100 * sum(rate(${busy}[${RATE_WINDOW}])) / clamp_min(sum(rate(${selector}[${RATE_WINDOW}])), 0.000001)`;
  }
  if (m.aggregation === 'quantile') return `histogram_quantile(0.99, sum by (le) (rate(${selector}[${RATE_WINDOW}])))`;
  // Time per operation (disk seconds per read), not time per second: the rate over the operations' rate.
  if (m.aggregation === 'rate' && m.per) return `sum(rate(${selector}[${RATE_WINDOW}])) / clamp_min(sum(rate(${m.per}{${label}="${target}"}[${RATE_WINDOW}])), 0.001)`;
  if (m.aggregation === 'rate') return `sum(rate(${selector}[${RATE_WINDOW}]))`;
  return `${aggregator(m)}(${selector})`;
}

/**
 * Several gauges of one family in one query, one series per metric name (`by (__name__)`), so a
 * family with many metrics (per-core CPU, a dozen I/O counters) costs one entry of the batch and
 * the executor ranks its series by how far each moved from its own baseline.
 */
export function groupedExpression(metrics: readonly PlanningMetricV1[], label: string, target: string): string {
  if (metrics.length === 1) return familyExpression(metrics[0], label, target);
  return `${aggregator(metrics[0])} by (__name__) ({__name__=~"${metrics.map((m) => m.name).join('|')}",${label}="${target}"})`;
}

/** Metrics of one gauge group, at most this many (the regex stays short and the result bounded). */
const MAX_GROUP = 8;

/** The query units of a family, best first: the one with its primary metric, its gauges grouped by aggregator, then each counter or histogram alone. */
function unitsOf(metrics: readonly PlanningMetricV1[], family: string): PlanningMetricV1[][] {
  const all = candidates(metrics, family);
  const groups = new Map<string, PlanningMetricV1[]>();
  const singles: PlanningMetricV1[][] = [];
  for (const m of all) {
    // A split name is read through its own matcher, never in a group by name.
    if (m.aggregation !== 'value' || m.matcher) {
      singles.push([m]);
      continue;
    }
    // One unit per query: the executor keeps a query's largest series, and bytes would crowd out seconds.
    const key = `${aggregator(m)}:${m.unit}`;
    const group = groups.get(key) ?? [];
    if (group.length < MAX_GROUP) group.push(m);
    groups.set(key, group);
  }
  // The unit holding the family's representative metric goes first (busy CPU seconds before load averages).
  const units = [...groups.values(), ...singles];
  return [...units.filter((u) => u.some((m) => m.primary === true)), ...units.filter((u) => !u.some((m) => m.primary === true))];
}

function slug(family: string, n: number): string {
  const base = family.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 56) || 'metric';
  return n === 1 ? base : `${base}-${n}`;
}

/** Firing alerts of the target, one series per alert name and severity (the executor makes each an `alert_firing` event). */
export function alertsExpression(label: string, target: string): string {
  return `max by (alertname, severity) (${ALERTS_METRIC}{alertstate="firing",${label}="${target}"})`;
}

/**
 * The settings gauges whose value at the end of the window differs from the one at its start, over
 * the window, one series per setting (`by (__name__)`; the executor makes each a `config_change`
 * event). `@ start()` and `@ end()` pin the two reads to the window, so the package reads no
 * earlier hour for it.
 */
export function changedSettingsExpression(prefixes: readonly string[], label: string, target: string): string {
  const selector = `{__name__=~"${prefixes.map((p) => `${p}.+`).join('|')}",${label}="${target}"}`;
  const byName = (s: string) => `max by (__name__) (${s})`;
  return `${byName(selector)} and on(__name__) (${byName(`${selector} @ end()`)} != on(__name__) ${byName(`${selector} @ start()`)})`;
}

/** The event queries the catalogue supports: firing alerts where it lists `ALERTS`, changed settings where it lists settings gauges. */
function eventDrafts(metrics: readonly PlanningMetricV1[], label: string, target: string): FamilyDraft[] {
  const names = new Set(metrics.map((m) => m.name));
  const prefixes = SETTINGS_PREFIXES.filter((p) => metrics.some((m) => m.name.startsWith(p)));
  return [
    ...(names.has(ALERTS_METRIC) ? [{ id: 'alerts_firing', operation: 'promql_range' as const, expression: alertsExpression(label, target), purpose: 'alerts firing for the target (ALERTS)', family: 'unknown' }] : []),
    ...(prefixes.length > 0
      ? [{ id: 'settings_changed', operation: 'promql_range' as const, expression: changedSettingsExpression(prefixes, label, target), purpose: `settings changed within the window (${prefixes.map((p) => `${p}*`).join(', ')})`, family: 'unknown' }]
      : []),
  ];
}

/**
 * Picks at most 12 queries: the first unit of every asked family; then the event queries (firing
 * alerts, changed settings) and the first unit of each event family (uptime, restarts, failover);
 * a second unit of each asked family; then the first unit of each context family and one group of
 * unknown metrics. A unit is a group of a family's gauges or one counter or histogram. Metrics an
 * event query reads are not planned again as unknown metrics.
 */
export function planByFamily(request: Pick<EvidenceRequestedV1, 'question' | 'target'>, catalog: PlanningCatalogV1, budget = MAX_QUERIES_PER_BATCH, options: { askedOnly?: boolean } = {}): FamilyPlan {
  const asked = askedFamilies(request.question);
  const label = catalog.targetLabel ?? 'cluster';
  const target = request.target ?? '';
  const events = eventDrafts(catalog.metrics, label, target);
  const byEvent = (m: PlanningMetricV1) => events.length > 0 && (m.name === ALERTS_METRIC || SETTINGS_PREFIXES.some((p) => m.name.startsWith(p)));
  const picked: (PlanningMetricV1[] | FamilyDraft)[] = [];
  const take = (unit: PlanningMetricV1[] | FamilyDraft | undefined) => {
    if (unit && (!Array.isArray(unit) || unit.length > 0) && picked.length < budget && !picked.includes(unit)) picked.push(unit);
  };
  const present = new Set(catalog.metrics.map((m) => m.family));
  const units = new Map<string, PlanningMetricV1[][]>([...present].map((f) => [f, unitsOf(catalog.metrics.filter((m) => f !== 'unknown' || !byEvent(m)), f)]));
  for (const f of asked) take(units.get(f)?.[0]);
  // A follow-up round that names its families (open hypotheses) reads those only: the first round read events and context.
  if (!options.askedOnly) {
    for (const d of events) take(d);
    for (const f of EVENT_FAMILIES) if (!asked.includes(f)) take(units.get(f)?.[0]);
  }
  for (const f of asked) take(units.get(f)?.[1]);
  if (!options.askedOnly) {
    for (const f of CONTEXT_ORDER) if (!asked.includes(f)) take(units.get(f)?.[0]);
    for (const unit of (units.get('unknown') ?? []).slice(0, MAX_UNKNOWN)) take(unit);
  }
  const counts = new Map<string, number>();
  const drafts = picked.map((unit): FamilyDraft => {
    if (!Array.isArray(unit)) return unit;
    const family = unit[0].family;
    const n = (counts.get(family) ?? 0) + 1;
    counts.set(family, n);
    const names = unit.map((m) => m.name).join(', ');
    return { id: slug(family, n), operation: 'promql_range' as const, expression: groupedExpression(unit, label, target), purpose: `${familyLabel(family)} (${names})`.slice(0, 300), family };
  });
  // Companions (limits) are measured when present but are not "missing" when absent.
  const named = new Set<string>(familiesInText(request.question).map((f) => f.family));
  const missing = asked.filter((f) => !present.has(f) && named.has(f));
  return { drafts, asked, missing };
}
