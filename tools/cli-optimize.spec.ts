import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frozenCaseFiles } from '@aoc/launcher';
import { checkRecordFiles, parseOptimizeArgs } from './cli-optimize';

describe('aoc optimize arguments', () => {
  it('reads the step, the store and the working copy, with the environment as fallback', () => {
    expect(parseOptimizeArgs(['iterate', '--git', '/repo', '--cases', 'a', '--cases', 'b', '--json'], {})).toMatchObject({ step: 'iterate', git: '/repo', cases: ['a', 'b'], json: true, database: undefined });
    expect(parseOptimizeArgs(['status'], { DATABASE_URL: 'postgres://db/aoc', AOC_OPTIMIZER_GIT_DIR: '/wc' })).toMatchObject({ database: 'postgres://db/aoc', git: '/wc' });
  });

  it('names the bad option', () => {
    expect(() => parseOptimizeArgs(['optimise'], {})).toThrow(/^step \(select\|baseline\|iterate\|verify\|status\|schedule\|records\)/);
    expect(() => parseOptimizeArgs([], {})).toThrow(/step/);
    expect(() => parseOptimizeArgs(['records', 'import', 'docs/opts'], {})).toThrow(/^records action \(export\|check\): /);
    expect(() => parseOptimizeArgs(['records', 'export'], {})).toThrow(/^records path /);
  });

  it('reads the records commands and the verify step', () => {
    expect(parseOptimizeArgs(['records', 'export', 'docs/opts', '--database', 'postgres://db/aoc'], {})).toMatchObject({ step: 'records', records: { action: 'export', path: 'docs/opts' }, database: 'postgres://db/aoc' });
    expect(parseOptimizeArgs(['records', '--state-dir', '/s', 'check', 'x.md'], {})).toMatchObject({ records: { action: 'check', path: 'x.md' }, stateDir: '/s' });
    expect(parseOptimizeArgs(['verify', '--json'], {})).toMatchObject({ step: 'verify', json: true, records: undefined });
  });

  it('refuses a malformed record file, naming the file and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aoc-opts-'));
    try {
      writeFileSync(join(dir, 'README.md'), '# not a record');
      writeFileSync(join(dir, '2026-12-01-opt-0123456789abcdef.md'), '# record\n\n```json auto-oncall-optimization-record-v1\n{"format": "auto-oncall-optimization-record-v1", "schemaVersion": 2}\n```\n');
      writeFileSync(join(dir, 'broken.json'), '{"format": ');
      await expect(checkRecordFiles(dir)).rejects.toThrow(/2 of 2 record file\(s\) invalid/);
      await expect(checkRecordFiles(join(dir, '2026-12-01-opt-0123456789abcdef.md'))).rejects.toThrow(/opt-0123456789abcdef\.md: schemaVersion: .*; recordId: /);
      await expect(checkRecordFiles(join(dir, 'broken.json'))).rejects.toThrow(/broken\.json: \(record\): not JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('indexes frozen cases by ticket key', () => {
    const cases = frozenCaseFiles([join(__dirname, '..', 'services', 'optimizer', 'demo', 'tickets')]);
    expect([...cases.keys()].sort()).toEqual(['SUP-2401', 'SUP-2402', 'SUP-2403']);
  });
});
