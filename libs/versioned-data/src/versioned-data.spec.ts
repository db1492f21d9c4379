import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { applyCandidate, candidateDigest, checkCandidate, readPointer } from './candidate-diff';
import { dataVersion, loadManifest, type DataManifest } from './manifest';
import { readVersionedData, repoRoot, resolveDataPath, VERSIONED_DATA_DIR_ENV } from './versioned-data';

const RULES = 'services/router/data/family-rules.json';
const overlayWith = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-overlay-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
};
const read = (path: string) => readFileSync(join(repoRoot(), path), 'utf8');

describe('versioned data', () => {
  const manifest = loadManifest();

  it('declares only files that exist and parse, and reads an overlay copy before the bundled one', () => {
    for (const f of manifest.files) expect(() => JSON.parse(read(f.path))).not.toThrow();
    const bundled = JSON.parse(read(RULES)) as { deviationThreshold: number };
    const dir = overlayWith({ [RULES]: JSON.stringify({ ...bundled, deviationThreshold: 2.5 }) });
    const env = { [VERSIONED_DATA_DIR_ENV]: dir };
    expect(resolveDataPath(RULES, env)).toBe(join(dir, RULES));
    expect(readVersionedData(RULES, z.object({ deviationThreshold: z.number() }).loose(), env).deviationThreshold).toBe(2.5);
    expect(resolveDataPath('services/other.json', env)).toBe(join(repoRoot(), 'services/other.json'));
    expect(dataVersion(manifest, env)).not.toBe(dataVersion(manifest, {}));
    expect(dataVersion(manifest, {})).toMatch(/^data:[0-9a-f]{32}$/);
  });

  it('fails loudly on a bad data file, naming the file and the field', () => {
    const dir = overlayWith({ [RULES]: '{"deviationThreshold":"high"}' });
    expect(() => readVersionedData(RULES, z.object({ deviationThreshold: z.number() }), { [VERSIONED_DATA_DIR_ENV]: dir })).toThrow(/family-rules\.json: deviationThreshold: /);
    const broken = overlayWith({ [RULES]: '{not json' });
    expect(() => readVersionedData(RULES, z.unknown(), { [VERSIONED_DATA_DIR_ENV]: broken })).toThrow(/not readable JSON/);
  });
});

describe('candidate policy', () => {
  const manifest: DataManifest = { ...loadManifest(), protectedPaths: ['services/router/data/protected/', 'libs/contracts/'] };
  const edit = (over: object = {}) => ({ path: RULES, pointer: '/deviationThreshold', value: 3, because: 'test', ...over });

  it('admits an edit of a declared path, applies it, and digests candidates canonically', () => {
    const verdict = checkCandidate({ edits: [edit()] }, manifest, read);
    expect(verdict.ok).toBe(true);
    expect(readPointer(JSON.parse(verdict.files?.get(RULES) ?? '{}'), '/deviationThreshold')).toBe(3);
    const two = { edits: [edit(), edit({ pointer: '/minRelativeChange', value: 0.05 })] };
    expect(candidateDigest(two)).toBe(candidateDigest({ edits: [...two.edits].reverse() }));
    expect(candidateDigest(two)).not.toBe(candidateDigest({ edits: [edit()] }));
    expect(applyCandidate({ edits: [edit({ pointer: '/drives/cpu', value: ['statement_latency'] })] }, read).get(RULES)).toContain('"cpu": [\n      "statement_latency"\n    ]');
  });

  it('refuses protected, undeclared, oversized, unknown-key and garbage proposals with their own codes', () => {
    expect(checkCandidate({ edits: [edit({ path: 'libs/contracts/src/common.ts' })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.PROTECTED_PATH' });
    expect(checkCandidate({ edits: [edit({ path: 'services/router/src/main.ts' })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.UNDECLARED_PATH' });
    expect(checkCandidate({ edits: [edit({ pointer: '/nope', value: 1 })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.UNDECLARED_TUNABLE' });
    expect(checkCandidate({ edits: [edit({ pointer: '/onsetWindow', value: { beforeMs: 0, afterMs: 0 } })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.UNDECLARED_TUNABLE' });
    expect(checkCandidate({ edits: [edit({ value: 'x'.repeat(20_000) })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID', detail: expect.stringContaining('number in [2, 6]') });
    expect(checkCandidate({ edits: [edit({ value: 9 })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID' });
    expect(checkCandidate({ edits: [edit({ pointer: '/drives/cpu', value: ['statement_latency', 'DROP TABLE'] })] }, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID' });
    const tight = { ...manifest, files: manifest.files.map((f) => ({ ...f, maxBytes: Buffer.byteLength(read(f.path)) + 64 })) };
    expect(checkCandidate({ edits: [edit({ pointer: '/drives/cpu', value: Array.from({ length: 40 }, (_, i) => 'f'.repeat(10 + i)) })] }, tight, read)).toMatchObject({ ok: false, code: 'CANDIDATE.TOO_LARGE' });
    for (const garbage of [null, 'rewrite everything', { edits: [] }, { edits: [edit({ path: '../etc/passwd' })] }]) expect(checkCandidate(garbage, manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID' });
  });
});

describe('word-list tunables (the scenario signals)', () => {
  const CATALOG = 'services/router/data/scenario-catalog.json';
  const manifest = loadManifest();
  const signals = (readPointer(JSON.parse(read(CATALOG)), '/scenarios/lock-contention/signals') as string[]) ?? [];
  const edit = (pointer: string, value: unknown) => ({ edits: [{ path: CATALOG, pointer, value, because: 'test' }] });

  it('admits one entry\'s word list replaced, and nothing else of the entry', () => {
    const verdict = checkCandidate(edit('/scenarios/lock-contention/signals', [...signals, 'row lock contention']), manifest, read);
    expect(verdict.ok).toBe(true);
    expect(readPointer(JSON.parse(verdict.files?.get(CATALOG) ?? '{}'), '/scenarios/lock-contention/signals')).toContain('row lock contention');
    expect(checkCandidate(edit('/scenarios/lock-contention/hypothesis', 'anything'), manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.UNDECLARED_TUNABLE' });
    expect(checkCandidate(edit('/scenarios', {}), manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.UNDECLARED_TUNABLE' });
    expect(checkCandidate(edit('/scenarios/no-such-scenario/signals', ['x']), manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID', detail: expect.stringContaining('no such key') });
  });

  it('refuses words a ticket matcher could not use: upper case, untrimmed, multi-line, duplicated, too many', () => {
    for (const bad of [[...signals, 'Lock Storm'], [...signals, ' lock storm'], [...signals, 'lock\nstorm'], [...signals, signals[0]], Array.from({ length: 101 }, (_, i) => `w${i}`), 'lock*']) {
      expect(checkCandidate(edit('/scenarios/lock-contention/signals', bad), manifest, read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID' });
    }
  });
});
