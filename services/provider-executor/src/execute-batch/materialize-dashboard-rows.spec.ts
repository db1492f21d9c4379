import { materializeStatements } from './materialize-statements';

const DIGEST_A = 'digest:4268b9ae8a5e3ad7';
const DIGEST_B = 'digest:545a4329af875789';

describe('TiDB Dashboard rows as statement facts (Wetech slow_query and statements)', () => {
  it('ranks slow-log rows by count with times in seconds and no invented statement kind', () => {
    const out = materializeStatements('slow_after', 'slow log, second half', {
      operation: 'slow_query',
      rows: [
        { digestRef: DIGEST_B, count: 2, maxQueryTimeMs: 500, totalQueryTimeMs: 900, maxMemBytes: null, firstAt: '2026-11-27T13:30:00.000Z', lastAt: null },
        { digestRef: DIGEST_A, count: 43, maxQueryTimeMs: 3700, totalQueryTimeMs: 97150, maxMemBytes: 120e6, firstAt: '2026-11-27T13:20:26.000Z', lastAt: '2026-11-27T13:40:02.000Z' },
      ],
      totalRows: 2,
      omittedRows: 0,
      executions: 45,
    });
    expect(out?.observations[0]).toBe(`slow log, second half: 45 slow statements; ${DIGEST_A} 43 of them (95.6%), avg 2.26 s, max 3.7 s, first at 13:20Z; next ${DIGEST_B} 2.`);
    const lead = out?.facts.find((f) => f.kind === 'top_item' && f.attributes['rank'] === 1);
    expect(lead).toMatchObject({ subject: `slow statement ${DIGEST_A}`, value: 43, attributes: { digest: DIGEST_A, totalQueryTimeS: 97.15 } });
    expect(lead?.attributes).not.toHaveProperty('statementType');
    expect(out?.facts.find((f) => f.kind === 'count')).toMatchObject({ value: 45, attributes: { truncated: false } });
  });

  it('reads statements rows by total latency, and an empty page as no slow statement', () => {
    const stmts = materializeStatements('statements', 'statements by total latency', {
      operation: 'statements',
      rows: [
        { digestRef: DIGEST_A, execCount: 24000, planCount: 1, avgMemBytes: 1e8, avgLatencyMs: 610, maxLatencyMs: 4100, totalLatencyMs: 14_640_000 },
        { digestRef: DIGEST_B, execCount: 700000, planCount: 1, avgMemBytes: 4096, avgLatencyMs: 2.5, maxLatencyMs: 30, totalLatencyMs: 1_750_000 },
      ],
      totalRows: 2,
      omittedRows: 0,
    });
    expect(stmts?.observations[0]).toMatch(new RegExp(`^statements by total latency: ${DIGEST_A} took 89\\.3% of the execution time of the 2 top statements \\(14,640 s in total over 24,000 executions, avg 610 ms\\)`));
    expect(stmts?.facts[0]).toMatchObject({ kind: 'top_item', unit: '% of top statement time', attributes: { transport: 'tidb_dashboard' } });
    const empty = materializeStatements('slow', 'slow log', { operation: 'slow_query', rows: [], totalRows: 0, omittedRows: 0, executions: 0 });
    expect(empty?.observations).toEqual(['slow log: no statement reached the slow-log threshold.']);
  });

  it('leaves rows it does not know (TopSQL rates without their window, other shapes) to the generic note', () => {
    expect(materializeStatements('top', 'TopSQL', { operation: 'top_sql', rows: [{ digestRef: DIGEST_A, cpuTimeMs: 10, execPerSec: 1, avgLatencyMs: 1, planCount: 1 }] })).toBeNull();
    expect(materializeStatements('x', 'x', { operation: 'slow_query', rows: [{ digestRef: 'raw sql text', count: 1 }] })).toBeNull();
  });
});
