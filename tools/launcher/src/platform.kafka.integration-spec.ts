import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, type TelemetryHandle } from '@aoc/telemetry';
import { startPlatform, type Platform } from './embedded-platform';
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
});
