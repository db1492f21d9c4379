import { createServer, type IncomingMessage, type Server } from 'node:http';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLogger } from './logger';
import { flushTelemetry, startTelemetry, type TelemetryHandle } from './start-telemetry';
import { currentTraceId, extractTraceContext, injectTraceHeaders } from './trace-headers';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('telemetry', () => {
  const received: { url: string; body: string }[] = [];
  const memory = new InMemorySpanExporter();
  let server: Server;
  let handle: TelemetryHandle;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      received.push({ url: req.url ?? '', body: await readBody(req) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    handle = startTelemetry({ serviceName: 'aoc-telemetry-test', otlpEndpoint: `http://127.0.0.1:${port}`, spanProcessors: [new SimpleSpanProcessor(memory)] });
  });

  afterAll(async () => {
    await handle.shutdown();
    await new Promise((r) => server.close(r));
  });

  it('returns the first handle when started twice in one process', () => {
    expect(startTelemetry({ serviceName: 'other' })).toBe(handle);
  });

  it('propagates W3C trace context through message headers', () => {
    const tracer = handle.tracer();
    const producer = tracer.startSpan('publish', { kind: SpanKind.PRODUCER });
    const headers = injectTraceHeaders(trace.setSpan(context.active(), producer));
    expect(headers['traceparent']).toMatch(new RegExp(`^00-${producer.spanContext().traceId}-${producer.spanContext().spanId}-01$`));
    const consumer = tracer.startSpan('process', { kind: SpanKind.CONSUMER }, extractTraceContext(headers));
    producer.end();
    consumer.end();
    const finished = memory.getFinishedSpans().find((s) => s.name === 'process');
    expect(finished?.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(finished?.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
  });

  it('exports spans over OTLP/HTTP to the configured endpoint', async () => {
    handle.tracer().startActiveSpan('otlp-export-check', (span) => {
      expect(currentTraceId()).toBe(span.spanContext().traceId);
      span.end();
    });
    await flushTelemetry();
    const deadline = Date.now() + 10000;
    while (!received.some((r) => r.body.includes('otlp-export-check')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const hit = received.find((r) => r.body.includes('otlp-export-check'));
    expect(hit?.url).toBe('/v1/traces');
    expect(hit?.body).toContain('aoc-telemetry-test');
  });

  it('writes JSON log lines with the trace id and never the value of a secret field', () => {
    const lines: string[] = [];
    const logger = createLogger('router', 'info', (l) => lines.push(l));
    handle.tracer().startActiveSpan('logged', (span) => {
      logger.info('connected', { password: 'hunter2', DATABASE_URL: 'postgres://u:p@h/db', sql: 'SELECT secret', topic: 'aoc.run.published.v1' });
      logger.debug('hidden');
      span.end();
    });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'info', service: 'router', message: 'connected', topic: 'aoc.run.published.v1', password: '[redacted]', DATABASE_URL: '[redacted]', sql: '[redacted]' });
    expect(entry['traceId']).toMatch(/^[a-f0-9]{32}$/);
    expect(lines[0]).not.toContain('hunter2');
  });
});
