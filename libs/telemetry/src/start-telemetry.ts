import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { metricsStarted, shutdownMetrics, startMetrics } from './metrics';

export interface TelemetryOptions {
  serviceName: string;
  serviceVersion?: string;
  /** OTLP/HTTP endpoint; defaults to OTEL_EXPORTER_OTLP_ENDPOINT. No endpoint, no export. */
  otlpEndpoint?: string;
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
  /** Start the process's metrics too (served on `/metrics` by the role host); default true. */
  metrics?: boolean;
}

export interface TelemetryHandle {
  readonly serviceName: string;
  tracer(name?: string): Tracer;
  shutdown(): Promise<void>;
}

let active: { provider: NodeTracerProvider; handle: TelemetryHandle } | null = null;

/**
 * Starts tracing for this process. Call it before anything else is imported by a service's
 * entry point so every later module sees the registered provider and propagator. A second call
 * in the same process (one-process mode runs all roles together) returns the first handle.
 * Metrics start with it (see ./metrics), unless `metrics: false`.
 */
export function startTelemetry(options: TelemetryOptions): TelemetryHandle {
  if (active) return active.handle;
  const endpoint = options.otlpEndpoint ?? process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const processors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (endpoint) {
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` })));
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion ?? '0.1.0',
    }),
    spanProcessors: processors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const ownsMetrics = options.metrics !== false && !metricsStarted();
  if (ownsMetrics) startMetrics({ serviceName: options.serviceName, serviceVersion: options.serviceVersion });
  const handle: TelemetryHandle = {
    serviceName: options.serviceName,
    tracer: (name?: string) => trace.getTracer(name ?? options.serviceName),
    shutdown: async () => {
      await provider.shutdown();
      if (ownsMetrics) await shutdownMetrics();
      trace.disable();
      propagation.disable();
      context.disable();
      active = null;
    },
  };
  active = { provider, handle };
  return handle;
}

export function telemetryStarted(): boolean {
  return active !== null;
}

/** Flushes pending spans, e.g. before a CLI prints its result and exits. */
export async function flushTelemetry(): Promise<void> {
  if (active) await active.provider.forceFlush();
}
