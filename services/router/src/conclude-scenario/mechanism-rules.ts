import type { CausalStrength, EvidenceFactV1, Severity } from '@aoc/contracts';

/**
 * Mechanism rules v1: versioned data the optimizer can change and replay. A rule fires when
 * every condition holds on the facts the executor materialised; the first firing rule of a
 * scenario gives its leading mechanism. Conditions read the lead series of a query:
 * `rise` = peak / start value, `endRise` = end / start value.
 */
export const MECHANISM_RULES_VERSION = 'mechanisms-v1';

export interface Condition {
  query: string;
  stat: 'rise' | 'endRise';
  op: '>=' | '<';
  value: number;
}

export interface MechanismRule {
  id: string;
  scenario: string;
  when: Condition[];
  /** `{query.stat}`, `{query.peak}`, `{query.start}`, `{query.at}` and `{query.labels}` are filled from the facts. */
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

export const MECHANISM_RULES: readonly MechanismRule[] = [
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
    when: [
      { query: 'duration_p99', stat: 'rise', op: '>=', value: 1.5 },
      { query: 'qps', stat: 'rise', op: '<', value: 1.2 },
    ],
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
  for (const f of facts) {
    if (f.kind !== 'metric_summary' || out.has(f.queryId)) continue;
    const peak = num(f.value);
    const start = num(f.attributes['first']);
    const end = num(f.attributes['last']);
    const maxAt = typeof f.attributes['maxAt'] === 'string' ? f.attributes['maxAt'] : null;
    const labels = /\{(.*)\}$/.exec(f.subject)?.[1] || 'the cluster';
    out.set(f.queryId, {
      rise: peak !== null && start !== null && start > 0 ? peak / start : null,
      endRise: end !== null && start !== null && start > 0 ? end / start : null,
      peak,
      start,
      at: maxAt && maxAt !== 'n/a' ? `${maxAt.slice(11, 16)}Z` : null,
      labels,
    });
  }
  return out;
}

function holds(c: Condition, stats: Map<string, LeadStats>): boolean {
  const v = stats.get(c.query)?.[c.stat];
  if (v === null || v === undefined) return false;
  return c.op === '>=' ? v >= c.value : v < c.value;
}

function round(n: number): string {
  const digits = Math.abs(n) < 1 ? 3 : 2;
  return String(Math.round(n * 10 ** digits) / 10 ** digits);
}

function fill(template: string, stats: Map<string, LeadStats>, missing: string[]): string {
  return template
    .replace(/\{missing\}/g, missing.length ? ` (not shown: ${missing.join(', ')} could not be read)` : '')
    .replace(/\{(\w+)\.(rise|endRise|peak|start|at|labels)\}/g, (_m, q: string, stat: keyof LeadStats) => {
      const v = stats.get(q)?.[stat];
      if (v === null || v === undefined) return 'n/a';
      return typeof v === 'number' ? round(v) : v;
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
  const stats = leadStats(facts);
  const rule = MECHANISM_RULES.find((r) => r.scenario === scenario && r.when.every((c) => holds(c, stats)));
  if (!rule) return null;
  return {
    rule,
    mechanism: fill(rule.mechanism, stats, missingQueries),
    openLink: rule.openLink ? fill(rule.openLink, stats, missingQueries) : null,
    counterObservation: rule.counterObservation ? fill(rule.counterObservation, stats, missingQueries) : null,
  };
}
