import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AOC_SERIES, busMetrics, modelMetrics, pipelineMetrics, providerMetrics } from './aoc-metrics';
import { INVALID_LABEL_VALUE, OTHER_LABEL_VALUE, counter, gauge, histogram, metricsSnapshot, metricsStarted, renderMetrics, safeLabelValue, shutdownMetrics, startMetrics, type MetricPoint } from './metrics';
import { startTelemetry } from './start-telemetry';

const find = (points: MetricPoint[], name: string, labels: Record<string, string> = {}) =>
  points.filter((p) => p.name === name && Object.entries(labels).every(([k, v]) => p.labels[k] === v));

describe('metrics', () => {
  afterEach(() => shutdownMetrics());

  it('drops recordings until metrics start, and starts once per process', async () => {
    const early = counter({ name: 'test_early', description: 'early', labels: ['k'] });
    early.add({ k: 'a' });
    expect(await metricsSnapshot()).toEqual([]);
    expect(await renderMetrics()).toContain('not started');
    const handle = startMetrics({ serviceName: 'aoc-test' });
    expect(startMetrics({ serviceName: 'aoc-other' }).serviceName).toBe(handle.serviceName);
    early.add({ k: 'a' }, 2);
    expect(find(await metricsSnapshot(), 'test_early')).toEqual([{ name: 'test_early', labels: { k: 'a' }, value: 2 }]);
    await handle.shutdown();
    expect(metricsStarted()).toBe(false);
    // A fresh start begins at zero; the declared instruments bind to it.
    startMetrics({ serviceName: 'aoc-test' });
    early.add({ k: 'a' });
    expect(find(await metricsSnapshot(), 'test_early')[0].value).toBe(1);
  });

  it('records counters, histograms (seconds, with the declared buckets) and gauges read at each scrape', async () => {
    startMetrics({ serviceName: 'aoc-test' });
    const c = counter({ name: 'test_things', description: 'things', labels: ['topic'] });
    const h = histogram({ name: 'test_duration_seconds', description: 'duration', unit: 's', labels: ['topic'], buckets: [0.1, 1] });
    const g = gauge({ name: 'test_backlog', description: 'backlog', labels: ['role'] });
    c.add({ topic: 'aoc.run.published.v1' });
    c.add({ topic: 'aoc.run.published.v1' }, 4);
    h.record({ topic: 'aoc.run.published.v1' }, 0.05);
    h.record({ topic: 'aoc.run.published.v1' }, 0.5);
    const stop = h.startTimer();
    expect(stop({ topic: 'aoc.run.published.v1' })).toBeGreaterThanOrEqual(0);
    let backlog = 3;
    const remove = g.observe(() => [{ labels: { role: 'judge' }, value: backlog }]);
    g.observe(async () => {
      throw new Error('a failing source is left out');
    });
    let points = await metricsSnapshot();
    expect(find(points, 'test_things')[0].value).toBe(5);
    expect(find(points, 'test_duration_seconds')[0]).toMatchObject({ count: 3 });
    expect(find(points, 'test_backlog')).toEqual([{ name: 'test_backlog', labels: { role: 'judge' }, value: 3 }]);
    backlog = 0;
    points = await metricsSnapshot();
    expect(find(points, 'test_backlog')[0].value).toBe(0);
    remove();
    expect(find(await metricsSnapshot(), 'test_backlog')).toEqual([]);

    const text = await renderMetrics();
    expect(text).toContain('# TYPE test_things_total counter');
    expect(text).toContain('test_things_total{topic="aoc.run.published.v1"} 5');
    expect(text).toContain('# TYPE test_duration_seconds histogram');
    expect(text).toContain('test_duration_seconds_bucket{topic="aoc.run.published.v1",le="0.1"} 2');
    expect(text).toContain('test_duration_seconds_bucket{topic="aoc.run.published.v1",le="1"} 3');
    expect(text).toContain('test_duration_seconds_count{topic="aoc.run.published.v1"} 3');
    expect(text).toMatch(/target_info\{[^}]*service_name="aoc-test"/);
    // No scope labels: a series carries only what its instrument declares.
    expect(text).not.toContain('otel_scope_name');
  });

  it('bounds label values: identifiers only, closed sets, and a cap on distinct values', async () => {
    startMetrics({ serviceName: 'aoc-test' });
    for (const ok of ['aoc.run.published.v1', 'BUS.HANDLER_REJECTED', '@aoc/providers', 'provider-executor', 'scenario_router', 3]) expect(safeLabelValue(ok)).toBe(String(ok));
    for (const bad of [
      'SELECT * FROM pg_stat_activity',
      'db is slow since 10:00',
      '10.0.0.12',
      'db-1.internal:5432',
      'http://prometheus:9090',
      'postgres://u:p@h/db',
      '',
      'x'.repeat(200),
      'line\nbreak',
      'quote"s',
    ]) {
      expect(safeLabelValue(bad)).toBe(INVALID_LABEL_VALUE);
    }
    const c = counter({ name: 'test_bounded', description: 'bounded', labels: ['code', 'outcome'], values: { outcome: ['ok', 'failed'] }, maxValues: 3 });
    for (const code of ['A.ONE', 'A.TWO', 'A.THREE', 'A.FOUR', 'A.FIVE']) c.add({ code, outcome: 'ok' });
    c.add({ code: 'A.ONE', outcome: 'ticket text as an outcome' });
    c.add({ code: 'SELECT secret FROM t', outcome: 'failed' });
    const points = find(await metricsSnapshot(), 'test_bounded');
    const byLabels = Object.fromEntries(points.map((p) => [`${p.labels['code']}|${p.labels['outcome']}`, p.value]));
    expect(byLabels).toEqual({ 'A.ONE|ok': 1, 'A.TWO|ok': 1, 'A.THREE|ok': 1, [`${OTHER_LABEL_VALUE}|ok`]: 2, [`A.ONE|${OTHER_LABEL_VALUE}`]: 1, [`${OTHER_LABEL_VALUE}|failed`]: 1 });
    // `invalid` took no slot of its own here: the cap was reached, so it became `other` like any new value.
    const text = await renderMetrics();
    expect(text).not.toMatch(/SELECT|ticket text/);
  });

  it('declares the platform series under the documented names', async () => {
    startMetrics({ serviceName: 'aoc-test' });
    busMetrics.handlerDuration.record({ role: 'judge', topic: 'aoc.run.published.v1', outcome: 'processed' }, 0.2);
    busMetrics.handlerDuration.record({ role: 'judge', topic: 'aoc.run.published.v1', outcome: 'exploded' as never }, 0.2);
    busMetrics.retries.add({ role: 'judge', topic: 'aoc.run.published.v1', code: 'DB.TIMEOUT' });
    busMetrics.deadLetters.add({ role: 'judge', topic: 'aoc.run.published.v1', code: 'BUS.SCHEMA_INVALID' });
    const removeLag = busMetrics.consumerLag.observe(() => [{ labels: { role: 'judge', consumer_group: 'aoc.judge', topic: 'aoc.run.published.v1', partition: 2 }, value: 7 }]);
    const removeBacklog = busMetrics.outboxBacklog.observe(() => [{ labels: { role: 'judge' }, value: 1 }]);
    providerMetrics.queries.add({ package: 'prometheus', outcome: 'failed', code: 'PROVIDER.TIMEOUT' });
    providerMetrics.callDuration.record({ package: 'prometheus', outcome: 'ok' }, 1.5);
    modelMetrics.callDuration.record({ agent_role: 'judge', outcome: 'ok' }, 3);
    modelMetrics.tokens.add({ agent_role: 'judge', type: 'prompt' }, 120);
    pipelineMetrics.runsPublished.add({ decision: 'internal_only' });
    pipelineMetrics.evaluationsJudged.add({ verdict: 'equivalent' });
    const text = await renderMetrics();
    for (const series of AOC_SERIES) expect(text).toContain(`# TYPE ${series} `);
    expect(text).toContain('aoc_bus_handler_duration_seconds_count{role="judge",topic="aoc.run.published.v1",outcome="other"} 1');
    expect(text).toContain('aoc_bus_consumer_lag{role="judge",consumer_group="aoc.judge",topic="aoc.run.published.v1",partition="2"} 7');
    removeLag();
    removeBacklog();
  });

  it('has every series on the Grafana dashboard and in the operations guide', () => {
    const root = join(__dirname, '../../..');
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/auto-oncall.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    const guide = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    for (const series of AOC_SERIES) {
      expect(exprs).toContain(series);
      expect(guide).toContain(`\`${series}\``);
    }
  });

  it('starts with tracing, and stops with it when tracing started it', async () => {
    const handle = startTelemetry({ serviceName: 'aoc-traced' });
    expect(metricsStarted()).toBe(true);
    expect(await renderMetrics()).toContain('service_name="aoc-traced"');
    await handle.shutdown();
    expect(metricsStarted()).toBe(false);
  });
});
