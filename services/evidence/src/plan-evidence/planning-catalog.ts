import type { EvidenceCatalogListedV1, EvidenceRequestedV1, ProviderName } from '@aoc/contracts';
import { classifyMetric, labelSplits, type MetricClassification } from '@aoc/metric-ontology';
import { z } from 'zod';

/**
 * Providers whose package lists the metrics of a target (discovery). Their requests wait for the
 * catalogue before planning; the others plan from the query templates directly.
 */
export const DISCOVERY_PROVIDERS: readonly ProviderName[] = ['prometheus'];

export function needsDiscovery(request: EvidenceRequestedV1): boolean {
  return DISCOVERY_PROVIDERS.includes(request.provider) && request.target !== null;
}

/** One discovered metric as the planner sees it: name, label keys and its ontology classification. */
export const PlanningMetricV1 = z.object({
  name: z.string(),
  family: z.string(),
  kind: z.enum(['counter', 'gauge', 'histogram', 'summary']),
  aggregation: z.enum(['rate', 'value', 'quantile']),
  badDirection: z.enum(['up', 'down', 'both']),
  unit: z.string().default('unknown'),
  labelKeys: z.array(z.string()),
  /** The family's representative metric (ontology `primary`); older catalogues and models leave it out. */
  primary: z.boolean().optional(),
  /** The operations counter to divide the rate by (time per operation), when the target has it. */
  per: z.string().optional(),
  /** Read as the percentage of time outside the idle states of `label` (CPU busy %), when the series carry that label. */
  busyShare: z.object({ label: z.string(), idle: z.string() }).optional(),
  /** The label matcher of a split name (`handler=~"write|update|delete"`): the query reads only those series. */
  matcher: z.string().optional(),
});
export type PlanningMetricV1 = z.infer<typeof PlanningMetricV1>;

/** The catalogue in the planner's input (both engines get it). */
export const PlanningCatalogV1 = z.object({
  status: z.enum(['listed', 'empty', 'unsupported', 'failed']),
  targetLabel: z.string().nullable(),
  truncated: z.boolean(),
  failureCode: z.string().nullable(),
  metrics: z.array(PlanningMetricV1),
  /** What the target offers besides discovery (e.g. `sql`, `logs`); empty for old catalogues: metrics only. */
  operations: z.array(z.string()).optional(),
  /** The label every log stream selector must carry as `{<logsLabel>="<target>"}`; null: no logs. */
  logsLabel: z.string().nullable().optional(),
  /**
   * The SQL server behind `sql` (null: the target offers no `sql`). The catalogue does not carry it
   * yet, so it is read from the metric names: a target whose exporter names only MySQL/MariaDB
   * metrics (`mysql_*`, `mariadb_*`, `mysqld_*`) is `mysql`, every other target `postgresql`.
   */
  sqlDialect: z.enum(['postgresql', 'mysql']).nullable().optional(),
});
export type PlanningCatalogV1 = z.infer<typeof PlanningCatalogV1>;

const MYSQL_METRIC = /^(?:mysql|mysqld|mariadb)_/;
const PG_METRIC = /^(?:pg|postgres|postgresql)_/;

/** The dialect of a target's `sql` from its operations and metric names (see `sqlDialect`). */
export function sqlDialectOf(operations: readonly string[] | undefined, metricNames: readonly string[]): 'postgresql' | 'mysql' | null {
  if (!operations?.includes('sql')) return null;
  return metricNames.some((n) => MYSQL_METRIC.test(n)) && !metricNames.some((n) => PG_METRIC.test(n)) ? 'mysql' : 'postgresql';
}

export function toPlanningCatalog(listed: EvidenceCatalogListedV1): PlanningCatalogV1 {
  const listedNames = new Set(listed.metrics.map((m) => m.name));
  return {
    sqlDialect: sqlDialectOf(listed.operations, listed.metrics.map((m) => m.name)),
    status: listed.status,
    targetLabel: listed.targetLabel,
    truncated: listed.truncated,
    failureCode: listed.failureCode,
    operations: listed.operations,
    logsLabel: listed.logsLabel,
    metrics: listed.metrics.flatMap((m) => {
      // A share needs the state label on the series; without it the counter's unit is not a percentage.
      const shareUsable = (c: MetricClassification) => c.busyShare !== null && (m.labelKeys.length === 0 || m.labelKeys.includes(c.busyShare.label));
      const entry = (c: MetricClassification, matcher?: string): PlanningMetricV1 => ({
        name: m.name,
        family: c.family,
        kind: c.kind,
        aggregation: c.aggregation,
        badDirection: c.badDirection,
        unit: c.busyShare !== null && !shareUsable(c) ? 'unknown' : c.unit,
        labelKeys: m.labelKeys,
        primary: c.primary,
        ...(c.per !== null && listedNames.has(c.per) ? { per: c.per } : {}),
        ...(c.busyShare !== null && shareUsable(c) ? { busyShare: c.busyShare } : {}),
        ...(matcher ? { matcher } : {}),
      });
      // A name the ontology splits by a label is planned once per split (writes, commits, reads), when its series carry that label.
      const splits = labelSplits(m.name).filter((sp) => m.labelKeys.length === 0 || Object.keys(sp.labels).every((k) => m.labelKeys.includes(k)));
      const whole = classifyMetric(m.name);
      const split = splits.map((sp) => entry(sp.classification, Object.entries(sp.labels).map(([k, v]) => `${k}=~"${v}"`).join(',')));
      // The name read whole stays too where it means something no split does (all sessions, not only the active ones).
      return split.some((e) => e.family === whole.family) ? split : [entry(whole), ...split];
    }),
  };
}
