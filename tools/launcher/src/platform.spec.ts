import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Topics } from '@aoc/contracts';
import { startTelemetry, type TelemetryHandle } from '@aoc/telemetry';
import { startPlatform, type Platform } from './embedded-platform';
import { runSkeletonScenario } from '../test/platform-scenario';

describe('walking skeleton, one process (in-process bus, embedded Postgres)', () => {
  const spans = new InMemorySpanExporter();
  let telemetry: TelemetryHandle;
  let platform: Platform;

  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'aoc-test', spanProcessors: [new SimpleSpanProcessor(spans)] });
    platform = await startPlatform();
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await telemetry?.shutdown();
  });

  it('takes the bundled ticket through every topic to a published answer and a verdict in one trace', async () => {
    await runSkeletonScenario(platform, spans);
  }, 120000);

  it('never hands the router reason to the evidence role', () => {
    const requests = platform.broker?.messages(Topics.evidenceRequested.name) ?? [];
    expect(requests.length).toBeGreaterThan(0);
    for (const m of requests) {
      const payload = JSON.parse(m.value.toString('utf8')).payload as Record<string, unknown>;
      expect(Object.keys(payload)).not.toContain('reason');
      expect(JSON.stringify(payload)).not.toMatch(/Suspect /);
    }
  });
});
