import { join } from 'node:path';
import { Topics } from '@aoc/contracts';
import { startPlatform, type Platform } from '../embedded-platform';
import { loadExample, runExample } from '../run-example';
import { BUNDLED_TICKETS } from './example-series';


interface PlannedBatch {
  provider: string;
  target: string;
  ticketKey?: string | null;
  queries: { id: string; operation: string; expression: string }[];
}

/**
 * The bundled Manus and Wetech examples, replayed from evidence recorded through their packages
 * (Grafana datasource proxy in front of a real Prometheus; Wetech's dashboard read by Chromium):
 * the router picks the provider from the inventory the recordings imply, the frozen ticket key
 * reaches the Wetech package, and nothing internal (addresses, SQL text) reaches the answer.
 */
describe('bundled Manus and Wetech examples (replayed evidence)', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform();
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
  });

  const plans = (): PlannedBatch[] => (platform.broker?.messages(Topics.evidenceBatchPlanned.name) ?? []).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: PlannedBatch }).payload);

  it('SUP-1310 on Manus vida: the statement rate doubled and the TiDB CPU followed, from queries without a cluster matcher', async () => {
    const { summary } = await runExample(platform, loadExample(join(BUNDLED_TICKETS, 'manus-vida-cpu.json')), 90000);
    expect(summary).toMatchObject({ ticketKey: 'SUP-1310', evidenceStatus: 'complete' });
    const reply = summary.customerReplyMarkdown;
    expect(reply).toContain('We looked at vida');
    expect(reply).toMatch(/statements per second rose from a usual level of 70\d(\.\d+)? to 140\d/);
    expect(reply).toMatch(/Most likely cause: CPU of component=tidb rose 2\.\d+x/);
    expect(summary.internalHandoffMarkdown).toMatch(/via manus \(complete\)/);
    const manus = plans().filter((p) => p.provider === 'manus');
    expect(manus.length).toBeGreaterThan(0);
    for (const p of manus) {
      expect(p.target).toBe('vida');
      for (const q of p.queries) expect(q.expression).not.toContain('cluster=');
    }
    expect(`${reply}\n${summary.internalHandoffMarkdown}`).not.toMatch(/10\.64\.\d+\.\d+/);
  }, 120000);

  it('APID-30117 on Wetech: the region/cluster target, the ticket key in the batch, and one digest filling the slow log', async () => {
    const { summary } = await runExample(platform, loadExample(join(BUNDLED_TICKETS, 'wetech-full-scan.json')), 90000);
    expect(summary).toMatchObject({ ticketKey: 'APID-30117', evidenceStatus: 'complete' });
    const reply = summary.customerReplyMarkdown;
    expect(reply).toContain('We looked at ap-southeast-1/wt-prod-sg-01');
    expect(reply).toMatch(/slow log, second half of the window: 43 slow statements; digest:[0-9a-f]{16} 43 of them \(100%\), avg 2\.26 s, max 3\.7 s/);
    expect(reply).toMatch(/p99 statement duration rose from a usual level of 4\d ms to 70\d ms/);
    expect(reply).toMatch(/statements per second: .*no shift/);
    const wetech = plans().filter((p) => p.provider === 'wetech');
    expect(wetech.length).toBeGreaterThan(0);
    for (const p of wetech) {
      expect(p).toMatchObject({ target: 'ap-southeast-1/wt-prod-sg-01', ticketKey: 'APID-30117' });
      for (const q of p.queries.filter((x) => x.operation === 'promql_range')) expect(q.expression).toContain('cluster="wt-prod-sg-01"');
    }
    expect(wetech.flatMap((p) => p.queries.map((q) => q.operation))).toEqual(expect.arrayContaining(['slow_query']));
    // The two published messages (the judge's gaps quote the human answer, which may hold SQL).
    const text = `${reply}\n${summary.internalHandoffMarkdown}`;
    expect(text).not.toMatch(/10\.20\.\d+\.\d+|SELECT \* FROM orders|created_at|wetech\.example/);
  }, 120000);
});
