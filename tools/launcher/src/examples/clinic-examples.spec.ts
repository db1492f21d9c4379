import { join } from 'node:path';
import { Topics } from '@aoc/contracts';
import { opaqueRef } from '@aoc/providers';
import { startPlatform, type Platform } from '../embedded-platform';
import { loadExample, runExample } from '../run-example';
import { BUNDLED_TICKETS } from './example-series';
import { exampleDigest, HOTSPOT_CLINIC, SLOW_QUERY_CLINIC } from './clinic-examples';

/** The reference the Clinic package lets out for a full digest. */
const ref = (kind: 'digest' | 'plan_digest', name: string) => opaqueRef(kind, exampleDigest(name));

/**
 * The two bundled Clinic examples, replayed from the recordings with no Clinic configuration:
 * each published answer names the statement digest, the numbers and (for the hotspot) the
 * store it is grounded in, and never a full digest.
 */
describe('bundled Clinic examples (replayed evidence)', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform();
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
  });

  /** Runs one bundled ticket; both examples have complete evidence and an open link a human confirms. */
  const analyse = async (file: string, ticketKey: string) => {
    const { summary } = await runExample(platform, loadExample(join(BUNDLED_TICKETS, file)), 90000);
    expect(summary).toMatchObject({ ticketKey, evidenceStatus: 'complete', decision: 'human_required' });
    return summary;
  };

  it('SUP-1201: names the hot store and the insert that dominates TopSQL CPU, and keeps the region link open', async () => {
    const summary = await analyse('tikv-hotspot.json', 'SUP-1201');
    const insert = ref('digest', 'insert order_events');
    const reply = summary.customerReplyMarkdown;
    expect(reply).toContain(`${HOTSPOT_CLINIC.orgId}/${HOTSPOT_CLINIC.clusterId}`);
    // robust-shift-v3 dates the rise of the hot store, so the observation is the shift itself (the mechanism keeps the skew).
    expect(reply).toMatch(/TiKV CPU seconds per second per store on store=tikv-2 rose from a usual level of 0\.\d+ to 3\.\d+; peak 3\.\d+ at \d\d:\d\dZ/);
    expect(reply).toContain(`top statements by CPU time (TopSQL): ${insert} (insert) took 72.4% of the CPU time of the 4 top statements (1,310 CPU-s over 2,350,000 executions, avg 1.9 ms)`);
    expect(reply).toMatch(new RegExp(`Most likely cause: TiKV CPU concentrates on store=tikv-2: it peaks at 3\\.\\d+ CPU-seconds per second at \\d\\d:\\d\\dZ, 4\\.\\d+x the next store, while statement ${insert} \\(insert\\) takes 72\\.4% of the TopSQL CPU time`));
    expect(reply).toContain('Still to confirm: which regions on store=tikv-2 are hot');
    expect(reply).toMatch(/split and scatter them .* AUTO_RANDOM or SHARD_ROW_ID_BITS/);
    expect(summary.internalHandoffMarkdown).toContain('**Leading mechanism (strong):** TiKV CPU concentrates on store=tikv-2');
    expect(summary.internalHandoffMarkdown).toContain('hotspot via clinic (complete)');
    expect(JSON.stringify(summary)).not.toContain(exampleDigest('insert order_events'));
  }, 120000);

  it('SUP-1202: attributes the p99 rise at flat QPS to a plan change of one digest and suggests binding the fast plan', async () => {
    const summary = await analyse('slow-query-regression.json', 'SUP-1202');
    const lookup = ref('digest', 'select orders by customer');
    const slowPlan = ref('plan_digest', 'orders full scan plan');
    const fastPlan = ref('plan_digest', 'orders index range plan');
    const reply = summary.customerReplyMarkdown;
    expect(reply).toContain(`${SLOW_QUERY_CLINIC.orgId}/${SLOW_QUERY_CLINIC.clusterId}`);
    expect(reply).toContain(`${lookup} (select) took 88.3% of the CPU time`);
    expect(reply).toContain(`It ran with 2 plans: ${slowPlan} avg 138 ms over 104,400 executions vs ${fastPlan} avg 3.4 ms over 111,600 (40.6x slower)`);
    expect(reply).toContain(`slow statements by digest, second half of the window: 424 slow statements; ${lookup} (select) 420 of them`);
    expect(reply).toMatch(/Most likely cause: p99 latency rose \d+(\.\d+)?x \(to 0\.75s at \d\d:\d\dZ\) while the statement rate stayed flat/);
    expect(reply).toContain(`its slow-log entries went from 0 in the first half of the window to 420 in the second (avg 1.65s): the optimizer switched this statement to a slower plan.`);
    expect(reply).toContain(`Suggested next step: Pin the faster plan ${fastPlan} of statement ${lookup} with a SQL binding`);
    expect(reply).toContain('ANALYZE TABLE');
    expect(summary.internalHandoffMarkdown).toContain('**Leading mechanism (strong):**');
    expect(summary.internalHandoffMarkdown).toContain('**Open link:** why the optimizer changed the plan');
    for (const name of ['select orders by customer', 'orders full scan plan', 'orders index range plan']) expect(JSON.stringify(summary)).not.toContain(exampleDigest(name));
  }, 120000);

  it('plans the Clinic queries on the <org>/<cluster> target with the cluster label and split slow-log windows', () => {
    const plans = (platform.broker?.messages(Topics.evidenceBatchPlanned.name) ?? []).map((m) => JSON.parse(m.value.toString('utf8')).payload as { provider: string; target: string; queries: { id: string; expression: string; window?: { from: string; to: string } }[] });
    const slow = plans.find((p) => p.target === `${SLOW_QUERY_CLINIC.orgId}/${SLOW_QUERY_CLINIC.clusterId}`);
    expect(slow?.provider).toBe('clinic');
    expect(slow?.queries.map((q) => q.id)).toEqual(['duration_p99', 'qps', 'top_statements', 'slow_queries_after', 'slow_queries_before']);
    expect(slow?.queries[0].expression).toContain(`cluster_id="${SLOW_QUERY_CLINIC.clusterId}"`);
    expect(slow?.queries.find((q) => q.id === 'slow_queries_before')?.window).toEqual({ from: '2026-11-25T10:00:00.000Z', to: '2026-11-25T10:30:00.000Z' });
  });
});
