import { checkCandidate, sha256, type CandidateDiff, type DataManifest } from '@aoc/versioned-data';
import type { DataAccess } from '../run-focus/ports';

/**
 * Data versions of candidates. A data version is the digest of every declared data file
 * (`dataVersion` of @aoc/versioned-data); the version a candidate produces is the same digest with
 * the candidate's files in place of the ones this process reads.
 */

export const DATA_VERSION = /^data:[0-9a-f]{32}$/;

/** The data version of the declared files as `read` gives them, with `overlay` files in their place. */
export function dataVersionWith(manifest: DataManifest, read: (path: string) => string, overlay: ReadonlyMap<string, string> = new Map()): string {
  const parts = manifest.files.map((f) => `${f.path}\n${sha256(overlay.get(f.path) ?? read(f.path))}`);
  return `data:${sha256(parts.join('\n')).slice(0, 32)}`;
}

/** The data a deployed record's cases replay on, or why it cannot be rebuilt in this process. */
export type DeployedData = { kind: 'current' } | { kind: 'overlay'; files: Map<string, string> } | { kind: 'missing'; reason: string };

/**
 * How this process replays on the data a record produced: as it reads its data when that already is
 * the deployed version; with the record's edits on top when it reads the record's base version (and
 * the rebuilt files digest to the recorded version); otherwise it cannot, and says why.
 */
export function deployedData(record: { baseVersion: string; dataVersion: string; edits: CandidateDiff['edits'] }, data: DataAccess): DeployedData {
  const current = data.baseVersion();
  if (current === record.dataVersion) return { kind: 'current' };
  if (current !== record.baseVersion) return { kind: 'missing', reason: `this process reads ${current}, neither the deployed ${record.dataVersion} nor its base ${record.baseVersion}: the deployed data cannot be rebuilt here` };
  const checked = checkCandidate({ edits: record.edits }, data.manifest, data.read);
  if (!checked.ok || !checked.files) return { kind: 'missing', reason: `the recorded edits no longer apply: ${checked.ok ? 'no files' : `${checked.code}: ${checked.detail}`}` };
  const rebuilt = dataVersionWith(data.manifest, data.read, checked.files);
  if (rebuilt !== record.dataVersion) return { kind: 'missing', reason: `the recorded edits on ${current} give ${rebuilt}, not the recorded ${record.dataVersion}` };
  return { kind: 'overlay', files: checked.files };
}
