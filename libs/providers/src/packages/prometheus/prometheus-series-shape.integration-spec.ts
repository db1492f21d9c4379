import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { executeTool } from '../../index';
import { servePrometheus } from '../../testing/real-prometheus';
import { hasAtModifier, MAX_SCORED_SERIES, queryPrometheus, type SeriesSummary } from '../../connectors/prometheus-connector';
import { METRICS_MAX_WINDOW_MS, prometheusPackage, type PrometheusMetricOut } from './prometheus.package';

const CLUSTER = 'pg-shape-1';
const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
/** One sample a minute from 09:00 (the hour before the window) to 11:00. */
const twoHours = Array.from({ length: 121 }, (_, i) => T0 - 3600 + i * 60);
const MANY = 10_000;

/** OpenMetrics lines for one series; values are written as given, so `NaN` and `+Inf` reach the TSDB as they are. */
function lines(metric: string, labels: Record<string, string>, samples: [number, string][]): string[] {
  const l = Object.entries({ cluster: CLUSTER, ...labels })
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return samples.map(([t, v]) => `${metric}{${l}} ${v} ${t}`);
}

function fixture(): string {
  const out: string[] = [];
  out.push('# TYPE aoc_ramp_gauge gauge', ...lines('aoc_ramp_gauge', {}, twoHours.map((t) => [t, String(t < T0 ? 100 : 100 + (t - T0) / 60)])));
  out.push('# TYPE aoc_bad_gauge gauge', ...lines('aoc_bad_gauge', {}, twoHours.map((t, i) => [t, i % 10 === 3 ? 'NaN' : i % 10 === 7 ? '+Inf' : i % 10 === 8 ? '-Inf' : '5'])));
  out.push('# TYPE aoc_nan_gauge gauge', ...lines('aoc_nan_gauge', {}, twoHours.map((t) => [t, 'NaN'])));
  // No sample from 10:20 to 10:40: past the 5-minute lookback, Prometheus answers nothing there.
  out.push('# TYPE aoc_gappy_gauge gauge', ...lines('aoc_gappy_gauge', {}, twoHours.filter((t) => t < T0 + 1200 || t >= T0 + 2400).map((t) => [t, '7'])));
  // A counter that restarts from 0 at 10:30.
  out.push('# TYPE aoc_reset counter', ...lines('aoc_reset_total', {}, twoHours.map((t) => [t, String(t < T0 + 1800 ? 1000 + (t - T0 + 3600) : t - T0 - 1800)])));
  // Uptime that falls back to 0 at 10:40 (a restart), and was already running the hour before.
  out.push('# TYPE mysql_global_status_uptime gauge', ...lines('mysql_global_status_uptime', {}, twoHours.map((t) => [t, String(t < T0 + 2400 ? 50_000 + t - T0 : t - T0 - 2400)])));
  // Ten thousand series of one metric; shard 7777 steps up at 10:40.
  out.push('# TYPE aoc_many_gauge gauge');
  const sparse = twoHours.filter((_, i) => i % 10 === 0);
  for (let s = 0; s < MANY; s++) out.push(...lines('aoc_many_gauge', { shard: String(s) }, sparse.map((t) => [t, String(s === 7777 && t >= T0 + 2400 ? 90 : 10 + (s % 50))])));
  out.push('# EOF');
  return out.join('\n') + '\n';
}

describe('generic Prometheus package: shape, prior hour and bad input on a real Prometheus', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aoc-prom-shape-'));
    writeFileSync(join(dir, 'series.om'), fixture());
    execFileSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'series.om'), join(dir, 'data')], { stdio: 'pipe' });
    const served = await servePrometheus(dir, join(dir, 'data'));
    child = served.child;
    baseUrl = served.baseUrl;
  }, 120000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child?.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
  const run = async (queries: unknown[], w: { from: string; to: string } = window) => {
    const result = await executeTool(prometheusPackage([{ name: CLUSTER, baseUrl }]), { target: CLUSTER, window: w, queries }, { now: new Date('2026-11-21T00:00:00Z') });
    if (!result.ok) throw new Error(result.details.error_code);
    return result.details.queries as PrometheusMetricOut[];
  };
  const sel = (metric: string) => `${metric}{cluster="${CLUSTER}"}`;

  it('summarises the window as before and the hour before it apart: a ramp from an earlier level of 100', async () => {
    const [ramp, pinned] = await run([
      { id: 'ramp', kind: 'range', promql: sel('aoc_ramp_gauge'), stepSeconds: 60 },
      { id: 'pinned', kind: 'range', promql: `${sel('aoc_ramp_gauge')} @ end()`, stepSeconds: 60 },
    ]);
    const s = ramp.series?.[0];
    // The window's own statistics: 61 points from 10:00, first 100, last 160.
    expect(s).toMatchObject({ points: 61, first: 100, last: 160, min: 100, max: 160, priorMedian: 100, priorPoints: 60, slope: 60, trend: 1 });
    expect(s?.shape).toEqual([102, 107, 112, 117, 122, 127, 132, 137, 142, 147, 152, 157.5]);
    // `@ end()` would move with a wider read: such a query reads exactly the window.
    expect(pinned.series?.[0]).toMatchObject({ points: 61, first: 160, last: 160 });
    expect(pinned.series?.[0]).not.toHaveProperty('priorMedian');
  });

  it('keeps every window statistic exactly as a read from the window start, for steps that do and do not divide the hour', async () => {
    const withoutPrior = ({ priorMedian: _m, priorPoints: _p, ...rest }: SeriesSummary) => rest;
    for (const promql of [sel('aoc_ramp_gauge'), `rate(${sel('aoc_reset_total')}[5m])`, sel('aoc_gappy_gauge'), sel('aoc_bad_gauge'), `max(${sel('aoc_many_gauge')})`]) {
      for (const stepSeconds of [60, 420, 3600]) {
        const query = { kind: 'range' as const, promql, startMs: T0 * 1000, endMs: (T0 + 3600) * 1000, stepSeconds };
        const plain = await queryPrometheus({ baseUrl }, query);
        const widened = await queryPrometheus({ baseUrl }, { ...query, priorStartMs: (T0 - 3600) * 1000 });
        expect(widened.result.series.map(withoutPrior)).toEqual(plain.result.series);
        expect(widened.result.seriesCount).toBe(plain.result.seriesCount);
        // The read starts whole steps before the window, within the hour (a rate has no value at its first step).
        expect(widened.result.series[0]?.priorPoints).toBeLessThanOrEqual(Math.floor(3600 / stepSeconds));
        if (promql === sel('aoc_ramp_gauge')) expect(widened.result.series[0]?.priorPoints).toBe(Math.floor(3600 / stepSeconds));
      }
    }
    expect(hasAtModifier('x{a="@"} @ start()')).toBe(true);
    expect(hasAtModifier('x{a="@ end()"}')).toBe(false);
  });

  it('reports NaN and ±Inf samples, gaps, counter resets and uptime drops instead of failing', async () => {
    const [bad, nan, gappy, reset, uptime] = await run([
      { id: 'bad', kind: 'range', promql: sel('aoc_bad_gauge'), stepSeconds: 60 },
      { id: 'nan', kind: 'range', promql: sel('aoc_nan_gauge'), stepSeconds: 60 },
      { id: 'gappy', kind: 'range', promql: sel('aoc_gappy_gauge'), stepSeconds: 60 },
      { id: 'reset', kind: 'range', promql: sel('aoc_reset_total'), stepSeconds: 60 },
      { id: 'uptime', kind: 'range', promql: sel('mysql_global_status_uptime'), stepSeconds: 60 },
    ]);
    expect(bad.series?.[0]).toMatchObject({ first: 5, last: 5, max: 5, nonFinitePoints: 18, missingPoints: 0 });
    expect(nan).toMatchObject({ status: 'complete' });
    expect(nan.series?.[0]).toMatchObject({ points: 0, max: null, nonFinitePoints: 61, shape: Array(12).fill(null), slope: null, priorMedian: null });
    expect(gappy.series?.[0]?.missingPoints).toBeGreaterThan(10);
    expect(gappy.series?.[0]?.longestGapSeconds).toBeGreaterThanOrEqual(600);
    expect(gappy.series?.[0]?.shape?.slice(3, 7)).toContain(null);
    expect(reset.series?.[0]).toMatchObject({ drops: 1, lastDrop: { at: '2026-11-20T10:30:00.000Z', to: 0 } });
    expect(uptime.series?.[0]).toMatchObject({ drops: 1, lastDrop: { at: '2026-11-20T10:40:00.000Z', from: 52_340, to: 0 }, priorMedian: 48_170 });
  });

  it('bounds the work on ten thousand series and keeps the one that shifted', async () => {
    const [range, instant] = await run([
      { id: 'many', kind: 'range', promql: sel('aoc_many_gauge'), stepSeconds: 600 },
      { id: 'many_now', kind: 'instant', promql: sel('aoc_many_gauge') },
    ]);
    expect(range).toMatchObject({ status: 'complete', seriesCount: MANY, scoredSeries: MAX_SCORED_SERIES, omittedSeries: MANY - 10 });
    expect(range.series).toHaveLength(10);
    expect(range.series?.some((s) => s.labels['shard'] === '7777')).toBe(true);
    expect(instant).toMatchObject({ seriesCount: MANY, scoredSeries: MAX_SCORED_SERIES });
    expect(instant.series?.[0]).toMatchObject({ max: 90, labels: { shard: '7777' } });
    // At a 60 s step the answer outgrows the response limit: that one query fails on its own, with the limit's code.
    const [dense] = await run([{ id: 'many_dense', kind: 'range', promql: sel('aoc_many_gauge'), stepSeconds: 60 }]);
    expect(dense).toMatchObject({ status: 'failed', error_code: 'PROVIDER.OUTPUT_TOO_LARGE' });
  }, 60000);

  it('reads the last part of a window longer than the limit and raises a step Prometheus would refuse', async () => {
    const long = { from: '2026-09-01T00:00:00Z', to: '2026-11-20T11:00:00Z' };
    const [clamped] = await run([{ id: 'ramp', kind: 'range', promql: sel('aoc_ramp_gauge') }], long);
    expect(clamped.clampedWindow).toEqual({ from: new Date(Date.parse(long.to) - METRICS_MAX_WINDOW_MS).toISOString(), to: long.to });
    expect(clamped.status).toBe('complete');
    const month = { from: '2026-10-21T11:00:00Z', to: '2026-11-20T11:00:00Z' };
    const [fine] = await run([{ id: 'ramp', kind: 'range', promql: sel('aoc_ramp_gauge'), stepSeconds: 60 }], month);
    expect(fine).toMatchObject({ status: 'complete', stepSeconds: Math.ceil((30 * 86400) / 10_999) });
    expect(fine.clampedWindow).toBeUndefined();
  });
});
