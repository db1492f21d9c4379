import { queryLokiRange } from '../connectors/loki-connector';
import { LogQlError, parseLogQl, queryRange, startLokiServer, type LokiFixtureStream } from './loki-server';

const T = Date.parse('2026-11-29T10:00:00Z');
const streams: LokiFixtureStream[] = [
  {
    labels: { cluster: 'lab-pg-01', role: 'primary' },
    entries: [
      [T + 1000, 'LOG:  checkpoint starting: wal'],
      [T + 2000, 'ERROR:  deadlock detected'],
      [T + 3000, 'FATAL:  sorry, too many clients already'],
    ],
  },
  { labels: { cluster: 'lab-pg-01', role: 'replica' }, entries: [[T + 1500, 'LOG:  restartpoint starting: wal']] },
  { labels: { cluster: 'lab-my-02' }, entries: [[T + 1000, '0 [ERROR] InnoDB: deadlock']] },
];
const params = (o: Record<string, string>) => new URLSearchParams({ start: `${BigInt(T) * 1_000_000n}`, end: `${BigInt(T + 10_000) * 1_000_000n}`, ...o });
const lines = (r: ReturnType<typeof queryRange>) => r.data.result.flatMap((s) => s.values.map((v) => v[1]));

describe('local Loki server', () => {
  it('selects streams by label matchers and filters lines', () => {
    expect(lines(queryRange(streams, params({ query: '{cluster="lab-pg-01", role="primary"} |= "deadlock"' })))).toEqual(['ERROR:  deadlock detected']);
    expect(lines(queryRange(streams, params({ query: '{cluster=~"lab-pg-.*"} |~ "(?i)WAL" != "restartpoint"' })))).toEqual(['LOG:  checkpoint starting: wal']);
    expect(lines(queryRange(streams, params({ query: '{cluster="lab-pg-01"} !~ "checkpoint|restartpoint"', direction: 'forward' })))).toEqual(['ERROR:  deadlock detected', 'FATAL:  sorry, too many clients already']);
  });

  it('answers newest first by default, within the time range and the limit', () => {
    expect(lines(queryRange(streams, params({ query: '{cluster="lab-pg-01"}', limit: '2' })))).toEqual(['FATAL:  sorry, too many clients already', 'ERROR:  deadlock detected']);
    expect(lines(queryRange(streams, params({ query: '{cluster="lab-pg-01"}', end: `${BigInt(T + 1200) * 1_000_000n}` })))).toEqual(['LOG:  checkpoint starting: wal']);
  });

  it('refuses what it does not implement instead of answering wrongly', () => {
    expect(() => parseLogQl('rate({cluster="x"}[5m])')).toThrow(LogQlError);
    expect(() => parseLogQl('{cluster="x"} | json')).toThrow(/only line filters/);
    expect(() => parseLogQl('{cluster=~".*"}')).toThrow(/empty-compatible/);
  });

  it('serves the API the providers’ Loki client reads', async () => {
    const loki = await startLokiServer(streams);
    try {
      const { result } = await queryLokiRange({ baseUrl: loki.baseUrl }, { logql: '{cluster="lab-my-02"} |~ "(?i)deadlock"', startMs: T, endMs: T + 10_000, limit: 10 }, { retryDelaysMs: [] });
      expect(result.streams).toEqual([{ labels: { cluster: 'lab-my-02' }, entries: [{ timestampNs: `${BigInt(T + 1000) * 1_000_000n}`, line: '0 [ERROR] InnoDB: deadlock' }] }]);
      const bad = await fetch(`${loki.baseUrl}/loki/api/v1/query_range?query=${encodeURIComponent('{cluster="x"} | logfmt')}`);
      expect(bad.status).toBe(400);
      expect(loki.queries()).toBe(2);
    } finally {
      await loki.stop();
    }
  });
});
