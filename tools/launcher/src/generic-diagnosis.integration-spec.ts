import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '@aoc/providers/testing';
import { gauge, minutes } from './examples/series-builders';
import { startPlatform, type Platform } from './embedded-platform';
import { waitForRun, type ExampleRequest } from './run-example';
import { TicketIntakeService } from '@aoc/service-router';

/**
 * The diagnosis chain on metric names no query template knows: CloudWatch-exported RDS metrics in a
 * real Prometheus, one endpoint serving every `cluster` label value. Targets come from that
 * endpoint's inventory, queries from discovery and the metric ontology, conclusions from the
 * family rules.
 */
const CUTOFF = new Date(Math.floor((Date.now() - 2 * 86_400_000) / 3_600_000) * 3_600_000);
const iso = (offsetMin: number) => new Date(CUTOFF.getTime() + offsetMin * 60_000).toISOString();
const times = minutes(iso(-180), iso(0));
const at = (offsetMin: number) => CUTOFF.getTime() / 1000 + offsetMin * 60;
/** Sample-to-sample noise (a fast sine read once a minute looks random) plus a slow drift, as real gauges move. */
const wiggle = (t: number, amp: number) => Math.sin(t / 7) * amp + Math.sin(t / 20_000) * amp * 0.3;

function rds(cluster: string, over: Partial<Record<string, (t: number) => number>> = {}): FixtureSeries[] {
  const labels = { cluster, dbinstance_identifier: cluster, job: 'cloudwatch' };
  const base: Record<string, (t: number) => number> = {
    aws_rds_cpuutilization_average: (t) => 22 + wiggle(t, 2),
    aws_rds_database_connections_average: (t) => 120 + wiggle(t, 4),
    aws_rds_free_storage_space_minimum: (t) => 200 * 2 ** 30 + wiggle(t, 2 ** 20),
    aws_rds_freeable_memory_minimum: (t) => 6 * 2 ** 30 + wiggle(t, 2 ** 22),
    aws_rds_read_iops_average: (t) => 300 + wiggle(t, 15),
    aws_rds_write_latency_average: (t) => 0.002 + wiggle(t, 0.0001),
    aws_rds_network_receive_throughput_average: (t) => 5e6 + wiggle(t, 1e5),
  };
  return Object.entries({ ...base, ...over }).map(([metric, fn]) => gauge(metric, labels, times, fn as (t: number) => number));
}

function series(): FixtureSeries[] {
  return [
    // Connections climb to the limit of 500 from 40 minutes before the cutoff; CPU follows 20 minutes later.
    ...rds('payments-prod', {
      aws_rds_database_connections_average: (t) => (t >= at(-40) ? Math.min(500, 120 + (t - at(-40)) / 3) : 120 + wiggle(t, 4)),
      aws_rds_cpuutilization_average: (t) => (t >= at(-20) ? 75 + wiggle(t, 2) : 22 + wiggle(t, 2)),
    }),
    gauge('pg_settings_max_connections', { cluster: 'payments-prod', job: 'postgres' }, times, () => 500),
    // Free storage runs down to zero.
    ...rds('orders-prod', { aws_rds_free_storage_space_minimum: (t) => (t >= at(-50) ? Math.max(0, 40 * 2 ** 30 - (t - at(-50)) * 2 ** 30 / 60) : 40 * 2 ** 30) }),
    ...rds('billing-db-1'),
  ];
}

const ticket = (key: string, title: string, description: string): ExampleRequest => ({
  mode: 'read',
  trigger: 'replay',
  cutoff: CUTOFF.toISOString(),
  ticket: { key, title, description, reporterRole: 'customer', createdAt: iso(-5), labels: [], comments: [] },
});

describe('diagnosis on unfamiliar metric names through a real Prometheus', () => {
  let prom: RunningPrometheus;
  let platform: Platform;

  beforeAll(async () => {
    prom = await startPrometheus(series());
    platform = await startPlatform({ executor: { mode: 'live', recordings: [], prometheusTargets: [{ name: 'rds-metrics', baseUrl: prom.baseUrl, targetLabel: 'cluster' }] } });
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await prom?.stop();
  });

  const run = async (request: ExampleRequest) => {
    const router = platform.roles.get('router');
    if (!router) throw new Error('router is not running');
    const accepted = await router.get(TicketIntakeService).analyze(request);
    const summary = await waitForRun(platform, accepted.runId, 'published', 90000);
    const briefs: { scenario: string; brief: { hypotheses: [], leadingMechanism: { mode: null, family: string | null; strength: string; statement: string } } | null; evidence_status: string }[] = await platform.dataSource.query(
      `SELECT "scenario", "brief", "evidence_status" FROM "router"."scenario_threads" WHERE "run_id" = $1 ORDER BY "scenario"`,
      [accepted.runId],
    );
    return { accepted, summary, briefs };
  };

  it('the router received the endpoint inventory', async () => {
    const rows: { provider: string; targets: { target: string }[] }[] = await platform.dataSource.query(`SELECT "provider", "targets" FROM "router"."provider_inventories"`);
    expect(rows).toEqual([{ provider: 'prometheus', targets: expect.arrayContaining([{ target: 'payments-prod', aliases: [] }, { target: 'orders-prod', aliases: [] }]) }]);
  });

  it('connection exhaustion: resolves "cluster payments-prod", plans from discovery and names the limit', async () => {
    const { summary, briefs } = await run(ticket('RDS-1', 'Too many connections on cluster payments-prod', 'Since about 40 minutes our app gets "remaining connection slots are reserved" errors from cluster payments-prod.'));
    const lead = briefs.find((b) => b.scenario === 'connection-exhaustion')?.brief?.leadingMechanism;
    expect(lead).toMatchObject({ family: 'connections', strength: 'strong' });
    expect(summary.customerReplyMarkdown).toMatch(/limit of 500/);
    expect(summary.customerReplyMarkdown).toMatch(/CPU utilisation|CPU/);
    expect(summary.customerReplyMarkdown).not.toMatch(/robust z|could not retrieve/i);
    const queries: { query_id: string }[] = await platform.dataSource.query(
      `SELECT DISTINCT "query_id" FROM "provider_executor"."provider_query_events" e JOIN "provider_executor"."batch_executions" b ON b."batch_id" = e."batch_id" WHERE b."run_id" = $1`,
      [summary.runId],
    );
    expect(queries.map((q) => q.query_id)).toEqual(expect.arrayContaining(['connections', 'connection_limit']));
    expect(queries.some((q) => /tidb|tikv|ticdc/.test(q.query_id))).toBe(false);
  }, 120000);

  it('storage full: free storage at 0 is the cause, in customer units', async () => {
    const { summary, briefs } = await run(ticket('RDS-2', 'Writes failing on db instance orders-prod', 'Our db instance orders-prod started rejecting inserts; is the disk full?'));
    expect(briefs.find((b) => b.scenario === 'storage-full')?.brief?.leadingMechanism).toMatchObject({ family: 'storage_free', strength: 'strong' });
    expect(summary.customerReplyMarkdown).toContain('to 0 B');
  }, 120000);

  it('a missing family is said to be missing, never concluded from absence', async () => {
    const { summary, briefs } = await run(ticket('RDS-3', 'Replica lag on cluster billing-db-1', 'Our read replica of cluster billing-db-1 serves stale data, replication lag seems high.'));
    const lead = briefs.find((b) => b.scenario === 'replication-lag')?.brief?.leadingMechanism;
    expect(lead).toMatchObject({ strength: 'undetermined', family: null });
    expect(lead?.statement).toMatch(/no replica lag data/i);
    expect(summary.decision).toBe('human_required');
  }, 120000);

  it('a cluster the inventory does not hold: asks, saying which name was tried', async () => {
    const { summary } = await run(ticket('RDS-4', 'cluster inventory-prod is slow', 'Queries on cluster inventory-prod are slow since this morning.'));
    expect(summary.decision).toBe('human_required');
    expect(summary.customerReplyMarkdown).toContain('inventory-prod');
    expect(summary.evidenceStatus).toBe('not_attempted');
  }, 120000);

  it('two targets: asks which one, listing both', async () => {
    const { summary } = await run(ticket('RDS-5', 'payments-prod and orders-prod slow', 'Both cluster payments-prod and cluster orders-prod are slow.'));
    expect(summary.customerReplyMarkdown).toMatch(/payments-prod, orders-prod|orders-prod, payments-prod/);
  }, 120000);

  it('a healthy instance is a false alarm with its values, without a human', async () => {
    const { summary, briefs } = await run(ticket('RDS-6', 'Alarm on billing-db-1 CPU?', 'We got a CPU alarm for cluster billing-db-1, is anything wrong?'));
    expect(briefs.map((b) => b.brief?.leadingMechanism.statement)).toEqual(expect.arrayContaining([expect.stringMatching(/^The database looks healthy in this window: .*stayed between/)]));
    expect(summary.decision).toBe('internal_only');
  }, 120000);
});
