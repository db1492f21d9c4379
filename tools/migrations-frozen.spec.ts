import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, digestOf, migrationFiles, readLock } from './migrations-frozen';

/** A committed migration never changes and never runs live library code (whose DDL moves on). */
describe('frozen migrations', () => {
  const lock = readLock();

  it('every migration is in the lock (npm run migrations:freeze adds a new one)', () => {
    expect(migrationFiles().filter((f) => lock[f] === undefined)).toEqual([]);
    expect(migrationFiles().length).toBeGreaterThanOrEqual(30);
  });

  it.each(Object.keys(lock).map((f) => [f]))('%s is as it was frozen', (file: string) => {
    expect(digestOf(file)).toBe(lock[file]);
  });

  it('no migration imports live code from the libraries (types only)', () => {
    const live = migrationFiles().filter((f) => /^import\s+(?!type\b)[^;]*from\s+'@aoc\//m.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(live).toEqual([]);
  });
});
