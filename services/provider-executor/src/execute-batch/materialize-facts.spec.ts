import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import { selectorLabels, type QueryEvidence } from '@aoc/providers';
import { familyAttributes, materializeFacts } from './materialize-facts';

const planned = (id: string, purpose: string): PlannedQueryV1 => ({ id, operation: 'promql_range', expression: `x_${id}`, purpose });

interface Stats {
  max: number;
  first?: number;
  last?: number;
  min?: number;
  baselineMedian?: number | null;
  recentMedian?: number | null;
  anomalyScore?: number | null;
  direction?: 'up' | 'down' | null;
  shiftAt?: string | null;
}

/** A series summary as the package returns it (stats only, no points). */
function series(instance: string, s: Stats) {
  return {
    labels: { cluster: 'tidb-1', instance },
    points: 61,
    first: s.first ?? s.min ?? s.max,
    last: s.last ?? s.max,
    min: s.min ?? s.first ?? s.max,
    max: s.max,
    mean: s.max,
    maxAt: '2026-11-20T10:40:00.000Z',
    baselineMedian: s.baselineMedian ?? null,
    recentMedian: s.recentMedian ?? null,
    anomalyScore: s.anomalyScore ?? null,
    direction: s.direction ?? null,
    shiftAt: s.shiftAt ?? null,
  };
}

const complete = (id: string, list: ReturnType<typeof series>[]): QueryEvidence => ({ id, status: 'complete', result: { resultType: 'matrix', seriesCount: list.length, omittedSeries: 0, series: list } });

const calm = (instance: string, max: number, score: number) => series(instance, { max, baselineMedian: max * 0.9, recentMedian: max * 0.9, anomalyScore: score, direction: 'up', shiftAt: null });

describe('materializeFacts with anomaly scores', () => {
  it('carries the anomaly statistics into each metric fact and leaves out the ones not computed', () => {
    const step = series('a', { first: 0.04, max: 0.09, last: 0.09, baselineMedian: 0.04, recentMedian: 0.09, anomalyScore: 125, direction: 'up', shiftAt: '2026-11-20T10:38:00.000Z' });
    const tooShort = series('b', { max: 0.05 });
    const { facts } = materializeFacts([planned('p99', 'p99 statement duration')], [complete('p99', [step, tooShort])]);
    expect(facts.map((f) => EvidenceFactV1.parse(f))).toHaveLength(2);
    expect(facts[0].attributes).toMatchObject({ anomalyScore: 125, baselineMedian: 0.04, recentMedian: 0.09, direction: 'up', shiftAt: '2026-11-20T10:38:00.000Z', maxAt: '2026-11-20T10:40:00.000Z' });
    for (const key of ['anomalyScore', 'baselineMedian', 'recentMedian', 'direction', 'shiftAt']) expect(facts[1].attributes).not.toHaveProperty(key);
  });

  it('keeps the top three series by max first and adds the most anomalous series of the whole result', () => {
    const list = [calm('a', 90, 1), calm('b', 80, 0.5), calm('c', 70, 2), calm('d', 60, 0), series('e', { first: 10, max: 40, last: 40, baselineMedian: 10, recentMedian: 40, anomalyScore: 60, direction: 'up', shiftAt: '2026-11-20T10:41:00.000Z' })];
    const { facts, observations } = materializeFacts([planned('cpu', 'CPU per instance')], [complete('cpu', list)]);
    expect(facts.map((f) => [f.value, f.attributes['anomalyScore']])).toEqual([
      [90, 1],
      [80, 0.5],
      [70, 2],
      [40, 60],
    ]);
    expect(observations).toEqual(['CPU per instance on cluster=tidb-1 rose from a baseline median of 10% to 40% (robust z 60, shift at 10:41Z); the highest series on cluster=tidb-1 peaks at 90% at 10:40Z.']);
    // Already among the top three: not repeated.
    const again = materializeFacts([planned('cpu', 'CPU per instance')], [complete('cpu', [calm('a', 90, 1), calm('b', 80, 9), calm('c', 70, 2), calm('d', 60, 0)])]);
    expect(again.facts).toHaveLength(3);
  });

  it('orders observations by anomaly score, most anomalous first, queries without scores last in plan order', () => {
    const queries = [planned('qps', 'statements per second'), planned('legacy', 'recorded before scoring'), planned('lag', 'changefeed checkpoint lag'), planned('p99', 'p99 statement duration')];
    const legacy = { ...series('l', { max: 5 }) } as Record<string, unknown>;
    for (const key of ['baselineMedian', 'recentMedian', 'anomalyScore', 'direction', 'shiftAt']) delete legacy[key];
    const { observations } = materializeFacts(queries, [
      complete('qps', [calm('a', 1000, 1.2)]),
      { id: 'legacy', status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [legacy] } },
      complete('lag', [series('a', { first: 2, max: 300, last: 300, baselineMedian: 2, recentMedian: 250, anomalyScore: 12.4, direction: 'up', shiftAt: '2026-11-20T10:38:00.000Z' })]),
      complete('p99', [series('a', { first: 0.04, max: 0.09, last: 0.09, baselineMedian: 0.04, recentMedian: 0.09, anomalyScore: 125, direction: 'up', shiftAt: '2026-11-20T10:38:00.000Z' })]),
    ]);
    expect(observations).toEqual([
      'p99 statement duration on cluster=tidb-1 rose from a baseline median of 0.04 to 0.09 (robust z 125, shift at 10:38Z); peak 0.09 at 10:40Z.',
      'changefeed checkpoint lag on cluster=tidb-1 rose from a baseline median of 2 s to 250 s (robust z 12.4, shift at 10:38Z); peak 300 s at 10:40Z.',
      'statements per second: peak 1000/s at 10:40Z (start 1000/s, end 1000/s, mean 1000/s) on cluster=tidb-1; no shift between the first and second half of the window (robust z 1.2).',
      'recorded before scoring: peak 5 at 10:40Z (start 5, end 5, mean 5) on cluster=tidb-1.',
    ]);
  });

  it('says "fell" for a sustained drop and "rose above" for a spike whose recent median barely moved', () => {
    const { observations } = materializeFacts(
      [planned('qps', 'statements per second'), planned('p99', 'p99 statement duration')],
      [
        complete('qps', [series('a', { first: 1000, max: 1010, min: 290, last: 300, baselineMedian: 1000, recentMedian: 300, anomalyScore: 70, direction: 'down', shiftAt: '2026-11-20T10:40:00.000Z' })]),
        complete('p99', [series('a', { first: 0.04, max: 0.5, last: 0.04, baselineMedian: 0.04, recentMedian: 0.041, anomalyScore: 300, direction: 'up', shiftAt: '2026-11-20T10:45:00.000Z' })]),
      ],
    );
    expect(observations).toEqual([
      'p99 statement duration on cluster=tidb-1 rose above its baseline median of 0.04 (robust z 300, first at 10:45Z; recent median 0.041); peak 0.5 at 10:40Z.',
      'statements per second on cluster=tidb-1 fell from a baseline median of 1000/s to 300/s (robust z 70, shift at 10:40Z); peak 1010/s at 10:40Z.',
    ]);
  });

  it('says a rise that scores low happened early instead of calling the series unshifted', () => {
    const early = series('a', { first: 10, max: 80, last: 80, baselineMedian: 78, recentMedian: 80, anomalyScore: 0.9, direction: 'up', shiftAt: null });
    const { observations } = materializeFacts([planned('cpu', 'CPU per instance')], [complete('cpu', [early])]);
    expect(observations[0]).toContain('8x its starting value');
    expect(observations[0]).toContain('the rise happened within the first half of the window, so it does not stand out against that half (robust z 0.9)');
    expect(observations[0]).not.toContain('no shift');
  });

  it('names the highest robust z when no series shifts between the halves of the window', () => {
    const { observations } = materializeFacts([planned('cpu', 'CPU per instance')], [complete('cpu', [calm('a', 90, 1), calm('b', 88, 2.6)])]);
    expect(observations).toEqual(['CPU per instance: peak 90% at 10:40Z (start 90%, end 90%, mean 90%) on cluster=tidb-1; 2 series peak at similar levels; no series shifts between the first and second half of the window (highest robust z 2.6).']);
  });
});

describe('facts of a split name', () => {
  it('take the family of the matcher the query put on the name', () => {
    const planned = { id: 'commits', operation: 'promql_range', expression: 'sum(rate(mysql_global_status_handlers_total{cluster="db-1",handler=~"commit"}[5m]))', purpose: 'commits' } as Parameters<typeof familyAttributes>[0];
    expect(selectorLabels(planned?.expression ?? '', 'mysql_global_status_handlers_total')).toEqual({ cluster: 'db-1', handler: 'commit' });
    expect(familyAttributes(planned)).toMatchObject({ family: 'commits', metric: 'mysql_global_status_handlers_total' });
  });

  it('reads node CPU seconds as a busy percentage only when the query excluded the idle modes', () => {
    const read = (expression: string) => familyAttributes({ id: 'cpu', operation: 'promql_range', expression, purpose: 'cpu' } as Parameters<typeof familyAttributes>[0]);
    expect(read('100 * sum(rate(node_cpu_seconds_total{cluster="a",mode!~"idle|iowait"}[5m])) / clamp_min(sum(rate(node_cpu_seconds_total{cluster="a"}[5m])), 0.000001)')).toMatchObject({ family: 'cpu', unitKind: 'percent' });
    expect(read('sum(rate(node_cpu_seconds_total{cluster="a"}[5m]))')).toMatchObject({ family: 'cpu', unitKind: 'unknown' });
  });
});
