import { context, propagation, trace, type Context } from '@opentelemetry/api';

/** Writes W3C trace context of `ctx` into a plain header map. */
export function injectTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** Reads W3C trace context from message headers into a new context. */
export function extractTraceContext(headers: Record<string, string | undefined>): Context {
  return propagation.extract(context.active(), headers);
}

export function currentTraceId(): string | null {
  const span = trace.getSpan(context.active());
  return span ? span.spanContext().traceId : null;
}
