// Diagnosis benchmark (`npm run bench:diagnosis`, bench/diagnosis/): where its data lives. The
// pure modules of the benchmark sit here so that the launcher's unit tests can cover them; the
// reviewed data and the harness stay under bench/diagnosis/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..', '..');
export const BENCH_DIR = join(REPO_ROOT, 'bench', 'diagnosis');

const DATASET = join('shared', 'datasets', 'dbsherlock-tpcc16');

/** Where the DBSherlock dataset may be: `BENCH_DBSHERLOCK_DIR`, a `shared/` beside the checkout or one of its parents, the workspace's own. */
export function datasetCandidates(env: Record<string, string | undefined> = process.env): string[] {
  const out = env['BENCH_DBSHERLOCK_DIR'] ? [env['BENCH_DBSHERLOCK_DIR']] : [];
  for (let dir = join(REPO_ROOT, '..'); ; dir = dirname(dir)) {
    out.push(join(dir, DATASET));
    if (dirname(dir) === dir) break;
  }
  // A fresh clone elsewhere (CI) still finds the workspace's shared datasets.
  out.push(join('/work', DATASET));
  return out;
}

/** The first candidate holding the manifest, or null when the dataset is nowhere on this machine. */
export function findDatasetDir(env: Record<string, string | undefined> = process.env): string | null {
  return datasetCandidates(env).find((d) => existsSync(join(d, 'manifest.json'))) ?? null;
}

/** The DBSherlock dataset (shared/datasets/); the sibling path when it is nowhere, so errors name it. */
export const DEFAULT_DATASET_DIR = findDatasetDir() ?? join(REPO_ROOT, '..', DATASET);
