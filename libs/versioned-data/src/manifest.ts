import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MANIFEST_PATH, RepoPath, repoRoot, resolveDataPath, sha256 } from './versioned-data';

/**
 * The manifest declares which files are versioned data, their size limit, and the tunables a
 * built-in proposer may move (a JSON pointer, its kind and its bounds). Paths it does not declare,
 * and the protected ones, are never changed by a candidate.
 */

const Pointer = z.string().regex(/^(\/[A-Za-z0-9_-]+)+$/, 'must be a JSON pointer of plain keys');

export const Tunable = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('number'), pointer: Pointer, min: z.number(), max: z.number(), step: z.number().positive(), about: z.string().max(300) }).strict(),
  /** A map of family -> families it usually drives: one edge may be added or removed. */
  z.object({ kind: z.literal('family_edges'), pointer: Pointer, about: z.string().max(300) }).strict(),
  /** A list of families: one may be added or removed. */
  z.object({ kind: z.literal('family_set'), pointer: Pointer, about: z.string().max(300) }).strict(),
  /**
   * A map of entries, each with a list of lower-case words (`wordsKey`) and the metric families
   * those words are meant to reach (`familiesKey`): one entry's word list is replaced at a time.
   */
  z.object({ kind: z.literal('word_lists'), pointer: Pointer, wordsKey: z.string().regex(/^[A-Za-z0-9_-]+$/), familiesKey: z.string().regex(/^[A-Za-z0-9_-]+$/), about: z.string().max(300) }).strict(),
]);
export type Tunable = z.infer<typeof Tunable>;

export const DataFile = z
  .object({
    path: RepoPath,
    /** Who reads it (documentation for reviewers). */
    owner: z.string().min(1).max(100),
    maxBytes: z.number().int().min(256).max(256 * 1024),
    tunables: z.array(Tunable).max(50).default([]),
  })
  .strict();
export type DataFile = z.infer<typeof DataFile>;

export const DataManifest = z
  .object({
    version: z.string().min(1).max(64),
    files: z.array(DataFile).min(1).max(50),
    /** Paths (or prefixes ending in /) a candidate may never touch: a proposal naming one goes to a human. */
    protectedPaths: z.array(z.string().min(1).max(200)).max(50),
    /** Changed files per candidate. */
    maxFilesPerCandidate: z.number().int().min(1).max(10),
  })
  .strict();
export type DataManifest = z.infer<typeof DataManifest>;

export function loadManifest(root: string = repoRoot()): DataManifest {
  return DataManifest.parse(JSON.parse(readFileSync(join(root, MANIFEST_PATH), 'utf8')));
}

/** Digest of every declared data file as this process reads them (overlay applied): the base version. */
export function dataVersion(manifest: DataManifest, env: Record<string, string | undefined> = process.env, root: string = repoRoot()): string {
  const parts = manifest.files.map((f) => `${f.path}\n${sha256(readFileSync(resolveDataPath(f.path, env, root), 'utf8'))}`);
  return `data:${sha256(parts.join('\n')).slice(0, 32)}`;
}

export function isProtected(manifest: DataManifest, path: string): boolean {
  return manifest.protectedPaths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));
}
