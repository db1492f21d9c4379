import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { z } from 'zod';

/**
 * Versioned data: the files the optimizer may change (mechanism rules and thresholds, ...), each
 * named by its repository path and validated by its owner's schema. A process started with
 * `AOC_VERSIONED_DATA_DIR` reads a file from that directory when it holds it (a candidate's
 * overlay), else the bundled one; so a challenger replay is the same code on other data.
 */
export const VERSIONED_DATA_DIR_ENV = 'AOC_VERSIONED_DATA_DIR';
export const MANIFEST_PATH = 'versioned-data.manifest.json';

/** A repository-relative path with forward slashes and no way out of the repository. */
export const RepoPath = z
  .string()
  .min(1)
  .max(200)
  .refine((p) => !isAbsolute(p) && !p.split('/').includes('..') && !p.includes('\\') && normalize(p).split(sep).join('/') === p, 'must be a normalised repository-relative path');

/** The repository root: the nearest ancestor holding the manifest. */
export function repoRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, MANIFEST_PATH))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`${MANIFEST_PATH} not found above ${from}`);
    dir = up;
  }
}

/** Where a data file is read from in this process: the overlay's copy when it has one. */
export function resolveDataPath(repoPath: string, env: Record<string, string | undefined> = process.env, root: string = repoRoot()): string {
  const overlay = env[VERSIONED_DATA_DIR_ENV];
  if (overlay && existsSync(join(overlay, repoPath))) return join(overlay, repoPath);
  return join(root, repoPath);
}

/** Reads and validates one data file; a bad file fails loudly, naming the file and the field. */
export function readVersionedData<T>(repoPath: string, schema: z.ZodType<T>, env: Record<string, string | undefined> = process.env): T {
  const file = resolveDataPath(repoPath, env);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${repoPath}: not readable JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`${repoPath}: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
