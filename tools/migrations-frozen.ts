import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Committed migrations are frozen: their SQL is what ran on every database already, so a change
 * to one would give new and old databases different schemas. The lock holds a digest per file;
 * `npm run migrations:freeze` adds new files and refuses to rewrite a digest that exists.
 */
export const ROOT = join(__dirname, '..');
export const LOCK = join(ROOT, 'tools', 'migrations.lock.json');

export function migrationFiles(root = ROOT): string[] {
  const dirs = [...readdirSync(join(root, 'services')).map((s) => join(root, 'services', s, 'src', 'migrations')), join(root, 'libs', 'auth', 'src', 'migrations')];
  return dirs
    .flatMap((dir) => {
      try {
        return readdirSync(dir).filter((f) => f.endsWith('.migration.ts') || /^\d{13}-.*\.ts$/.test(f)).filter((f) => !f.endsWith('.spec.ts')).map((f) => join(dir, f));
      } catch {
        return [];
      }
    })
    .map((f) => relative(root, f))
    .sort();
}

export function digestOf(path: string, root = ROOT): string {
  // Line endings do not change the SQL.
  return createHash('sha256').update(readFileSync(join(root, path), 'utf8').replace(/\r\n/g, '\n')).digest('hex');
}

export function readLock(): Record<string, string> {
  return JSON.parse(readFileSync(LOCK, 'utf8')) as Record<string, string>;
}

function freeze(): void {
  let lock: Record<string, string> = {};
  try {
    lock = readLock();
  } catch {
    lock = {};
  }
  const added: string[] = [];
  for (const file of migrationFiles()) {
    const digest = digestOf(file);
    if (lock[file] === undefined) {
      lock[file] = digest;
      added.push(file);
    } else if (lock[file] !== digest) {
      throw new Error(`${file} changed after it was frozen: write a new migration instead`);
    }
  }
  writeFileSync(LOCK, `${JSON.stringify(Object.fromEntries(Object.entries(lock).sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`);
  process.stdout.write(`migrations:freeze: ${added.length} added, ${Object.keys(lock).length} frozen\n`);
}

if (require.main === module) freeze();
