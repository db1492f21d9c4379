import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, type TelemetryHandle } from '@aoc/telemetry';
import { join } from 'node:path';
import { startPlatform, type Platform } from './embedded-platform';
import { BUNDLED_TICKETS } from './examples/example-series';
import { loadExample, runExample } from './run-example';
import { runSkeletonScenario } from '../test/platform-scenario';

/**
 * Six roles on real Kafka (each with its own SASL principal, so broker ACLs apply) and a real
 * Postgres (each role in its own schema).
 */
describe('walking skeleton on Kafka and Postgres', () => {
  const spans = new InMemorySpanExporter();
  let telemetry: TelemetryHandle;
  let platform: Platform;

  beforeAll(async () => {
    const databaseUrl = process.env['DATABASE_URL'];
    if (!databaseUrl) throw new Error('DATABASE_URL is required');
    telemetry = startTelemetry({ serviceName: 'aoc-test', spanProcessors: [new SimpleSpanProcessor(spans)] });
    platform = await startPlatform({
      databaseUrl,
      transport: { kind: 'kafka', brokers: (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',') },
      kafkaPasswordOf: (role) => process.env[`AOC_KAFKA_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`],
      logLevel: 'error',
    });
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await telemetry?.shutdown();
  }, 60000);

  it('runs the chain across separately authenticated roles into one trace', async () => {
    await runSkeletonScenario(platform, spans);
  }, 150000);

  it('spends the single adaptive refinement over Kafka: seven prior-day windows, one verdict on history', async () => {
    const ticket = join(BUNDLED_TICKETS, 'cpu-saturation.json');
    const { accepted, summary } = await runExample(platform, loadExample(ticket), 120000);
    const threads: { scenario_id: string; round: number; rounds: { round: number; facts: { queryId: string }[] }[] }[] = await platform.dataSource.query(
      `SELECT "scenario_id", "round", "rounds" FROM "router"."scenario_threads" WHERE "run_id" = $1`,
      [accepted.runId],
    );
    const cpu = threads.find((t) => t.scenario_id === 'cpu-saturation');
    expect(cpu?.round).toBe(1);
    expect(cpu?.rounds.map((r) => r.round)).toEqual([0, 1]);
    expect(new Set(cpu?.rounds[1].facts.map((f) => f.queryId.replace(/_prior_\d+d$/, '_prior')))).toEqual(new Set(['cpu_by_component_prior']));
    const planned: { n: string }[] = await platform.dataSource.query(`SELECT count(*)::text AS n FROM "evidence"."planned_batches" WHERE "run_id" = $1 AND "scenario_id" = 'cpu-saturation'`, [accepted.runId]);
    expect(planned[0].n).toBe('2');
    expect(summary.customerReplyMarkdown).toContain('the load is new');
    expect(summary.evidenceStatus).toBe('complete');
  }, 150000);
});
