// The Node versions the project runs on, and the installed packages whose `engines` refuse one of
// them. Read from package.json, package-lock.json and deploy/local/node-lts.sh (the LTS CI installs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies } from 'semver';

export const ROOT = join(__dirname, '..');

const readJson = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

/** The lowest Node the root package admits (its `engines.node` range). */
export function floorVersion(): string {
  const range = (readJson('package.json') as { engines?: { node?: string } }).engines?.node;
  const min = range ? minVersion(range) : null;
  if (!range || !min) throw new Error('package.json: engines.node must be a version range with a lowest version');
  return min.version;
}

/** The LTS version deploy/local/node-lts.sh installs by default. */
export function ltsVersion(): string {
  const m = /AOC_NODE_LTS_VERSION:-(\d+\.\d+\.\d+)/.exec(readFileSync(join(ROOT, 'deploy/local/node-lts.sh'), 'utf8'));
  if (!m) throw new Error('deploy/local/node-lts.sh: no default AOC_NODE_LTS_VERSION');
  return m[1];
}

/** The major of the Node base image the service images build from. */
export function imageMajor(): number {
  const m = /ARG NODE_IMAGE=node:(\d+)[-\w.]*/.exec(readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8'));
  if (!m) throw new Error('deploy/Dockerfile: no ARG NODE_IMAGE=node:<major>...');
  return Number(m[1]);
}

/** Installed packages (lock entries) whose `engines.node` does not admit `version`. */
export function refusing(version: string): string[] {
  const lock = readJson('package-lock.json') as { packages: Record<string, { engines?: { node?: string } | string[] }> };
  const out: string[] = [];
  for (const [path, meta] of Object.entries(lock.packages)) {
    const range = meta.engines && !Array.isArray(meta.engines) ? meta.engines.node : undefined;
    if (path !== '' && range && !satisfies(version, range, { includePrerelease: true })) out.push(`${path.replace(/^node_modules\//, '')} (node ${range})`);
  }
  return out.sort();
}
