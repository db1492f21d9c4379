import fc from 'fast-check';
import { toNs, unifiedLogLine } from '../../../test/loki-fixture';
import { bracketSections, lifecycleGroupOf, parseLogLine, safeSource } from './clinic-log-events';

describe('typed log events from unified log lines', () => {
  const at = '2026-11-20T10:38:00.000Z';

  it('keeps only the allowlisted, typed facts of a line', () => {
    const line = unifiedLogLine(at, 'WARN', 'executor/adapter.go:1234', 'slow query', {
      cost_time: '1.25s',
      process_time: '350ms',
      conn: 3456789,
      txn_start_ts: 449231214938,
      sql: 'SELECT * FROM accounts WHERE password = "x"',
      digest: 'e5796985ccafe2f71126ed6c0ac939ffa015a8c0744a24b7aee6d587103fd2f7',
      succ: true,
      is_internal: false,
      mem_max: 1048576,
      user: 'root@10.0.0.1',
    });
    expect(parseLogLine(line, toNs(at))).toEqual({
      at,
      level: 'warn',
      group: 'slow_query',
      source: 'adapter.go:1234',
      numbers: { exec_time_s: 1.25, process_time_s: 0.35, mem_max_bytes: 1048576 },
      flags: { success: true, internal: false },
    });
  });

  it('classifies lifecycle groups from a fixed table', () => {
    expect(lifecycleGroupOf('"Welcome to TiDB."')).toBe('startup');
    expect(lifecycleGroupOf('"panic: runtime error"')).toBe('panic');
    expect(lifecycleGroupOf('"region split"')).toBe('region_change');
    expect(lifecycleGroupOf('"become leader"')).toBe('leader_change');
    expect(lifecycleGroupOf('"[tikv:9005]Region is unavailable, backoff"')).toBe('backoff');
    expect(lifecycleGroupOf('"memory limit exceeded, query cancelled"')).toBe('oom');
    expect(lifecycleGroupOf('"something new"')).toBe('other');
  });

  it('keeps a file:line source but no directories, and refuses anything else', () => {
    expect(safeSource('/home/alice/go/src/github.com/pingcap/tidb/server/conn.go:1096')).toBe('conn.go:1096');
    expect(safeSource('raft.rs:77')).toBe('raft.rs:77');
    expect(safeSource('10.0.0.1:4000')).toBeNull();
    expect(safeSource('SELECT 1')).toBeNull();
  });

  it('splits brackets while honouring quoted values', () => {
    expect(bracketSections('[a] ["x]y"] [k="v [w]"]')).toEqual(['a', '"x]y"', 'k="v [w]"']);
  });

  it('property: whatever the line, the event holds no text from it beyond allowlisted shapes', () => {
    const planted = fc.stringMatching(/^[A-Za-z]{10,16}$/);
    fc.assert(
      fc.property(planted, fc.string({ maxLength: 200 }), fc.constantFrom('INFO', 'WARN', 'ERROR', 'nonsense'), (word, noise, level) => {
        const line = `[2026/11/20 10:38:00.000 +00:00] [${level}] [${word}.go:1] ["${word} ${noise}"] [conn=${word}] [sql="${word}"] [${word}=${noise}] ${noise}`;
        const event = parseLogLine(line, toNs(at), undefined);
        const text = JSON.stringify(event);
        // The planted word may only survive as the file name of the source location.
        expect(text.replace(`"source":"${word}.go:1"`, '')).not.toContain(word);
        expect(Object.keys(event.numbers).every((k) => /^[a-z_]+$/.test(k))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
