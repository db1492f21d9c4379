import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import { materializeFacts } from './materialize-facts';
import { materializeLogs } from './materialize-logs';

const summary = (over: Record<string, unknown> = {}) => ({
  operation: 'logs',
  lines: 5,
  hitLimit: false,
  firstAt: '2026-11-28T09:02:00.000Z',
  lastAt: '2026-11-28T09:43:00.000Z',
  byLevel: [
    { level: 'fatal', count: 2 },
    { level: 'error', count: 1 },
    { level: 'info', count: 2 },
  ],
  byPattern: [
    { pattern: 'connection_limit', count: 2, errors: 2, firstAt: '2026-11-28T09:41:00.000Z', lastAt: '2026-11-28T09:42:00.000Z' },
    { pattern: 'restart', count: 1, errors: 0, firstAt: '2026-11-28T09:02:00.000Z', lastAt: '2026-11-28T09:02:00.000Z' },
    { pattern: 'statement_timeout', count: 1, errors: 1, firstAt: '2026-11-28T09:43:00.000Z', lastAt: '2026-11-28T09:43:00.000Z' },
    { pattern: 'other', count: 1, errors: 0, firstAt: '2026-11-28T09:43:00.000Z', lastAt: '2026-11-28T09:43:00.000Z' },
  ],
  busiestMinute: { at: '2026-11-28T09:43:00.000Z', lines: 2 },
  samples: [
    { at: '2026-11-28T09:02:00.000Z', level: 'info', pattern: 'restart', text: 'LOG: database system is ready to accept connections' },
    { at: '2026-11-28T09:41:00.000Z', level: 'fatal', pattern: 'connection_limit', text: `FATAL: sorry, too many clients already ${'x'.repeat(110)}` },
  ],
  ...over,
});

describe('logs facts', () => {
  it('become line counts and one event per named pattern, with families errors, restarts, connections', () => {
    const m = materializeLogs('log_errors', 'error and restart log lines', summary());
    if (!m) throw new Error('expected a logs materialisation');
    for (const f of m.facts) EvidenceFactV1.parse(f);
    expect(m.facts.map((f) => [f.kind, f.subject, f.value, f.attributes['family'] ?? null])).toEqual([
      ['count', 'log_errors: log lines', 5, null],
      ['count', 'log_errors: error log lines', 3, 'errors'],
      ['event', 'log pattern connection_limit', 2, 'connections'],
      ['event', 'log pattern restart', 1, 'restarts'],
      ['event', 'log pattern statement_timeout', 1, 'errors'],
    ]);
    expect(m.facts[2].attributes).toMatchObject({ firstAt: '2026-11-28T09:41:00.000Z', errorLines: 2 });
    expect(String(m.facts[2].attributes['sample']).length).toBeLessThanOrEqual(120);
    expect(m.facts[4].attributes).not.toHaveProperty('sample');
    expect(m.observations).toEqual([
      'error and restart log lines: 5 log lines (2 fatal, 1 error) between 09:02Z and 09:43Z; connection limit 2 (first 09:41Z), restart 1 (first 09:02Z), statement timeout 1 (first 09:43Z); busiest minute 09:43Z with 2.',
    ]);
    expect(m.gaps).toEqual([]);
  });

  it('no matching line is a reading; a hit limit makes counts lower bounds; other shapes are not logs', () => {
    const none = materializeLogs('log_errors', 'errors', summary({ lines: 0, byLevel: [], byPattern: [], busiestMinute: null, samples: [], firstAt: null, lastAt: null }));
    expect(none?.observations).toEqual(['errors: no matching log line in the window.']);
    expect(none?.facts[1]).toMatchObject({ value: 0, attributes: { reads: 'errors' } });
    expect(none?.facts[1].attributes).not.toHaveProperty('family');
    const capped = materializeLogs('log_errors', 'errors', summary({ hitLimit: true }));
    expect(capped?.gaps).toEqual(["errors (log_errors) hit the package's line limit; log counts are lower bounds"]);
    expect(capped?.observations[0]).toContain('lower bounds');
    expect(materializeLogs('x', 'x', { ...summary(), lines_raw: ['a'] })).toBeNull();
    expect(materializeLogs('x', 'x', { resultType: 'streams' })).toBeNull();
  });

  it('flows through materializeFacts without any log text beyond the short samples', () => {
    const planned: PlannedQueryV1 = { id: 'log_errors', operation: 'logs', expression: '{cluster="pg-1"} |= "error"', purpose: 'error log lines' };
    const out = materializeFacts([planned], [{ id: 'log_errors', status: 'complete', result: summary() }]);
    expect(out.facts).toHaveLength(5);
    expect(JSON.stringify(out)).not.toContain('cluster="pg-1"');
  });
});
