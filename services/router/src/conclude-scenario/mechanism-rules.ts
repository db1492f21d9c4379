import type { CausalStrength, EvidenceFactV1, Severity } from '@aoc/contracts';

/**
 * Mechanism rules v2: versioned data the optimizer can change and replay. A rule fires when
 * every condition holds on the facts the executor materialised; the first firing rule of a
 * scenario gives its leading mechanism. Conditions read
 * - the lead series of a metric query: `rise` = peak / start value, `endRise` = end / start
 *   value, `skew` = peak of the lead series / peak of the next one (e.g. the hottest store);
 * - the lead statement (rank 1 `top_item`) of a TopSQL or slow-query query: any numeric
 *   attribute, e.g. `share`, `planLatencyRatio`, `count`, `avgQueryTimeS`;
 * - a change of one statement between two queries (`statementChange`): the lead statement's
 *   attribute over the same digest's in the baseline query (absent there: 0 for counts);
 * - `sameStatement`: the lead statements of two queries are the same digest.
 */
export const MECHANISM_RULES_VERSION = 'mechanisms-v2';

type Op = '>=' | '<';

export type Condition =
  | { kind?: 'metric'; query: string; stat: 'rise' | 'endRise' | 'skew'; op: Op; value: number }
  | { kind: 'statement'; query: string; stat: string; op: Op; value: number }
  | { kind: 'statementChange'; query: string; baseline: string; stat: string; op: Op; value: number }
  | { kind: 'sameStatement'; queries: readonly [string, string] };

export interface MechanismRule {
  id: string;
  scenario: string;
  when: Condition[];
  /**
   * Filled from the facts: `{query.rise|endRise|skew|peak|start|at|labels}` for metric queries,
   * `{query.<attribute>}` of a query's lead statement (`digest`, `share`, `slowPlan`, ...), and
   * `{baseline[query].<attribute>}` for the same digest in the baseline query.
   */
  mechanism: string;
  strength: CausalStrength;
  /** The link still missing; `{missing}` lists failed or unplanned queries that would show it. */
  openLink: string | null;
  counterObservation?: string;
  mitigation: string;
  severity: Severity;
  /** A rule that shows the database is healthy: the answer may say so without a human. */
  healthy?: boolean;
}

/** How Support turns the package's opaque digest references back into TiDB digests. */
const FIND_DIGEST =
  "A reference `digest:<hex>` is the first 16 hex digits of the SHA-256 of the statement digest: `SELECT DIGEST_TEXT, PLAN_DIGEST FROM INFORMATION_SCHEMA.CLUSTER_STATEMENTS_SUMMARY_HISTORY WHERE LEFT(SHA2(LOWER(DIGEST), 256), 16) = '<hex>'` finds the statement (PLAN_DIGEST likewise for `plan_digest:` references).";

/** p99 latency rose while the statement rate stayed flat: each statement became more expensive. */
const P99_UP_AT_FLAT_QPS: Condition[] = [
  { query: 'duration_p99', stat: 'rise', op: '>=', value: 1.5 },
  { query: 'qps', stat: 'rise', op: '<', value: 1.2 },
];

/** One statement takes at least half of the CPU time TopSQL attributes to the top statements. */
const ONE_STATEMENT_DOMINATES: Condition = { kind: 'statement', query: 'top_statements', stat: 'share', op: '>=', value: 50 };

export const MECHANISM_RULES: readonly MechanismRule[] = [
  {
    id: 'plan-regression',
    scenario: 'latency-regression',
    when: [
      ...P99_UP_AT_FLAT_QPS,
      { kind: 'statement', query: 'top_statements', stat: 'planLatencyRatio', op: '>=', value: 3 },
      { kind: 'sameStatement', queries: ['top_statements', 'slow_queries_after'] },
      { kind: 'statementChange', query: 'slow_queries_after', baseline: 'slow_queries_before', stat: 'count', op: '>=', value: 5 },
    ],
    mechanism:
      'p99 latency rose {duration_p99.rise}x (to {duration_p99.peak}s at {duration_p99.at}) while the statement rate stayed flat. Statement {top_statements.digest} ran with two plans: {top_statements.slowPlan} averages {top_statements.slowPlanAvgMs} ms per execution against {top_statements.fastPlanAvgMs} ms for {top_statements.fastPlan} ({top_statements.planLatencyRatio}x), and its slow-log entries went from {slow_queries_before[slow_queries_after].count} in the first half of the window to {slow_queries_after.count} in the second (avg {slow_queries_after.avgQueryTimeS}s): the optimizer switched this statement to a slower plan.',
    strength: 'strong',
    openLink: 'why the optimizer changed the plan (statistics gone stale after a data change, an automatic analyze, or a schema or index change){missing}',
    counterObservation: 'The statement rate stayed flat ({qps.rise}x), so added load does not explain the latency rise.',
    mitigation: `Pin the faster plan {top_statements.fastPlan} of statement {top_statements.digest} with a SQL binding: \`CREATE GLOBAL BINDING FROM HISTORY USING PLAN DIGEST '<its plan digest>'\` (TiDB v7.3 or later), or \`CREATE GLOBAL BINDING FOR <statement> USING <statement with hints for that plan>\`; then ANALYZE TABLE the tables it reads, and drop the binding once the optimizer picks the fast plan by itself. ${FIND_DIGEST}`,
    severity: 'high',
  },
  {
    id: 'statement-turned-slow',
    scenario: 'latency-regression',
    when: [
      ...P99_UP_AT_FLAT_QPS,
      { kind: 'statementChange', query: 'slow_queries_after', baseline: 'slow_queries_before', stat: 'count', op: '>=', value: 5 },
    ],
    mechanism:
      'p99 latency rose {duration_p99.rise}x (to {duration_p99.peak}s at {duration_p99.at}) while the statement rate stayed flat; slow-log entries of statement {slow_queries_after.digest} went from {slow_queries_before[slow_queries_after].count} in the first half of the window to {slow_queries_after.count} in the second (avg {slow_queries_after.avgQueryTimeS}s): this statement became slow, as a new statement or with a changed plan.',
    strength: 'moderate',
    openLink: 'whether its plan changed, or it waits on locks or a busy store{missing}',
    mitigation: `Compare the plans of statement {slow_queries_after.digest} before and after the change in the statements summary history: if the plan changed, bind the previous plan and ANALYZE TABLE the tables it reads; if the statement is new, add the index its plan lacks or throttle the job that issues it. ${FIND_DIGEST}`,
    severity: 'high',
  },
  {
    id: 'latency-with-load',
    scenario: 'latency-regression',
    when: [
      { query: 'duration_p99', stat: 'rise', op: '>=', value: 1.5 },
      { query: 'qps', stat: 'rise', op: '>=', value: 1.2 },
    ],
    mechanism: 'p99 latency rose {duration_p99.rise}x (to {duration_p99.peak}s at {duration_p99.at}) together with a {qps.rise}x rise in statement rate: added workload competing with the existing traffic is the leading explanation.',
    strength: 'moderate',
    openLink: 'which statements make up the added load{missing}',
    counterObservation: 'The rise in statement rate ({qps.rise}x) is smaller than the latency rise ({duration_p99.rise}x), so the added statements are individually expensive rather than merely numerous.',
    mitigation: 'Identify the new statements (TopSQL / statements summary) and add the missing index or throttle the job that issues them.',
    severity: 'high',
  },
  {
    id: 'latency-without-load',
    scenario: 'latency-regression',
    when: P99_UP_AT_FLAT_QPS,
    mechanism: 'p99 latency rose {duration_p99.rise}x (to {duration_p99.peak}s at {duration_p99.at}) while the statement rate stayed flat: each statement became more expensive (plan change, contention or resource pressure).',
    strength: 'moderate',
    openLink: 'which statements slowed down and why{missing}',
    mitigation: 'Compare the plans and latency of the top statements before and after the change; check for lock contention.',
    severity: 'high',
  },
  {
    id: 'latency-flat',
    scenario: 'latency-regression',
    when: [
      { query: 'duration_p99', stat: 'rise', op: '<', value: 1.2 },
      { query: 'qps', stat: 'rise', op: '<', value: 1.2 },
    ],
    mechanism: 'Database latency and load stayed flat for the whole window (p99 peak {duration_p99.peak}s, statement rate peak {qps.peak}/s): the reported slowness did not come from the database.',
    strength: 'strong',
    openLink: null,
    mitigation: 'No database action is needed; check the client, network or dashboard side if the symptom repeats.',
    severity: 'info',
    healthy: true,
  },
  {
    id: 'store-hotspot',
    scenario: 'hotspot',
    when: [
      { query: 'store_cpu', stat: 'skew', op: '>=', value: 2 },
      ONE_STATEMENT_DOMINATES,
    ],
    mechanism:
      'TiKV CPU concentrates on {store_cpu.labels}: it peaks at {store_cpu.peak} CPU-seconds per second at {store_cpu.at}, {store_cpu.skew}x the next store, while statement {top_statements.digest} ({top_statements.statementType}) takes {top_statements.share}% of the TopSQL CPU time ({top_statements.execCount} executions, avg {top_statements.avgLatencyMs} ms): a hotspot, with this statement hitting regions led by that one store.',
    strength: 'strong',
    openLink: 'which regions on {store_cpu.labels} are hot and that they are the ones this statement reads or writes (PD hot-region list, or TopSQL per TiKV instance){missing}',
    mitigation: `Spread the hot regions: split and scatter them (\`SPLIT TABLE ... BETWEEN (...) AND (...) REGIONS n\`, or \`SPLIT TABLE ... INDEX ...\` for a hot index), and for monotonically increasing keys switch to AUTO_RANDOM or SHARD_ROW_ID_BITS; or change the access pattern of statement {top_statements.digest} (an index that stops it scanning the same key range, or caching and batching of hot-key reads). ${FIND_DIGEST}`,
    severity: 'high',
  },
  {
    id: 'store-skew',
    scenario: 'hotspot',
    when: [{ query: 'store_cpu', stat: 'skew', op: '>=', value: 2 }],
    mechanism: 'TiKV CPU concentrates on {store_cpu.labels}: it peaks at {store_cpu.peak} CPU-seconds per second at {store_cpu.at}, {store_cpu.skew}x the next store: load is concentrated on one store (a hotspot).',
    strength: 'moderate',
    openLink: 'which statements and regions drive the load on {store_cpu.labels}{missing}',
    mitigation: 'Find the hot regions on that store (PD hot-region list) and the statements reaching them (TopSQL), then split and scatter those regions or change the access pattern.',
    severity: 'medium',
  },
  {
    id: 'cpu-by-statement',
    scenario: 'cpu-saturation',
    when: [
      { query: 'cpu_by_component', stat: 'rise', op: '>=', value: 1.5 },
      ONE_STATEMENT_DOMINATES,
    ],
    mechanism:
      'CPU of {cpu_by_component.labels} rose {cpu_by_component.rise}x (to {cpu_by_component.peak} CPU-seconds per second at {cpu_by_component.at}) while statement {top_statements.digest} ({top_statements.statementType}) takes {top_statements.share}% of the TopSQL CPU time ({top_statements.execCount} executions): that statement drives the CPU rise.',
    strength: 'moderate',
    openLink: 'whether that statement runs more often or became more expensive per execution (its share before the rise is not shown){missing}',
    mitigation: `Throttle, reschedule or optimise statement {top_statements.digest} (the index its plan lacks, smaller batches), or add capacity for it. ${FIND_DIGEST}`,
    severity: 'high',
  },
  {
    id: 'component-cpu-rise',
    scenario: 'cpu-saturation',
    when: [{ query: 'cpu_by_component', stat: 'rise', op: '>=', value: 1.5 }],
    mechanism: 'CPU of {cpu_by_component.labels} rose {cpu_by_component.rise}x (to {cpu_by_component.peak} CPU-seconds per second at {cpu_by_component.at}): a workload increase on that component saturates it.',
    strength: 'moderate',
    openLink: 'which statements consume the CPU{missing}',
    mitigation: 'Find the statements with the most CPU time and pause, reschedule or index them.',
    severity: 'high',
  },
  {
    id: 'sink-bottleneck',
    scenario: 'replication-lag',
    when: [
      { query: 'changefeed_lag', stat: 'endRise', op: '>=', value: 5 },
      { query: 'sink_duration', stat: 'rise', op: '>=', value: 3 },
      { query: 'qps', stat: 'rise', op: '<', value: 1.2 },
    ],
    mechanism: 'Checkpoint lag of {changefeed_lag.labels} grew {changefeed_lag.endRise}x while upstream writes stayed flat and the sink write p99 rose {sink_duration.rise}x: the downstream sink is the bottleneck, not the upstream load.',
    strength: 'strong',
    openLink: null,
    counterObservation: 'Upstream statement rate stayed flat ({qps.rise}x), which rules out a write surge.',
    mitigation: 'Check the health and throughput of the downstream sink; the lag drains once it recovers.',
    severity: 'high',
  },
  {
    id: 'write-surge',
    scenario: 'replication-lag',
    when: [
      { query: 'changefeed_lag', stat: 'endRise', op: '>=', value: 5 },
      { query: 'qps', stat: 'rise', op: '>=', value: 1.5 },
    ],
    mechanism: 'Checkpoint lag grew {changefeed_lag.endRise}x while upstream writes rose {qps.rise}x: the changefeed cannot keep up with the write surge.',
    strength: 'moderate',
    openLink: 'whether the sink or TiCDC itself is the limit{missing}',
    mitigation: 'Scale the changefeed or the sink for the higher write rate, or smooth the write burst.',
    severity: 'medium',
  },
];

export interface LeadStats {
  rise: number | null;
  endRise: number | null;
  /** Peak of the lead series over the peak of the next series of the same query. */
  skew: number | null;
  peak: number | null;
  start: number | null;
  at: string | null;
  labels: string;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Stats of the lead (highest) series of each metric query. */
export function leadStats(facts: readonly EvidenceFactV1[]): Map<string, LeadStats> {
  const out = new Map<string, LeadStats>();
  const next = new Map<string, number | null>();
  for (const f of facts) {
    if (f.kind !== 'metric_summary') continue;
    const lead = out.get(f.queryId);
    if (lead) {
      // Series come ordered by peak: the second one is the next highest.
      if (!next.has(f.queryId)) {
        const second = num(f.value);
        next.set(f.queryId, second);
        lead.skew = lead.peak !== null && second !== null && second > 0 ? lead.peak / second : null;
      }
      continue;
    }
    const peak = num(f.value);
    const start = num(f.attributes['first']);
    const end = num(f.attributes['last']);
    const maxAt = typeof f.attributes['maxAt'] === 'string' ? f.attributes['maxAt'] : null;
    const labels = /\{(.*)\}$/.exec(f.subject)?.[1] || 'the cluster';
    out.set(f.queryId, {
      rise: peak !== null && start !== null && start > 0 ? peak / start : null,
      endRise: end !== null && start !== null && start > 0 ? end / start : null,
      skew: null,
      peak,
      start,
      at: maxAt && maxAt !== 'n/a' ? `${maxAt.slice(11, 16)}Z` : null,
      labels,
    });
  }
  return out;
}

type Value = number | string | boolean | null;

/** The statement facts of a query: its lead item and its items by digest. */
interface StatementView {
  lead: Record<string, Value> | null;
  byDigest: Map<string, Record<string, Value>>;
  /** The query produced facts, so a digest absent from it had none of the counted events. */
  answered: boolean;
}

/** Additive counts: a digest absent from a query's answer had zero of them. */
const ZERO_WHEN_ABSENT = new Set(['count', 'execCount', 'share']);

function statementViews(facts: readonly EvidenceFactV1[]): Map<string, StatementView> {
  const out = new Map<string, StatementView>();
  for (const f of facts) {
    const view = out.get(f.queryId) ?? { lead: null, byDigest: new Map(), answered: false };
    out.set(f.queryId, view);
    if (f.kind === 'count') view.answered = true;
    const digest = f.attributes['digest'];
    if (f.kind !== 'top_item' || typeof digest !== 'string') continue;
    view.answered = true;
    const item: Record<string, Value> = { ...f.attributes, value: f.value };
    if (!view.byDigest.has(digest)) view.byDigest.set(digest, item);
    if (!view.lead || (view.lead['rank'] !== 1 && f.attributes['rank'] === 1)) view.lead = item;
  }
  return out;
}

interface RuleStats {
  metrics: Map<string, LeadStats>;
  statements: Map<string, StatementView>;
}

/** The attribute of the statement in `baseline` that is the lead statement of `of`. */
function baselineValue(stats: RuleStats, baseline: string, of: string, stat: string): Value | undefined {
  const digest = stats.statements.get(of)?.lead?.['digest'];
  const view = stats.statements.get(baseline);
  if (typeof digest !== 'string' || !view?.answered) return undefined;
  const item = view.byDigest.get(digest);
  if (item) return item[stat];
  return ZERO_WHEN_ABSENT.has(stat) ? 0 : undefined;
}

function compare(v: number | null | undefined, op: Op, value: number): boolean {
  if (v === null || v === undefined || Number.isNaN(v)) return false;
  return op === '>=' ? v >= value : v < value;
}

function holds(c: Condition, stats: RuleStats): boolean {
  switch (c.kind) {
    case 'statement':
      return compare(num(stats.statements.get(c.query)?.lead?.[c.stat]), c.op, c.value);
    case 'statementChange': {
      const after = num(stats.statements.get(c.query)?.lead?.[c.stat]);
      const before = num(baselineValue(stats, c.baseline, c.query, c.stat));
      if (after === null || before === null) return false;
      return compare(before > 0 ? after / before : after > 0 ? Infinity : null, c.op, c.value);
    }
    case 'sameStatement': {
      const [a, b] = c.queries.map((q) => stats.statements.get(q)?.lead?.['digest']);
      return typeof a === 'string' && a === b;
    }
    default:
      return compare(stats.metrics.get(c.query)?.[c.stat], c.op, c.value);
  }
}

function round(n: number): string {
  if (Math.abs(n) >= 10_000) return Math.round(n).toLocaleString('en-US');
  const digits = Math.abs(n) < 1 ? 3 : 2;
  return String(Math.round(n * 10 ** digits) / 10 ** digits);
}

const METRIC_STATS = new Set(['rise', 'endRise', 'skew', 'peak', 'start', 'at', 'labels']);

function fill(template: string, stats: RuleStats, missing: string[]): string {
  return template
    .replace(/\{missing\}/g, missing.length ? ` (not shown: ${missing.join(', ')} could not be read)` : '')
    .replace(/\{(\w+)(?:\[(\w+)\])?\.(\w+)\}/g, (_m, q: string, of: string | undefined, stat: string) => {
      const metric = stats.metrics.get(q);
      const v: Value | undefined = of
        ? baselineValue(stats, q, of, stat)
        : metric && METRIC_STATS.has(stat)
          ? metric[stat as keyof LeadStats]
          : stats.statements.get(q)?.lead?.[stat];
      if (v === null || v === undefined) return 'n/a';
      return typeof v === 'number' ? round(v) : String(v);
    });
}

export interface FiredRule {
  rule: MechanismRule;
  mechanism: string;
  openLink: string | null;
  counterObservation: string | null;
}

/** The first rule of the scenario whose conditions all hold, with its text filled in. */
export function fireRule(scenario: string, facts: readonly EvidenceFactV1[], missingQueries: string[]): FiredRule | null {
  const stats: RuleStats = { metrics: leadStats(facts), statements: statementViews(facts) };
  const rule = MECHANISM_RULES.find((r) => r.scenario === scenario && r.when.every((c) => holds(c, stats)));
  if (!rule) return null;
  return {
    // The rule as it applies here: its mitigation names the statements it is about.
    rule: { ...rule, mitigation: fill(rule.mitigation, stats, missingQueries) },
    mechanism: fill(rule.mechanism, stats, missingQueries),
    openLink: rule.openLink ? fill(rule.openLink, stats, missingQueries) : null,
    counterObservation: rule.counterObservation ? fill(rule.counterObservation, stats, missingQueries) : null,
  };
}
