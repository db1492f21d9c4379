import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { passDataDir } from './child-replay';
import { demoFailureModes, onDemoDeployment, useDemoDeployment } from './demo-deployment';

const FAILURE_MODES = 'services/router/data/failure-modes.json';
const FAMILY_RULES = 'services/router/data/family-rules.json';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'aoc-demo-deployment-spec-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the optimizer demo deployment', () => {
  it('keeps only the health check of the bundled catalogue, without references to modes it drops, every other field as it was', () => {
    const bundled = JSON.parse(readFileSync(join(repoRoot(), FAILURE_MODES), 'utf8')) as { ranking: unknown; version: string; modes: { id: string; lookAlikes: { mode: string }[] }[] };
    const demo = JSON.parse(demoFailureModes(JSON.stringify(bundled))) as typeof bundled;
    expect(bundled.modes.length).toBeGreaterThan(1);
    const healthy = bundled.modes.filter((m) => m.id === 'healthy');
    expect(healthy[0].lookAlikes.length).toBeGreaterThan(0);
    expect(demo.modes).toEqual(healthy.map((m) => ({ ...m, lookAlikes: [] })));
    expect(demo.ranking).toEqual(bundled.ranking);
    expect(demo.version).toBe(bundled.version);
    expect(() => demoFailureModes(JSON.stringify({ ...bundled, modes: bundled.modes.filter((m) => m.id !== 'healthy') }))).toThrow(/no "healthy" mode/);
  });

  it('points a process at its data, and only that data counts as the demo deployment', () => {
    const env: Record<string, string | undefined> = {};
    expect(onDemoDeployment(env)).toBe(false);
    const dir = useDemoDeployment(env);
    dirs.push(dir);
    expect(env[VERSIONED_DATA_DIR_ENV]).toBe(dir);
    expect(onDemoDeployment(env)).toBe(true);
    // A candidate's copy of the catalogue (or any other overlay) is not the demo's starting point.
    const other = temp();
    mkdirSync(join(other, 'services/router/data'), { recursive: true });
    writeFileSync(join(other, FAILURE_MODES), readFileSync(join(repoRoot(), FAILURE_MODES), 'utf8'));
    expect(onDemoDeployment({ [VERSIONED_DATA_DIR_ENV]: other })).toBe(false);
  });
});

describe('passDataDir (what a replay pass reads)', () => {
  const base = () => {
    const d = temp();
    mkdirSync(join(d, 'services/router/data'), { recursive: true });
    writeFileSync(join(d, FAILURE_MODES), 'base modes');
    writeFileSync(join(d, FAMILY_RULES), 'base rules');
    // Not declared in the manifest: not versioned data, so not carried into the pass.
    writeFileSync(join(d, 'services/router/data/notes.txt'), 'x');
    return d;
  };

  it('is the bundled files when this process reads them and there is no candidate', () => {
    const out = join(temp(), 'overlay');
    expect(passDataDir(out, null, {})).toBe('');
    expect(passDataDir(out, new Map(), {})).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it("is this process's own data for a baseline, so it replays what the optimizer digested", () => {
    const out = join(temp(), 'overlay');
    expect(passDataDir(out, null, { [VERSIONED_DATA_DIR_ENV]: base() })).toBe(out);
    expect(readFileSync(join(out, FAILURE_MODES), 'utf8')).toBe('base modes');
    expect(readFileSync(join(out, FAMILY_RULES), 'utf8')).toBe('base rules');
    expect(existsSync(join(out, 'services/router/data/notes.txt'))).toBe(false);
  });

  it("puts a candidate's files over this process's data, leaving the rest of it", () => {
    const out = join(temp(), 'overlay');
    expect(passDataDir(out, new Map([[FAMILY_RULES, 'candidate rules']]), { [VERSIONED_DATA_DIR_ENV]: base() })).toBe(out);
    expect(readFileSync(join(out, FAMILY_RULES), 'utf8')).toBe('candidate rules');
    expect(readFileSync(join(out, FAILURE_MODES), 'utf8')).toBe('base modes');
    const alone = join(temp(), 'overlay');
    expect(passDataDir(alone, new Map([[FAMILY_RULES, 'candidate rules']]), {})).toBe(alone);
    expect(existsSync(join(alone, FAILURE_MODES))).toBe(false);
  });
});
