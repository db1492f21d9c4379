import type { EvidenceFactV1 } from '@aoc/contracts';
import { fireRule, leadStats } from './mechanism-rules';

const metric = (queryId: string, first: number, max: number, last: number, labels = ''): EvidenceFactV1 => ({
  queryId,
  kind: 'metric_summary',
  subject: `${queryId}{${labels}}`,
  value: max,
  unit: null,
  attributes: { first, last, min: Math.min(first, last), mean: (first + max) / 2, maxAt: '2026-11-20T10:41:00.000Z', points: 60 },
});

describe('mechanism rules', () => {
  it('reads the lead series of each query', () => {
    const stats = leadStats([metric('cpu', 2, 8, 8, 'component=tidb'), metric('cpu', 1, 2, 2, 'component=tikv')]);
    expect(stats.get('cpu')).toEqual({ rise: 4, endRise: 4, peak: 8, start: 2, at: '10:41Z', labels: 'component=tidb' });
  });

  it('attributes a latency rise with more statements to added workload and keeps the link open', () => {
    const fired = fireRule('latency-regression', [metric('duration_p99', 0.049, 0.094, 0.094), metric('qps', 200, 260, 260)], ['top_statements']);
    expect(fired?.rule.id).toBe('latency-with-load');
    expect(fired?.rule.strength).toBe('moderate');
    expect(fired?.mechanism).toContain('rose 1.92x (to 0.094s at 10:41Z) together with a 1.3x rise');
    expect(fired?.openLink).toBe('which statements make up the added load (not shown: top_statements could not be read)');
  });

  it('separates a per-statement slowdown from added load', () => {
    expect(fireRule('latency-regression', [metric('duration_p99', 0.04, 0.09, 0.09), metric('qps', 200, 205, 200)], [])?.rule.id).toBe('latency-without-load');
  });

  it('says plainly when the database was healthy', () => {
    const fired = fireRule('latency-regression', [metric('duration_p99', 0.025, 0.026, 0.025), metric('qps', 80, 81, 80)], []);
    expect(fired?.rule).toMatchObject({ id: 'latency-flat', strength: 'strong', healthy: true });
    expect(fired?.openLink).toBeNull();
  });

  it('blames the sink when lag grows, sink writes slow down and upstream writes are flat', () => {
    const fired = fireRule('replication-lag', [metric('changefeed_lag', 2, 2824, 2824, 'changefeed=cf-orders'), metric('sink_duration', 0.05, 1, 1), metric('qps', 1500, 1500, 1500)], []);
    expect(fired?.rule.id).toBe('sink-bottleneck');
    expect(fired?.mechanism).toContain('changefeed=cf-orders');
    expect(fired?.counterObservation).toContain('rules out a write surge');
  });

  it('fires nothing when a needed query has no facts', () => {
    expect(fireRule('latency-regression', [metric('duration_p99', 0.04, 0.09, 0.09)], ['qps'])).toBeNull();
    expect(fireRule('general-health', [metric('qps', 1, 5, 5)], [])).toBeNull();
  });
});
