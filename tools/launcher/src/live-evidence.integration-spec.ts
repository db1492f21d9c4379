import { join } from 'node:path';
import { startPrometheus, type RunningPrometheus } from '@aoc/providers/testing';
import { latencyRegressionSeries } from './examples/example-series';
import { startPlatform, type Platform } from './embedded-platform';
import { BUNDLED_TICKETS } from './examples/example-series';
import { loadExample, runExample } from './run-example';

/**
 * The Provider Executor in live mode inside the running platform: the example ticket's queries
 * go to a real Prometheus holding the incident, and the executor's own tables record every
 * logical query event and HTTP attempt by status class.
 */
describe('live evidence from a real Prometheus through the executor', () => {
  let prom: RunningPrometheus;
  let platform: Platform;

  beforeAll(async () => {
    prom = await startPrometheus(latencyRegressionSeries());
    platform = await startPlatform({ executor: { mode: 'live', recordings: [], prometheusTargets: [{ name: 'tidb-prod-7f3a', baseUrl: prom.baseUrl }] } });
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await prom?.stop();
  });

  it('grounds the answer in fetched facts and records the provider events', async () => {
    const { accepted, summary } = await runExample(platform, loadExample(join(BUNDLED_TICKETS, 'latency-regression.json')), 90000);
    expect(summary.customerReplyMarkdown).toMatch(/p99 statement duration[^\n]*49 ms[^\n]*peak 94 ms at 10:41Z/);
    expect(summary.customerReplyMarkdown).toMatch(/statements per second[^\n]*peak 260/);
    const events: { query_id: string; outcome: string }[] = await platform.dataSource.query(`SELECT "query_id", "outcome" FROM "provider_executor"."provider_query_events" WHERE "run_id" = $1 ORDER BY "query_id"`, [accepted.runId]);
    expect(events).toEqual([
      { query_id: 'duration_p99', outcome: 'complete' },
      { query_id: 'qps', outcome: 'complete' },
    ]);
    // TopSQL is not something the generic package serves: the planner says so instead of planning it.
    expect(summary.internalHandoffMarkdown).toContain('Not available from prometheus: statements with the most time or CPU');
    const http: { status_class: string; n: string }[] = await platform.dataSource.query(
      `SELECT h."status_class", count(*)::text AS n FROM "provider_executor"."provider_http_attempts" h JOIN "provider_executor"."batch_executions" b ON b."batch_id" = h."batch_id" WHERE b."run_id" = $1 GROUP BY 1`,
      [accepted.runId],
    );
    expect(http).toEqual([{ status_class: '200', n: '2' }]);
    // The rendered answer never carries the provider's address.
    expect(JSON.stringify(summary)).not.toContain(prom.baseUrl.replace('http://', ''));
  }, 120000);
});
