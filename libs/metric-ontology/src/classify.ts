import { metricFamily, ONTOLOGY } from './ontology';
import type { BadDirection, MetricFamilyId, MetricKind, MetricSource, MetricUnit, OntologyPattern } from './ontology-schema';

/** How a query should read the series: `rate()` a counter, take a gauge as is, `histogram_quantile` over buckets. */
export type MetricAggregation = 'rate' | 'value' | 'quantile';

export interface MetricClassification {
  /** The name as given. */
  name: string;
  family: MetricFamilyId;
  kind: MetricKind;
  /** Unit of the raw samples. A counter's unit is what it accumulates (`rate()` of it is per second). */
  unit: MetricUnit;
  /** Multiply a raw sample by this to get `unit` (0.001 for milliseconds, 1048576 for DBSeer's MB). */
  scale: number;
  badDirection: BadDirection;
  source: MetricSource;
  /** The family's representative metric of its source (the ontology's `primary`): planners take it first. */
  primary: boolean;
  /** The operations counter this counter's rate is divided by (ontology `per`), else null. */
  per: string | null;
  /** Read as the busy share of a state-split time counter (ontology `busyShare`); its unit is then percent. */
  busyShare: { label: string; idle: string } | null;
  /** The pattern that matched, or null when none did. A pattern may deliberately say `unknown` (settings, exporter internals). */
  patternId: string | null;
  aggregation: MetricAggregation;
  /** CloudWatch statistic taken off the name (`average`, `maximum`, `sum`, `sample_count`, `p99`), else null. */
  statistic: string | null;
  /** The name without `_bucket`/`_sum`/`_count` for histograms and summaries, without the statistic for CloudWatch. */
  baseName: string;
}

/** Prometheus names are short; the cap bounds the work a hostile or broken name can cause. */
const MAX_NAME_LENGTH = 256;
/** Enough for every name of a large Prometheus; past it the cache starts over rather than growing. */
const CACHE_LIMIT = 50_000;

interface CompiledPattern {
  readonly spec: OntologyPattern;
  readonly re: RegExp;
  /** Lower-case literal every match starts with: a cheap test that skips most regexes. */
  readonly prefix: string;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The literal a regex source always starts with, or '' when it is not plain: a top-level `|`
 * means no single prefix, and a quantified last letter (`mysqld?`) is optional.
 */
export function literalPrefix(source: string): string {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return '';
  }
  const lead = /^[A-Za-z0-9_]*/.exec(source)?.[0] ?? '';
  const next = source[lead.length];
  const optionalLast = next === '?' || next === '*' || next === '{';
  return (optionalLast ? lead.slice(0, -1) : lead).toLowerCase();
}

const PATTERNS: readonly CompiledPattern[] = ONTOLOGY.patterns.map((spec) => ({
  spec,
  // Whole-name match: the data writes `node_load(1|5|15)`, not `^node_load(1|5|15)$`.
  re: new RegExp(`^(?:${spec.regex})$`, 'i'),
  prefix: literalPrefix(spec.regex),
}));
const KIND_RULES = ONTOLOGY.kindRules.map((r) => ({ re: new RegExp(r.regex), kind: r.kind }));
const UNIT_RULES = ONTOLOGY.unitRules.map((r) => ({ re: new RegExp(r.regex, 'i'), unit: r.unit }));
const SOURCE_RULES = ONTOLOGY.sources.map((r) => ({ re: new RegExp(`^(?:${r.regex})$`, 'i'), source: r.source }));
const CLOUDWATCH_PREFIX = new RegExp(`^${escapeRegex(ONTOLOGY.cloudwatch.prefix)}`, 'i');
const CLOUDWATCH_STATISTIC = new RegExp(`^(${escapeRegex(ONTOLOGY.cloudwatch.prefix)}.+)_(${ONTOLOGY.cloudwatch.statistic})$`, 'i');

const cache = new Map<string, MetricClassification>();

/**
 * Classifies a metric name into a family by the first pattern that matches the whole name
 * (case-insensitive), exporter blocks before the generic block. Never throws.
 */
export function classifyMetric(name: string, labels: Readonly<Record<string, string>> = {}): MetricClassification {
  const given = typeof name === 'string' ? name : '';
  const key = Object.keys(labels).length === 0 ? given : `${given}\u0000${JSON.stringify(Object.entries(labels).sort())}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = Object.freeze(classifyUncached(given, labels));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}

/** A label matcher of a pattern holds for given labels: the same regex text, or a value it matches whole. */
function labelsHold(spec: OntologyPattern, labels: Readonly<Record<string, string>>): boolean {
  if (!spec.labels) return true;
  return Object.entries(spec.labels).every(([k, v]) => {
    const given = Object.prototype.hasOwnProperty.call(labels, k) ? labels[k] : undefined;
    return given !== undefined && (given === v || new RegExp(`^(?:${v})$`).test(given));
  });
}

export interface LabelSplit {
  /** The label values of the split, as the matcher `key=~"value"` a query adds. */
  labels: Readonly<Record<string, string>>;
  classification: MetricClassification;
}

/** The label splits the ontology defines for a name, in pattern order (empty: the name is read whole). */
export function labelSplits(name: string): LabelSplit[] {
  const out: LabelSplit[] = [];
  for (const p of PATTERNS) {
    if (!p.spec.labels || !p.re.test(name)) continue;
    out.push({ labels: p.spec.labels, classification: classifyMetric(name, p.spec.labels) });
  }
  return out;
}

function classifyUncached(given: string, labels: Readonly<Record<string, string>> = {}): MetricClassification {
  const name = given.slice(0, MAX_NAME_LENGTH);
  const cloudwatch = CLOUDWATCH_PREFIX.test(name);
  const stat = cloudwatch ? CLOUDWATCH_STATISTIC.exec(name) : null;
  // CloudWatch patterns are written without the statistic, so `_average` and bare names both classify.
  const matchName = stat ? stat[1] : name;
  const statistic = stat ? stat[2].toLowerCase() : null;
  const pattern = firstMatch(matchName, labels);
  const family = metricFamily(pattern?.family ?? 'unknown');

  const kind = pattern?.kind ?? (cloudwatch ? ONTOLOGY.cloudwatch.kind : inferKind(name));
  const component = kind === 'histogram' || kind === 'summary' ? /_(bucket|sum|count)$/.exec(name)?.[1] ?? null : null;
  const aggregation = aggregationOf(kind, component);
  const rawUnit =
    statistic === 'sample_count' || component === 'count'
      ? 'count'
      : (pattern?.unit ?? UNIT_RULES.find((r) => r.re.test(name))?.unit ?? family.unit);
  const countsOnly = statistic === 'sample_count' || component === 'count';

  return {
    name: given,
    family: family.id,
    kind,
    unit: pattern?.busyShare ? 'percent' : aggregation === 'rate' ? accumulatedUnit(rawUnit) : rawUnit,
    scale: countsOnly ? 1 : (pattern?.scale ?? 1),
    badDirection: pattern?.badDirection ?? family.badDirection,
    source: sourceOf(name, pattern),
    patternId: pattern?.id ?? null,
    primary: pattern?.primary === true,
    per: pattern?.per ?? null,
    busyShare: pattern?.busyShare ?? null,
    aggregation,
    statistic,
    baseName: component ? name.slice(0, -(component.length + 1)) : matchName,
  };
}

function firstMatch(name: string, labels: Readonly<Record<string, string>>): OntologyPattern | null {
  const lower = name.toLowerCase();
  for (const p of PATTERNS) {
    if (lower.startsWith(p.prefix) && p.re.test(name) && labelsHold(p.spec, labels)) return p.spec;
  }
  return null;
}

function inferKind(name: string): MetricKind {
  return KIND_RULES.find((r) => r.re.test(name))?.kind ?? 'gauge';
}

function aggregationOf(kind: MetricKind, component: string | null): MetricAggregation {
  if (component === 'sum' || component === 'count') return 'rate';
  if (kind === 'histogram') return 'quantile';
  return kind === 'counter' ? 'rate' : 'value';
}

/** A counter of per-second things accumulates the things; a counted percentage has no unit of its own. */
function accumulatedUnit(unit: MetricUnit): MetricUnit {
  if (unit === 'per_second') return 'count';
  if (unit === 'bytes_per_second') return 'bytes';
  if (unit === 'percent' || unit === 'ratio') return 'unknown';
  return unit;
}

function sourceOf(name: string, pattern: OntologyPattern | null): MetricSource {
  if (pattern && pattern.source !== 'generic') return pattern.source;
  // A generic word pattern says what the name means, the prefix says who exported it.
  const byPrefix = SOURCE_RULES.find((r) => r.re.test(name))?.source;
  return byPrefix ?? (pattern ? 'generic' : 'unknown');
}
