import fc from 'fast-check';
import type { DashboardRow } from '../../connectors/dashboard-tidb-connector';
import { compactSlowQueries, compactStatements, compactTopSql, DIGEST_REF } from './wetech-dashboard-rows';

describe('dashboard row compaction', () => {
  it('keeps only a digest reference and allowlisted numbers, ranks and limits', () => {
    const rows: DashboardRow[] = [
      { digest: 'A'.repeat(64), cells: { sql_text: 'SELECT secret', cpu_time_ms: '10', exec_count_per_sec: 'n/a', avg_latency_ms: '-3', plan_count: '1' } },
      { digest: 'b'.repeat(64), cells: { sql_text: 'SELECT other', cpu_time_ms: '99.12345' } },
      { digest: 'SELECT 1', cells: { cpu_time_ms: '1000' } },
    ];
    const out = compactTopSql(rows, 1, 3);
    expect(out).toEqual({ rows: [{ digestRef: expect.stringMatching(DIGEST_REF), cpuTimeMs: 99.123, execPerSec: null, avgLatencyMs: null, planCount: null }], totalRows: 3, omittedRows: 2 });
    expect(compactTopSql(rows, 5, 3).rows[1]).toMatchObject({ cpuTimeMs: 10, execPerSec: null, avgLatencyMs: null, planCount: 1 });
  });

  it('groups slow queries by digest and ignores impossible timestamps', () => {
    const d = 'c'.repeat(64);
    const out = compactSlowQueries(
      [
        { digest: d, cells: { query_time_ms: '5', timestamp: '1700000000' } },
        { digest: d, cells: { query_time_ms: '7', timestamp: '1e30' } },
      ],
      10,
      2,
      'query_time',
    );
    expect(out.rows).toEqual([{ digestRef: expect.stringMatching(DIGEST_REF), count: 2, maxQueryTimeMs: 7, totalQueryTimeMs: 12, maxMemBytes: null, firstAt: '2023-11-14T22:13:20.000Z', lastAt: null }]);
  });

  it('property: whatever the page shows, only references and numbers come out', () => {
    const cell = fc.oneof(fc.string({ maxLength: 30 }), fc.double().map(String), fc.integer().map(String));
    const row = fc.record({ digest: fc.oneof(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')), fc.string({ maxLength: 70 })), cells: fc.dictionary(fc.constantFrom('sql_text', 'query', 'instance', 'cpu_time_ms', 'exec_count', 'sum_latency_ms', 'query_time_ms', 'timestamp', 'mem_max_bytes', 'db'), cell) });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), fc.integer({ min: 1, max: 20 }), (rows, limit) => {
        for (const out of [compactTopSql(rows, limit, rows.length), compactStatements(rows, limit, rows.length, 'exec_count'), compactSlowQueries(rows, limit, rows.length, 'mem_max')]) {
          expect(out.rows.length).toBeLessThanOrEqual(limit);
          // Plain checks per value (one expect per output keeps thousands of runs fast).
          const bad = out.rows.flatMap((r) =>
            Object.entries(r).filter(([key, value]) => {
              if (key === 'digestRef') return !DIGEST_REF.test(String(value));
              if (key === 'firstAt' || key === 'lastAt') return !(value === null || /^([+-]\d{6}|\d{4})-\d\d-\d\dT/.test(String(value)));
              return !(value === null || (typeof value === 'number' && Number.isFinite(value)));
            }),
          );
          expect(bad).toEqual([]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
