import { join } from 'node:path';
import { frozenCaseFiles } from '@aoc/launcher';
import { parseOptimizeArgs } from './cli-optimize';

describe('aoc optimize arguments', () => {
  it('reads the step, the store and the working copy, with the environment as fallback', () => {
    expect(parseOptimizeArgs(['iterate', '--git', '/repo', '--cases', 'a', '--cases', 'b', '--json'], {})).toMatchObject({ step: 'iterate', git: '/repo', cases: ['a', 'b'], json: true, database: undefined });
    expect(parseOptimizeArgs(['status'], { DATABASE_URL: 'postgres://db/aoc', AOC_OPTIMIZER_GIT_DIR: '/wc' })).toMatchObject({ database: 'postgres://db/aoc', git: '/wc' });
  });

  it('names the bad option', () => {
    expect(() => parseOptimizeArgs(['optimise'], {})).toThrow(/^step \(select\|baseline\|iterate\|status\|schedule\)/);
    expect(() => parseOptimizeArgs([], {})).toThrow(/step/);
  });

  it('indexes frozen cases by ticket key', () => {
    const cases = frozenCaseFiles([join(__dirname, '..', 'services', 'optimizer', 'demo', 'tickets')]);
    expect([...cases.keys()].sort()).toEqual(['SUP-2401', 'SUP-2402', 'SUP-2403']);
  });
});
