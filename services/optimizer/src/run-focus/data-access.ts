import { readFileSync } from 'node:fs';
import { dataVersion, loadManifest, repoRoot, resolveDataPath } from '@aoc/versioned-data';
import type { DataAccess } from './ports';

/** The versioned data of this checkout, as this process reads it. */
export function localDataAccess(root: string = repoRoot()): DataAccess {
  const manifest = loadManifest(root);
  return {
    manifest,
    read: (path) => readFileSync(resolveDataPath(path, process.env, root), 'utf8'),
    baseVersion: () => dataVersion(manifest, process.env, root),
  };
}
