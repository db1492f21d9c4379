import type { EvidenceFactV1 } from '@aoc/contracts';
import { MECHANISM_RULES, MECHANISM_RULES_VERSION, fireRule, leadStats } from './mechanism-rules';

const HOT = 'digest:3f2a91c07b5d4e18';
const OTHER = 'digest:9b1c22d0e4f5a611';

const item = (queryId: string, rank: number, digest: string, value: number, attributes: Record<string, string | number> = {}): EvidenceFactV1 => ({
  queryId,
  kind: 'top_item',
  subject: `statement ${digest} (select)`,
  value,
  unit: null,
  attributes: { digest, rank, statementType: 'select', ...attributes },
});
const slowCount = (queryId: string, total: number): EvidenceFactV1 => ({ queryId, kind: 'count', subject: `${queryId}: slow statements`, value: total, unit: 'statements', attributes: {} });

const metric = (queryId: string, first: number, max: number, last: number, labels = ''): EvidenceFactV1 => ({
  queryId,
  kind: 'metric_summary',
  subject: `${queryId}{${labels}}`,
  value: max,
  unit: null,
  attributes: { first, last, min: Math.min(first, last), mean: (first + max) / 2, maxAt: '2026-11-20T10:41:00.000Z', points: 60 },
});

describe('mechanism rules', () => {
  it('reads the lead series of each query', () => {
    const stats = leadStats([metric('cpu', 2, 8, 8, 'component=tidb'), metric('cpu', 1, 2, 2, 'component=tikv')]);
    expect(stats.get('cpu')).toEqual({ rise: 4, endRise: 4, skew: 4, peak: 8, start: 2, at: '10:41Z', labels: 'component=tidb' });
  });

  it('attributes a latency rise with more statements to added workload and keeps the link open', () => {
    const fired = fireRule('latency-regression', [metric('duration_p99', 0.049, 0.094, 0.094), metric('qps', 200, 260, 260)], ['top_statements']);
    expect(fired?.rule.id).toBe('latency-with-load');
    expect(fired?.rule.strength).toBe('moderate');
    expect(fired?.mechanism).toContain('rose 1.92x (to 0.094s at 10:41Z) together with a 1.3x rise');
    expect(fired?.openLink).toBe('which statements make up the added load (not shown: top_statements could not be read)');
  });

  it('separates a per-statement slowdown from added load', () => {
    expect(fireRule('latency-regression', [metric('duration_p99', 0.04, 0.09, 0.09), metric('qps', 200, 205, 200)], [])?.rule.id).toBe('latency-without-load');
  });

  it('says plainly when the database was healthy', () => {
    const fired = fireRule('latency-regression', [metric('duration_p99', 0.025, 0.026, 0.025), metric('qps', 80, 81, 80)], []);
    expect(fired?.rule).toMatchObject({ id: 'latency-flat', strength: 'strong', healthy: true });
    expect(fired?.openLink).toBeNull();
  });

  it('blames the sink when lag grows, sink writes slow down and upstream writes are flat', () => {
    const fired = fireRule('replication-lag', [metric('changefeed_lag', 2, 2824, 2824, 'changefeed=cf-orders'), metric('sink_duration', 0.05, 1, 1), metric('qps', 1500, 1500, 1500)], []);
    expect(fired?.rule.id).toBe('sink-bottleneck');
    expect(fired?.mechanism).toContain('changefeed=cf-orders');
    expect(fired?.counterObservation).toContain('rules out a write surge');
  });

  it('is versioned data whose ids are unique', () => {
    expect(MECHANISM_RULES_VERSION).toBe('mechanisms-v2');
    expect(new Set(MECHANISM_RULES.map((r) => r.id)).size).toBe(MECHANISM_RULES.length);
  });

  it('names the hot store and the statement dominating TopSQL CPU as a hotspot', () => {
    const facts = [
      metric('store_cpu', 0.7, 3.62, 3.5, 'store=tikv-2'),
      metric('store_cpu', 0.7, 0.81, 0.8, 'store=tikv-0'),
      item('top_statements', 1, HOT, 71.3, { share: 71.3, execCount: 412_000, avgLatencyMs: 4.5 }),
      item('top_statements', 2, OTHER, 8.2, { share: 8.2, execCount: 9000 }),
    ];
    const fired = fireRule('hotspot', facts, []);
    expect(fired?.rule).toMatchObject({ id: 'store-hotspot', strength: 'strong' });
    expect(fired?.mechanism).toBe(
      `TiKV CPU concentrates on store=tikv-2: it peaks at 3.62 CPU-seconds per second at 10:41Z, 4.47x the next store, while statement ${HOT} (select) takes 71.3% of the TopSQL CPU time (412,000 executions, avg 4.5 ms): a hotspot, with this statement hitting regions led by that one store.`,
    );
    expect(fired?.openLink).toContain('which regions on store=tikv-2 are hot');
    expect(fired?.rule.mitigation).toMatch(new RegExp(`SPLIT TABLE .* AUTO_RANDOM or SHARD_ROW_ID_BITS; or change the access pattern of statement ${HOT} .* LEFT\\(SHA2\\(LOWER\\(DIGEST\\), 256\\), 16\\)`));
    expect(fireRule('cpu-saturation', [metric('cpu_by_component', 2.1, 5.6, 5.6, 'component=tikv'), facts[2]], [])?.mechanism).toContain(`statement ${HOT} (select) takes 71.3% of the TopSQL CPU time (412,000 executions): that statement drives the CPU rise.`);
    // Without a dominating statement the skew alone is a weaker, still open, hotspot.
    expect(fireRule('hotspot', [facts[0], facts[1], item('top_statements', 1, HOT, 30, { share: 30 })], [])?.rule).toMatchObject({ id: 'store-skew', strength: 'moderate' });
    expect(fireRule('hotspot', [metric('store_cpu', 1, 1.2, 1.2, 'store=tikv-2'), metric('store_cpu', 1, 1.1, 1.1, 'store=tikv-0'), facts[2]], [])).toBeNull();
  });

  it('attributes a latency rise at flat QPS to a plan change of the statement that turned slow', () => {
    const facts = [
      metric('duration_p99', 0.021, 0.94, 0.9),
      metric('qps', 1800, 1830, 1810),
      item('top_statements', 1, HOT, 88.1, { share: 88.1, plans: 2, planLatencyRatio: 40.57, slowPlan: 'plan_digest:1111111111111111', slowPlanAvgMs: 142, fastPlan: 'plan_digest:2222222222222222', fastPlanAvgMs: 3.5 }),
      item('slow_queries_after', 1, HOT, 1140, { count: 1140, avgQueryTimeS: 1.24 }),
      slowCount('slow_queries_after', 1150),
      item('slow_queries_before', 1, OTHER, 3, { count: 3, avgQueryTimeS: 0.4 }),
      slowCount('slow_queries_before', 3),
    ];
    const fired = fireRule('latency-regression', facts, []);
    expect(fired?.rule).toMatchObject({ id: 'plan-regression', strength: 'strong', severity: 'high' });
    expect(fired?.mechanism).toContain(`Statement ${HOT} ran with two plans: plan_digest:1111111111111111 averages 142 ms per execution against 3.5 ms for plan_digest:2222222222222222 (40.57x)`);
    expect(fired?.mechanism).toContain('slow-log entries went from 0 in the first half of the window to 1140 in the second (avg 1.24s)');
    expect(fired?.counterObservation).toBe('The statement rate stayed flat (1.02x), so added load does not explain the latency rise.');
    expect(fired?.rule.mitigation).toMatch(new RegExp(`^Pin the faster plan plan_digest:2222222222222222 of statement ${HOT} with a SQL binding: .*CREATE GLOBAL BINDING .* ANALYZE TABLE`));
    // Without the TopSQL plan evidence it is a statement that turned slow, for a human to explain.
    const noPlans = fireRule('latency-regression', facts.filter((f) => f.queryId !== 'top_statements'), ['top_statements']);
    expect(noPlans?.rule).toMatchObject({ id: 'statement-turned-slow', strength: 'moderate' });
    expect(noPlans?.openLink).toBe('whether its plan changed, or it waits on locks or a busy store (not shown: top_statements could not be read)');
    // A baseline that could not be read is not a baseline of zero.
    expect(fireRule('latency-regression', facts.filter((f) => f.queryId !== 'slow_queries_before'), ['slow_queries_before'])?.rule.id).toBe('latency-without-load');
    // The same digest already as slow before the window is no change.
    const steady = [...facts.slice(0, 5), item('slow_queries_before', 1, HOT, 1000, { count: 1000 }), slowCount('slow_queries_before', 1000)];
    expect(fireRule('latency-regression', steady, [])?.rule.id).toBe('latency-without-load');
  });

  it('fires nothing when a needed query has no facts', () => {
    expect(fireRule('latency-regression', [metric('duration_p99', 0.04, 0.09, 0.09)], ['qps'])).toBeNull();
    expect(fireRule('general-health', [metric('qps', 1, 5, 5)], [])).toBeNull();
  });
});
