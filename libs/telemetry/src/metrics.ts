import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, InstrumentType, MeterProvider, MetricReader, type Histogram as SdkHistogram } from '@opentelemetry/sdk-metrics';
import type { Attributes, Counter, Histogram, Meter, ObservableGauge, ObservableResult } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/**
 * The platform's metrics, behind a small interface: libraries and services declare and record
 * instruments through this module and never touch the OpenTelemetry SDK. One MeterProvider per
 * process (started by `startMetrics`, idempotent), read on demand and written in the Prometheus
 * text format for a `/metrics` route. Before it starts, recordings are dropped.
 *
 * Labels are bounded: every instrument declares its label keys, a value must look like an
 * identifier (a topic name, an error code, a package name, a role: no spaces, no `:`), and each
 * key keeps at most `maxValues` distinct values (the rest become `other`). Ticket text, SQL,
 * secrets and addresses therefore never become a series.
 */

export type LabelValues<K extends string> = { readonly [P in K]: string | number };

export interface MetricSpec<K extends string> {
  /** Prometheus-style name in OpenTelemetry form, e.g. `aoc_bus_handler_duration_seconds`. Counters get `_total` appended on export. */
  name: string;
  description: string;
  labels: readonly K[];
  /** Closed sets of values for some labels; anything else is recorded as `other`. */
  values?: { readonly [P in K]?: readonly string[] };
  /** Distinct values kept per label (default MAX_LABEL_VALUES); later ones become `other`. */
  maxValues?: number;
}

export interface HistogramSpec<K extends string> extends MetricSpec<K> {
  unit?: string;
  buckets: readonly number[];
}

export interface CounterMetric<K extends string> {
  readonly name: string;
  add(labels: LabelValues<K>, value?: number): void;
}

export interface HistogramMetric<K extends string> {
  readonly name: string;
  record(labels: LabelValues<K>, value: number): void;
  /** Starts a clock; the returned function records the seconds elapsed with the labels it is given. */
  startTimer(): (labels: LabelValues<K>) => number;
}

export interface GaugeSample<K extends string> {
  labels: LabelValues<K>;
  value: number;
}

export type GaugeSource<K extends string> = () => readonly GaugeSample<K>[] | Promise<readonly GaugeSample<K>[]>;

export interface GaugeMetric<K extends string> {
  readonly name: string;
  /** Adds a source read at every scrape (a failing or slow source is left out of that scrape); returns its removal. */
  observe(source: GaugeSource<K>): () => void;
}

export const MAX_LABEL_VALUES = 100;
/** Label value of a value outside the instrument's bound (too many distinct values, or not in its closed set). */
export const OTHER_LABEL_VALUE = 'other';
/** Label value of a value that does not look like an identifier (spaces, `:`, an address, too long). */
export const INVALID_LABEL_VALUE = 'invalid';
/** A gauge source that does not answer within this bound is left out of the scrape. */
const GAUGE_SOURCE_TIMEOUT_MS = 2000;

const IDENTIFIER = /^@?[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,119}$/;
const LOOKS_LIKE_ADDRESS = /(^|[^0-9])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}([^0-9]|$)|\/\//;

/** The value a label gets: the value itself when it is an identifier, else `invalid`. */
export function safeLabelValue(value: string | number): string {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : INVALID_LABEL_VALUE) : value;
  return IDENTIFIER.test(text) && !LOOKS_LIKE_ADDRESS.test(text) ? text : INVALID_LABEL_VALUE;
}

class LabelBound<K extends string> {
  private readonly seen = new Map<K, Set<string>>();
  private readonly max: number;

  constructor(private readonly spec: MetricSpec<K>) {
    this.max = spec.maxValues ?? MAX_LABEL_VALUES;
    for (const key of spec.labels) this.seen.set(key, new Set());
  }

  attributes(labels: LabelValues<K>): Attributes {
    const out: Attributes = {};
    for (const key of this.spec.labels) {
      let value = safeLabelValue(labels[key] ?? '');
      const closed = this.spec.values?.[key];
      if (closed && !closed.includes(value)) value = OTHER_LABEL_VALUE;
      const seen = this.seen.get(key) as Set<string>;
      if (!seen.has(value)) {
        if (seen.size >= this.max) value = OTHER_LABEL_VALUE;
        else seen.add(value);
      }
      out[key] = value;
    }
    return out;
  }
}

interface Bindable {
  bind(meter: Meter | null): void;
}

const declared: Bindable[] = [];
let current: { provider: MeterProvider; reader: PullReader; meter: Meter; serializer: PrometheusSerializer; serviceName: string } | null = null;

function declare<T extends Bindable>(metric: T): T {
  declared.push(metric);
  metric.bind(current?.meter ?? null);
  return metric;
}

/**
 * How each kind of instrument is created on a meter: the one place the SDK's create calls and their
 * options are spelled. The classes below only record; this table is what binding them needs.
 */
const CREATE = {
  counter: <K extends string>(meter: Meter, spec: MetricSpec<K>): Counter => meter.createCounter(spec.name, { description: spec.description }),
  histogram: <K extends string>(meter: Meter, spec: HistogramSpec<K>): Histogram =>
    meter.createHistogram(spec.name, { description: spec.description, unit: spec.unit, advice: { explicitBucketBoundaries: [...spec.buckets] } }),
  gauge: <K extends string>(meter: Meter, spec: MetricSpec<K>): ObservableGauge => meter.createObservableGauge(spec.name, { description: spec.description }),
};

/** What every instrument shares: its spec, its label bound, and its SDK instrument while metrics run (null before). */
abstract class Instrument<K extends string, S extends MetricSpec<K>, I> implements Bindable {
  protected instrument: I | null = null;
  protected readonly bound: LabelBound<K>;

  constructor(
    protected readonly spec: S,
    private readonly create: (meter: Meter, spec: S) => I,
  ) {
    this.bound = new LabelBound(spec);
  }

  get name(): string {
    return this.spec.name;
  }

  bind(meter: Meter | null): void {
    this.instrument = meter ? this.create(meter, this.spec) : null;
  }
}

class CounterImpl<K extends string> extends Instrument<K, MetricSpec<K>, Counter> implements CounterMetric<K> {
  constructor(spec: MetricSpec<K>) {
    super(spec, CREATE.counter);
  }

  add(labels: LabelValues<K>, value = 1): void {
    if (!this.instrument || !(value >= 0)) return;
    this.instrument.add(value, this.bound.attributes(labels));
  }
}

class HistogramImpl<K extends string> extends Instrument<K, HistogramSpec<K>, Histogram> implements HistogramMetric<K> {
  constructor(spec: HistogramSpec<K>) {
    super(spec, CREATE.histogram);
  }

  record(labels: LabelValues<K>, value: number): void {
    if (!this.instrument || !Number.isFinite(value) || value < 0) return;
    this.instrument.record(value, this.bound.attributes(labels));
  }

  startTimer(): (labels: LabelValues<K>) => number {
    const started = process.hrtime.bigint();
    return (labels) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.record(labels, seconds);
      return seconds;
    };
  }
}

function withinBound<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('gauge source too slow')), GAUGE_SOURCE_TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

class GaugeImpl<K extends string> extends Instrument<K, MetricSpec<K>, ObservableGauge> implements GaugeMetric<K> {
  private readonly sources = new Set<GaugeSource<K>>();

  constructor(spec: MetricSpec<K>) {
    super(spec, CREATE.gauge);
  }

  /** Moves the scrape callback to the new SDK gauge: the old provider's gauge stops reading the sources. */
  override bind(meter: Meter | null): void {
    this.instrument?.removeCallback(this.collect);
    super.bind(meter);
    this.instrument?.addCallback(this.collect);
  }

  observe(source: GaugeSource<K>): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }

  /** One scrape: every source read within its bound; a failing or slow one is left out. */
  private readonly collect = async (result: ObservableResult): Promise<void> => {
    const read = await Promise.allSettled([...this.sources].map((source) => withinBound(Promise.resolve().then(source))));
    // Samples with the same labels from several sources are summed (one observation per label set).
    const sums = new Map<string, { attributes: Attributes; value: number }>();
    for (const r of read) {
      if (r.status !== 'fulfilled') continue;
      for (const sample of r.value) {
        if (!Number.isFinite(sample.value)) continue;
        const attributes = this.bound.attributes(sample.labels);
        const key = JSON.stringify(attributes);
        const entry = sums.get(key) ?? { attributes, value: 0 };
        entry.value += sample.value;
        sums.set(key, entry);
      }
    }
    for (const { attributes, value } of sums.values()) result.observe(value, attributes);
  };
}

export function counter<K extends string>(spec: MetricSpec<K>): CounterMetric<K> {
  return declare(new CounterImpl(spec));
}

export function histogram<K extends string>(spec: HistogramSpec<K>): HistogramMetric<K> {
  return declare(new HistogramImpl(spec));
}

export function gauge<K extends string>(spec: MetricSpec<K>): GaugeMetric<K> {
  return declare(new GaugeImpl(spec));
}

/**
 * Reads the provider on demand (a scrape); pushes nothing. Counters and histograms are
 * cumulative (Prometheus' model); gauges are read per scrape only, so a series whose source is
 * gone (a stopped bus, a revoked partition) disappears instead of repeating its last value.
 */
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: (type) => (type === InstrumentType.OBSERVABLE_GAUGE ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE) });
  }

  protected async onForceFlush(): Promise<void> {
    /* pull only */
  }
  protected async onShutdown(): Promise<void> {
    /* nothing held */
  }
}

export interface MetricsOptions {
  serviceName: string;
  serviceVersion?: string;
}

export interface MetricsHandle {
  readonly serviceName: string;
  shutdown(): Promise<void>;
}

/** Content type of `renderMetrics()`: the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Starts the process's metrics (one MeterProvider, read on demand). A second call returns the
 * running one: in one-process mode every role shares it (their series differ by `role`).
 */
export function startMetrics(options: MetricsOptions): MetricsHandle {
  if (!current) {
    const reader = new PullReader();
    const resource = defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: options.serviceVersion ?? '0.1.0' }));
    const provider = new MeterProvider({ resource, readers: [reader] });
    // Scope labels off: every series carries only the labels its instrument declares.
    current = { provider, reader, meter: provider.getMeter('auto-oncall'), serializer: new PrometheusSerializer(undefined, false, undefined, false, true), serviceName: options.serviceName };
    for (const metric of declared) metric.bind(current.meter);
  }
  const serviceName = current.serviceName;
  return { serviceName, shutdown: shutdownMetrics };
}

export function metricsStarted(): boolean {
  return current !== null;
}

/** Stops the provider; recordings are dropped until metrics start again (a fresh start begins at zero). */
export async function shutdownMetrics(): Promise<void> {
  const running = current;
  if (!running) return;
  current = null;
  for (const metric of declared) metric.bind(null);
  await running.provider.shutdown();
}

/** The process's metrics in the Prometheus text format (what `/metrics` serves). */
export async function renderMetrics(): Promise<string> {
  if (!current) return '# metrics are not started in this process\n';
  const { resourceMetrics } = await current.reader.collect({ timeoutMillis: 5000 });
  return current.serializer.serialize(resourceMetrics as Parameters<PrometheusSerializer['serialize']>[0]);
}

/** One series as tests read it: a counter's or gauge's value, a histogram's count and sum. */
export interface MetricPoint {
  name: string;
  labels: Record<string, string>;
  value: number;
  count?: number;
  sum?: number;
}

/** The current value of every series (for tests and diagnostics). */
export async function metricsSnapshot(): Promise<MetricPoint[]> {
  if (!current) return [];
  const { resourceMetrics } = await current.reader.collect({ timeoutMillis: 5000 });
  const points: MetricPoint[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const dp of metric.dataPoints) {
        const labels = Object.fromEntries(Object.entries(dp.attributes).map(([k, v]) => [k, String(v)]));
        if (metric.dataPointType === DataPointType.HISTOGRAM) {
          const h = dp.value as SdkHistogram;
          points.push({ name: metric.descriptor.name, labels, value: h.count, count: h.count, sum: h.sum ?? 0 });
        } else {
          points.push({ name: metric.descriptor.name, labels, value: dp.value as number });
        }
      }
    }
  }
  return points;
}
