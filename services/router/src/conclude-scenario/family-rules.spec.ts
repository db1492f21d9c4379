import type { EvidenceFactV1 } from '@aoc/contracts';
import { formatValue } from '@aoc/metric-ontology';
import { concludeByFamily } from './family-rules';

const WINDOW = { from: '2026-11-30T13:00:00.000Z', to: '2026-11-30T14:00:00.000Z' };
const at = (hhmm: string) => `2026-11-30T${hhmm}:00.000Z`;

interface Shape {
  family: string;
  badDirection?: 'up' | 'down' | 'both';
  unit?: string;
  first: number;
  last: number;
  min: number;
  max: number;
  maxAt?: string;
  score?: number;
  direction?: 'up' | 'down';
  shiftAt?: string;
  baseline?: number;
}

const fact = (id: string, s: Shape): EvidenceFactV1 => ({
  queryId: id,
  kind: 'metric_summary',
  subject: `${id}{}`,
  value: s.max,
  unit: null,
  attributes: {
    family: s.family,
    metric: `m_${id}`,
    badDirection: s.badDirection ?? 'up',
    unitKind: s.unit ?? 'count',
    first: s.first,
    last: s.last,
    min: s.min,
    mean: (s.min + s.max) / 2,
    maxAt: at(s.maxAt ?? '13:50'),
    points: 60,
    anomalyScore: s.score ?? 0.5,
    baselineMedian: s.baseline ?? s.first,
    recentMedian: s.last,
    ...(s.direction ? { direction: s.direction } : {}),
    ...(s.shiftAt ? { shiftAt: at(s.shiftAt) } : {}),
  },
});

const flat = (id: string, family: string, level = 10) => fact(id, { family, first: level, last: level, min: level * 0.98, max: level * 1.02, score: 0.8 });

describe('family mechanism rules', () => {
  it('a family at its limit is the strong leading cause, with the limit in plain numbers', () => {
    const c = concludeByFamily(
      [
        fact('connections', { family: 'connections', first: 120, last: 498, min: 118, max: 500, maxAt: '13:42', score: 40, direction: 'up', shiftAt: '13:35', baseline: 121 }),
        flat('connection_limit', 'connection_limit', 500),
        flat('cpu', 'cpu', 30),
      ],
      ['connections', 'connection_limit'],
      WINDOW,
    );
    expect(c).toMatchObject({ kind: 'cause', family: 'connections', strength: 'strong', recovered: false });
    expect(c?.statement).toContain('reached 500 at 13:42 UTC, 100% of the limit of 500');
  });

  it('one session more than usual and a disk going from 1 to 10 reads per second are no change, however clear their shift', () => {
    const c = concludeByFamily(
      [
        fact('threads', { family: 'connections', first: 4, last: 5, min: 4, max: 5, score: 12, direction: 'up', shiftAt: '13:20', baseline: 4 }),
        fact('reads', { family: 'iops', unit: 'count', first: 1, last: 10, min: 1, max: 10.2, score: 15, direction: 'up', shiftAt: '13:25', baseline: 1 }),
        flat('cpu', 'cpu', 30),
      ],
      ['connections', 'iops'],
      WINDOW,
    );
    expect(c).toMatchObject({ kind: 'healthy' });
    // The same shapes at a scale a server notices are a change.
    const busy = concludeByFamily([fact('reads', { family: 'iops', unit: 'count', first: 100, last: 1000, min: 100, max: 1020, score: 15, direction: 'up', shiftAt: '13:25', baseline: 100 })], ['iops'], WINDOW);
    expect(busy).toMatchObject({ kind: 'cause', family: 'iops' });
  });

  it('a brief spike that is back by the end is a weak finding, never the sustained change that names a cause', () => {
    const spike = fact('queue', { family: 'io_queue', first: 0, last: 0, min: 0, max: 30, score: 20, direction: 'up', shiftAt: '13:30', baseline: 0.1 });
    spike.attributes['shape'] = '0.1,0.2,0.1,0.1,0,4.6,0.15,0.15,0.2,0,0,0.1';
    const c = concludeByFamily([spike, flat('cpu', 'cpu', 30)], ['io_queue'], WINDOW);
    expect(c).toMatchObject({ kind: 'cause', family: 'io_queue', strength: 'weak' });
    expect(c?.statement).toContain('a brief spike');
    // The spike the customer reported (it began around their onset) is the finding.
    expect(concludeByFamily([spike, flat('cpu', 'cpu', 30)], ['io_queue'], WINDOW, { onset: Date.parse(at('13:31')) })).toMatchObject({ strength: 'moderate' });
    // Held for half the window it is a change again.
    const held = fact('queue', { family: 'io_queue', first: 0, last: 4, min: 0, max: 5, score: 20, direction: 'up', shiftAt: '13:30', baseline: 0.1 });
    held.attributes['shape'] = '0.1,0.2,0.1,0.1,0,4.6,4.5,4.4,4.8,4.2,4.1,4';
    expect(concludeByFamily([held, flat('cpu', 'cpu', 30)], ['io_queue'], WINDOW)).toMatchObject({ strength: 'moderate' });
  });

  it('free storage running to zero is named as exhausted storage', () => {
    const c = concludeByFamily([fact('free', { family: 'storage_free', badDirection: 'down', unit: 'bytes', first: 20 * 2 ** 30, last: 0, min: 0, max: 20 * 2 ** 30, score: 12, direction: 'down', shiftAt: '13:20' })], ['storage_free', 'storage_used'], WINDOW);
    expect(c).toMatchObject({ kind: 'cause', family: 'storage_free', strength: 'strong' });
    expect(c?.statement).toContain('fell from 20 GiB to 0 B');
  });

  it('the earliest sustained change leads; one that starts after the symptom is named as an effect or coincidence', () => {
    const c = concludeByFamily(
      [
        fact('connections', { family: 'connections', first: 100, last: 300, min: 99, max: 310, score: 25, direction: 'up', shiftAt: '13:10' }),
        fact('cpu', { family: 'cpu', unit: 'percent', first: 20, last: 95, min: 19, max: 97, score: 60, direction: 'up', shiftAt: '13:40' }),
        fact('latency', { family: 'statement_latency', unit: 'seconds', first: 0.02, last: 0.2, min: 0.02, max: 0.25, score: 30, direction: 'up', shiftAt: '13:11' }),
      ],
      ['connections'],
      WINDOW,
    );
    expect(c).toMatchObject({ kind: 'cause', family: 'connections', strength: 'moderate' });
    expect(c?.kind === 'cause' ? c.counter[0] : '').toMatch(/CPU.*began after the problem started \(13:10 UTC\).*not the cause/);
  });

  it('latency is the symptom, not the cause, when a resource moved at the same time', () => {
    const c = concludeByFamily(
      [
        fact('latency', { family: 'statement_latency', first: 2, last: 9, min: 2, max: 10, score: 80, direction: 'up', shiftAt: '13:30' }),
        fact('cpu', { family: 'cpu', first: 30, last: 99, min: 29, max: 100, score: 20, direction: 'up', shiftAt: '13:30' }),
      ],
      ['statement_latency', 'statement_rate'],
      WINDOW,
    );
    expect(c).toMatchObject({ kind: 'cause', family: 'cpu' });
  });

  it('a deviation in the harmless direction is no cause (free memory going up)', () => {
    const c = concludeByFamily([fact('mem', { family: 'memory', badDirection: 'down', first: 4, last: 8, min: 4, max: 8, score: 20, direction: 'up', shiftAt: '13:30' }), flat('cpu', 'cpu')], ['memory'], WINDOW);
    expect(c).toMatchObject({ kind: 'healthy' });
  });

  it('a cause back to its usual level by the cutoff is reported as recovered, not active', () => {
    const c = concludeByFamily([fact('lag', { family: 'replication_lag', unit: 'seconds', first: 1, last: 1.2, min: 0.8, max: 600, maxAt: '13:30', score: 90, direction: 'up', shiftAt: '13:15', baseline: 1 })], ['replication_lag'], WINDOW);
    expect(c).toMatchObject({ kind: 'cause', family: 'replication_lag', recovered: true, severity: 'medium' });
    expect(c?.statement).toContain('the incident has recovered and is not active now');
  });

  it('never concludes from absence: no data for what the scenario needs is missing evidence', () => {
    const c = concludeByFamily([fact('cpu', { family: 'cpu', first: 20, last: 99, min: 20, max: 99, score: 30, direction: 'up', shiftAt: '13:30' })], ['replication_lag'], WINDOW);
    expect(c).toMatchObject({ kind: 'missing', missing: ['replication_lag'] });
    expect(c?.statement).toMatch(/^Not determined: the provider returned no replica lag data/i);
  });

  it('a general symptom without its own metric (slowness, no latency series) is still explained by what moved, saying the link is not measured', () => {
    const c = concludeByFamily([fact('cpu', { family: 'cpu', first: 20, last: 99, min: 20, max: 99, score: 30, direction: 'up', shiftAt: '13:30' })], ['statement_latency'], WINDOW, { strict: false });
    expect(c).toMatchObject({ kind: 'cause', family: 'cpu', unmeasured: ['statement_latency'] });
  });

  it('among simultaneous changes the one that drives the other leads (deadlocks before rollbacks)', () => {
    const c = concludeByFamily(
      [
        fact('rollbacks', { family: 'rollbacks', first: 2, last: 40, min: 2, max: 45, score: 90, direction: 'up', shiftAt: '13:30' }),
        fact('deadlocks', { family: 'deadlocks', first: 0, last: 3, min: 0, max: 4, score: 9, direction: 'up', shiftAt: '13:30' }),
        fact('wal', { family: 'wal', first: 5, last: 50, min: 5, max: 55, score: 40, direction: 'up', shiftAt: '13:31' }),
        fact('iops', { family: 'iops', first: 300, last: 3000, min: 300, max: 3100, score: 60, direction: 'up', shiftAt: '13:31' }),
      ],
      ['deadlocks'],
      WINDOW,
    );
    expect(c).toMatchObject({ kind: 'cause', family: 'deadlocks' });
    const w = concludeByFamily([fact('wal', { family: 'wal', first: 5, last: 50, min: 5, max: 55, score: 40, direction: 'up', shiftAt: '13:31' }), fact('iops', { family: 'iops', first: 300, last: 3000, min: 300, max: 3100, score: 60, direction: 'up', shiftAt: '13:31' })], ['wal'], WINDOW);
    expect(w).toMatchObject({ kind: 'cause', family: 'wal' });
  });

  it('CPU rising to its capacity is saturation and leads over a simultaneous, slightly earlier rise in sessions', () => {
    const sessions = fact('sessions', { family: 'active_sessions', first: 65, last: 125, min: 65, max: 125, score: 19, direction: 'up', shiftAt: '13:10', baseline: 65 });
    const cpu = (max: number) => fact('cpu', { family: 'cpu', unit: 'percent', first: 33, last: max, min: 30, max, score: 12, direction: 'up', shiftAt: '13:11', baseline: 33 });
    const saturated = concludeByFamily([sessions, cpu(97)], ['statement_latency'], WINDOW, { strict: false });
    expect(saturated).toMatchObject({ kind: 'cause', family: 'cpu', strength: 'strong' });
    expect(saturated?.kind === 'cause' && saturated.statement).toMatch(/rose from its usual level of 33% to 97% from 13:11 UTC: it is saturated/);
    // Below the capacity it is a plain rise: the earliest change (the sessions) leads.
    expect(concludeByFamily([sessions, cpu(70)], ['statement_latency'], WINDOW, { strict: false })).toMatchObject({ kind: 'cause', family: 'active_sessions' });
    // Already saturated before the window: nothing reached, so no saturation finding.
    const busy = fact('cpu', { family: 'cpu', unit: 'percent', first: 90, last: 99, min: 88, max: 99, score: 5, direction: 'up', shiftAt: '13:11', baseline: 90 });
    expect(concludeByFamily([sessions, busy], ['statement_latency'], WINDOW, { strict: false })).toMatchObject({ kind: 'cause', family: 'active_sessions' });
  });

  it('nothing deviating, with the needed family measured, is a healthy reading with the values', () => {
    const c = concludeByFamily([flat('latency', 'statement_latency', 0.02), flat('qps', 'statement_rate', 80)], ['statement_latency', 'statement_rate'], WINDOW);
    expect(c).toMatchObject({ kind: 'healthy' });
    expect(c?.statement).toContain('stayed between');
  });

  it('series never scored against a baseline give no healthy reading (the caller falls back)', () => {
    const unscored: EvidenceFactV1 = { ...flat('cpu', 'cpu'), attributes: { family: 'cpu', first: 1, last: 1, min: 1, points: 10 } };
    expect(concludeByFamily([unscored], ['cpu'], WINDOW)).toBeNull();
  });

  it("prefers a change around the customer's reported onset over one already under way long before", () => {
    const facts = [
      fact('rows', { family: 'rows_read', first: 300, last: 900, min: 290, max: 950, score: 30, direction: 'up', shiftAt: '13:10' }),
      fact('cpu', { family: 'cpu', unit: 'percent', first: 5, last: 60, min: 4, max: 62, score: 20, direction: 'up', shiftAt: '13:31', baseline: 5 }),
    ];
    expect(concludeByFamily(facts, ['statement_latency'], WINDOW, { strict: false })).toMatchObject({ family: 'rows_read' });
    expect(concludeByFamily(facts, ['statement_latency'], WINDOW, { strict: false, onset: Date.parse(at('13:30')) })).toMatchObject({ family: 'cpu' });
  });

  it('a statistically clear move of a few per cent is no incident', () => {
    const c = concludeByFamily([fact('cpu', { family: 'cpu', unit: 'percent', first: 20, last: 21.4, min: 19.8, max: 21.6, score: 9, direction: 'up', shiftAt: '13:30', baseline: 20 })], ['cpu'], WINDOW);
    expect(c).toMatchObject({ kind: 'healthy' });
  });

  it('formats values in customer units', () => {
    expect(formatValue(5 * 2 ** 30, 'bytes')).toBe('5 GiB');
    expect(formatValue(0.138, 'seconds')).toBe('138 ms');
    expect(formatValue(93.4, 'percent')).toBe('93%');
    expect(formatValue(12345, 'count')).toBe('12,345');
  });
});
