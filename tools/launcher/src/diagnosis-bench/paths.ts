// Diagnosis benchmark (`npm run bench:diagnosis`, bench/diagnosis/): where its data lives. The
// pure modules of the benchmark sit here so that the launcher's unit tests can cover them; the
// reviewed data and the harness stay under bench/diagnosis/.
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..', '..');
export const BENCH_DIR = join(REPO_ROOT, 'bench', 'diagnosis');
/** The DBSherlock dataset beside the repository (shared/datasets/). */
export const DEFAULT_DATASET_DIR = join(REPO_ROOT, '..', 'shared', 'datasets', 'dbsherlock-tpcc16');
