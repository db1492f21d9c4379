import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * Checks that a run forms one trace: every consumer span's parent is the producer span of the
 * same message, and the chain crosses the expected roles.
 */
export function assertOneTraceWithParentLinks(spans: ReadableSpan[], traceId: string, expectedRoles: string[]): void {
  const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
  const producers = new Map(inTrace.filter((s) => s.kind === SpanKind.PRODUCER).map((s) => [s.spanContext().spanId, s]));
  const consumers = inTrace.filter((s) => s.kind === SpanKind.CONSUMER);
  expect(consumers.length).toBeGreaterThanOrEqual(expectedRoles.length);
  for (const consumer of consumers) {
    const parentId = consumer.parentSpanContext?.spanId;
    const producer = parentId ? producers.get(parentId) : undefined;
    expect({ consumer: consumer.name, parentIsProducer: producer !== undefined }).toEqual({ consumer: consumer.name, parentIsProducer: true });
    expect(producer?.attributes['messaging.destination.name']).toBe(consumer.attributes['messaging.destination.name']);
    expect(producer?.attributes['messaging.message.id']).toBe(consumer.attributes['messaging.message.id']);
  }
  const roles = new Set(consumers.map((c) => String(c.attributes['aoc.role'])));
  for (const role of expectedRoles) expect([...roles]).toContain(role);
  // No span of this run escaped into another trace.
  const runId = consumers.find((c) => c.attributes['aoc.run_id'] !== undefined)?.attributes['aoc.run_id'];
  expect(runId).toBeDefined();
  const strays = spans.filter((s) => s.attributes['aoc.run_id'] === runId && s.spanContext().traceId !== traceId);
  expect(strays.map((s) => s.name)).toEqual([]);
}
