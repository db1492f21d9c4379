import { z } from 'zod';

/**
 * The shape of `data/ontology.json`. The data is the rule set; this file only says what a valid
 * rule set looks like, so a bad edit fails at load naming the field instead of misclassifying.
 */

/** Family ids. The TS union is fixed here so callers can switch on it; the data must define each. */
export const METRIC_FAMILY_IDS = [
  'cpu',
  'cpu_credits',
  'memory',
  'swap',
  'connections',
  'connection_limit',
  'active_sessions',
  'storage_used',
  'storage_free',
  'storage_capacity',
  'iops',
  'iops_limit',
  'io_credits',
  'io_latency',
  'io_queue',
  'io_throughput',
  'network',
  'replication_lag',
  'wal',
  'checkpoints',
  'cache_hit',
  'locks',
  'lock_waits',
  'transaction_age',
  'deadlocks',
  'commits',
  'rollbacks',
  'statement_rate',
  'statement_latency',
  'rows_read',
  'rows_written',
  'errors',
  'availability',
  'restarts',
  'uptime',
  'failover',
  'maintenance',
  'unknown',
] as const;
export type MetricFamilyId = (typeof METRIC_FAMILY_IDS)[number];

export const METRIC_UNITS = ['percent', 'ratio', 'bytes', 'seconds', 'count', 'per_second', 'bytes_per_second', 'unknown'] as const;
export type MetricUnit = (typeof METRIC_UNITS)[number];

export const METRIC_KINDS = ['counter', 'gauge', 'histogram', 'summary'] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

export const BAD_DIRECTIONS = ['up', 'down', 'both'] as const;
export type BadDirection = (typeof BAD_DIRECTIONS)[number];

export const METRIC_SOURCES = [
  'node_exporter',
  'postgres_exporter',
  'mysqld_exporter',
  'cloudwatch_exporter',
  'yace',
  'tidb',
  'dbseer',
  'generic',
] as const;
/** Where a name comes from; `unknown` when neither a pattern nor a known exporter prefix says. */
export type MetricSource = (typeof METRIC_SOURCES)[number] | 'unknown';

const familyId = z.enum(METRIC_FAMILY_IDS);

/** A JavaScript regex source; compiled here once so a typo fails at load, not at first use. */
const regexSource = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    try {
      new RegExp(source, 'i');
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a valid regex (${err instanceof Error ? err.message : String(err)})` });
    }
  });

const familySchema = z
  .object({
    id: familyId,
    label: z.string().min(1),
    unit: z.enum(METRIC_UNITS),
    badDirection: z.enum(BAD_DIRECTIONS),
    limitFamily: familyId.optional(),
    words: z.array(z.string().min(1).regex(/^[^A-Z]+$/, 'words are lower case').regex(/^\S(.*\S)?$/, 'no outer white space')),
  })
  .strict();

const patternSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/, 'pattern ids are snake_case'),
    source: z.enum(METRIC_SOURCES),
    family: familyId,
    regex: regexSource,
    kind: z.enum(METRIC_KINDS).optional(),
    unit: z.enum(METRIC_UNITS).optional(),
    scale: z.number().positive().optional(),
    badDirection: z.enum(BAD_DIRECTIONS).optional(),
    /** The family's representative metric of its source (busy CPU seconds, not context switches): planned before its peers. */
    primary: z.boolean().optional(),
    /**
     * Matches only the series whose labels hold these values (each a regex over the whole value):
     * one exporter name split by a label (mysqld_exporter's `handlers_total{handler}`: writes,
     * commits, reads). A planner reads it as that matcher; a name alone never matches it.
     */
    labels: z.record(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'a label key'), z.string().min(1).max(200)).optional(),
    /** A counter of operations the rate is divided by: time spent per operation (disk seconds per read), not time per second. */
    per: z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'a metric name').optional(),
    /**
     * A time counter split by a state label (node_exporter's CPU seconds by `mode`): read as the
     * percentage of all time spent outside the idle states, so a level can be set against 100 %.
     */
    busyShare: z
      .object({ label: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'a label key'), idle: regexSource })
      .strict()
      .optional(),
  })
  .strict();

const ontologySchema = z
  .object({
    version: z.string().regex(/^ontology-v[0-9]+$/, 'version is ontology-v<N>'),
    /** Case-sensitive: `_total` is a Prometheus convention, `HugePages_Total` is a gauge. */
    kindRules: z.array(z.object({ id: z.string().min(1), regex: regexSource, kind: z.enum(METRIC_KINDS) }).strict()),
    unitRules: z.array(z.object({ regex: regexSource, unit: z.enum(METRIC_UNITS) }).strict()),
    sources: z.array(z.object({ source: z.enum(METRIC_SOURCES), regex: regexSource }).strict()),
    cloudwatch: z.object({ prefix: z.string().min(1), statistic: regexSource, kind: z.enum(METRIC_KINDS) }).strict(),
    families: z.array(familySchema),
    patterns: z.array(patternSchema).min(1),
  })
  .strict()
  .superRefine((data, ctx) => {
    const seen = new Set<string>();
    data.families.forEach((f, i) => {
      if (seen.has(f.id)) ctx.addIssue({ code: 'custom', path: ['families', i, 'id'], message: `duplicate family id "${f.id}"` });
      seen.add(f.id);
      if (f.limitFamily === f.id) ctx.addIssue({ code: 'custom', path: ['families', i, 'limitFamily'], message: 'a family cannot bound itself' });
    });
    for (const id of METRIC_FAMILY_IDS) {
      if (!seen.has(id)) ctx.addIssue({ code: 'custom', path: ['families'], message: `family "${id}" is not defined` });
    }
    const patternIds = new Set<string>();
    data.patterns.forEach((p, i) => {
      if (patternIds.has(p.id)) ctx.addIssue({ code: 'custom', path: ['patterns', i, 'id'], message: `duplicate pattern id "${p.id}"` });
      patternIds.add(p.id);
    });
  });

export type OntologyData = z.infer<typeof ontologySchema>;
export type OntologyFamily = OntologyData['families'][number];
export type OntologyPattern = OntologyData['patterns'][number];

/** Parses the ontology data or throws one error listing every bad field (with the pattern id where there is one). */
export function parseOntology(raw: unknown): OntologyData {
  const parsed = ontologySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const where = issue.path.join('.') || '(root)';
    return `${where}${patternIdAt(raw, issue.path)}: ${issue.message}`;
  });
  throw new Error(`metric ontology data is invalid: ${issues.join('; ')}`);
}

function patternIdAt(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] !== 'patterns' || typeof path[1] !== 'number' || typeof raw !== 'object' || raw === null) return '';
  const patterns = (raw as { patterns?: unknown }).patterns;
  const entry = Array.isArray(patterns) ? (patterns[path[1]] as { id?: unknown } | undefined) : undefined;
  return typeof entry?.id === 'string' ? ` (pattern "${entry.id}")` : '';
}
