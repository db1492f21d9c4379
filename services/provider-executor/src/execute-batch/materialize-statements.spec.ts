import { asSeriesResult, materializeStatements } from './materialize-statements';

const HOT = 'digest:3f2a91c07b5d4e18';
const WARM = 'digest:9b1c22d0e4f5a611';
const entry = (digest: string, plan: string | null, cpu: number, exec: number, avg: number) => ({
  digest_ref: digest,
  plan_digest_ref: plan,
  statement_type: 'select' as const,
  exec_count: exec,
  cpu_time_ms: cpu,
  total_latency_ms: null,
  avg_latency_ms: avg,
  max_latency_ms: null,
  max_mem_bytes: null,
  error_count: null,
});
const group = (digest: string, count: number, avg: number, first: string) => ({
  digest_ref: digest,
  statement_type: 'select' as const,
  count,
  failed_count: 0,
  internal_count: 0,
  total_query_time_s: count * avg,
  max_query_time_s: avg * 2,
  avg_query_time_s: avg,
  max_mem_bytes: null,
  max_process_keys: 120000,
  first_seen: first,
  last_seen: '2026-11-24T10:59:00.000Z',
});

describe('materializeStatements', () => {
  it('ranks TopSQL digests by their share of CPU time and names the lead one', () => {
    const out = materializeStatements('top_statements', 'top statements by CPU time (TopSQL)', {
      transport: 'clinic_api',
      order_by: 'cpu_time',
      entries: [entry(HOT, 'plan_digest:aa', 720_000, 400_000, 2.1), entry(WARM, 'plan_digest:bb', 80_000, 20_000, 4)],
    });
    expect(out?.facts[0]).toMatchObject({ kind: 'top_item', subject: `statement ${HOT} (select)`, value: 90, unit: '% of TopSQL CPU time', attributes: { digest: HOT, rank: 1, share: 90, execCount: 400_000, cpuTimeMs: 720_000, plans: 1 } });
    expect(out?.facts[1].attributes).toMatchObject({ digest: WARM, rank: 2, share: 10 });
    expect(out?.observations).toEqual([`top statements by CPU time (TopSQL): ${HOT} (select) took 90% of the CPU time of the 2 top statements (720 CPU-s over 400,000 executions, avg 2.1 ms); next ${WARM} 10%.`]);
  });

  it('shows a digest that ran with two plans and how much slower one of them is', () => {
    const out = materializeStatements('top_statements', 'top statements by CPU time (TopSQL)', {
      transport: 'clinic_api',
      order_by: 'cpu_time',
      entries: [entry(HOT, 'plan_digest:slow', 900_000, 30_000, 140), entry(WARM, 'plan_digest:cc', 60_000, 50_000, 1.2), entry(HOT, 'plan_digest:fast', 40_000, 30_000, 3.5)],
    });
    expect(out?.facts[0].attributes).toMatchObject({ digest: HOT, plans: 2, planLatencyRatio: 40, slowPlan: 'plan_digest:slow', slowPlanAvgMs: 140, fastPlan: 'plan_digest:fast', fastPlanAvgMs: 3.5, execCount: 60_000 });
    expect(out?.observations[0]).toContain('It ran with 2 plans: plan_digest:slow avg 140 ms over 30,000 executions vs plan_digest:fast avg 3.5 ms over 30,000 (40x slower).');
  });

  it('groups the slow log by digest, and an empty slow log is a fact, not a gap', () => {
    const after = materializeStatements('slow_queries_after', 'slow statements by digest, second half of the window', {
      transport: 'clinic_api',
      total_slow_queries: 1150,
      truncated: false,
      groups: [group(WARM, 10, 0.4, '2026-11-24T10:35:00.000Z'), group(HOT, 1140, 1.24, '2026-11-24T10:31:00.000Z')],
    });
    expect(after?.facts[0]).toMatchObject({ kind: 'top_item', value: 1140, attributes: { digest: HOT, rank: 1, count: 1140, avgQueryTimeS: 1.24, firstSeen: '2026-11-24T10:31:00.000Z' } });
    expect(after?.facts.at(-1)).toMatchObject({ kind: 'count', subject: 'slow_queries_after: slow statements', value: 1150 });
    expect(after?.observations[0]).toBe(`slow statements by digest, second half of the window: 1,150 slow statements; ${HOT} (select) 1,140 of them (99.1%), avg 1.24 s, max 2.48 s, first at 10:31Z; next ${WARM} 10.`);
    const before = materializeStatements('slow_queries_before', 'slow statements by digest, first half of the window', { transport: 'clinic_api', total_slow_queries: 0, truncated: false, groups: [] });
    expect(before).toEqual({ facts: [expect.objectContaining({ kind: 'count', value: 0 })], observations: ['slow statements by digest, first half of the window: no statement reached the slow-log threshold.'], gaps: [] });
  });

  it('leaves other result shapes to the metric summariser and reads Clinic metrics in its shape', () => {
    expect(materializeStatements('qps', 'qps', { seriesCount: 0, series: [] })).toBeNull();
    const clinic = { result_type: 'matrix', series_count: 1, omitted_series: 0, series: [{ labels: { store: 'tikv-2' }, points: 60, first: 0.5, last: 3.5, min: 0.5, max: 3.6, mean: 2, max_at: '2026-11-24T02:40:00.000Z' }] };
    expect(asSeriesResult(clinic)).toEqual({ resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [{ labels: { store: 'tikv-2' }, points: 60, first: 0.5, last: 3.5, min: 0.5, max: 3.6, mean: 2, maxAt: '2026-11-24T02:40:00.000Z' }] });
    expect(asSeriesResult({ seriesCount: 0 })).toEqual({ seriesCount: 0 });
  });
});
