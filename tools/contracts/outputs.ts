// Contract generator: builds every generated file, compares them with the tree and writes what changed.
import * as path from 'node:path';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { asyncApiDocument, brokerAclMatrix, jsonSchemas } from '@aoc/contracts';
import { ARCHITECTURE_FILE, withTopicTable } from './architecture-topics';
import { ACL_MATRIX_FILE, ASYNCAPI_FILE, README_FILE, REPO_ROOT, TOPICS_DIR } from './paths';
import { stableJson } from './stable-json';
import { validateAsyncApi, validateJsonSchemas } from './validate';
import { renderReadme } from './readme';

export function rootVersion(root: string): string {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string' || pkg.version.length === 0) throw new Error('root package.json has no "version"');
  return pkg.version;
}

/** Every generated file, repo-relative POSIX path -> content. Validates before returning. */
export async function buildOutputs(version: string, log: (line: string) => void = console.log): Promise<Map<string, string>> {
  const schemas = jsonSchemas();
  validateJsonSchemas(schemas);
  const asyncApi = asyncApiDocument(version);
  await validateAsyncApi(asyncApi, log);

  const files = new Map<string, string>();
  const add = (rel: string, content: string) => {
    if (files.has(rel)) throw new Error(`two generated files map to ${rel}`);
    files.set(rel, content);
  };
  for (const file of Object.keys(schemas).sort()) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*\.schema\.json$/.test(file)) throw new Error(`unsafe schema file name ${JSON.stringify(file)}`);
    add(`${TOPICS_DIR}/${file}`, stableJson(schemas[file]));
  }
  add(`${TOPICS_DIR}/${ASYNCAPI_FILE}`, stableJson(asyncApi));
  add(`${TOPICS_DIR}/${README_FILE}`, renderReadme(version, schemas, asyncApi));
  add(ACL_MATRIX_FILE, stableJson(brokerAclMatrix()));
  add(ARCHITECTURE_FILE, withTopicTable(REPO_ROOT));
  return files;
}

/** Files under `dir` (absolute), as repo-relative POSIX paths. */
export function listFiles(root: string, dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(root, abs));
    else out.push(path.relative(root, abs).split(path.sep).join('/'));
  }
  return out.sort();
}

export interface Drift {
  missing: string[];
  stale: string[];
  extra: string[];
}

export function compare(root: string, files: Map<string, string>): Drift {
  const drift: Drift = { missing: [], stale: [], extra: [] };
  for (const [rel, content] of files) {
    const abs = path.join(root, rel);
    if (!existsSync(abs) || !statSync(abs).isFile()) drift.missing.push(rel);
    else if (readFileSync(abs, 'utf8') !== content) drift.stale.push(rel);
  }
  for (const rel of listFiles(root, path.join(root, TOPICS_DIR))) {
    if (!files.has(rel)) drift.extra.push(rel);
  }
  drift.missing.sort();
  drift.stale.sort();
  return drift;
}

export function removeEmptyDirs(dir: string, keep: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeEmptyDirs(path.join(dir, entry.name), keep);
  }
  if (dir !== keep && readdirSync(dir).length === 0) rmdirSync(dir);
}

export function write(root: string, files: Map<string, string>, drift: Drift): void {
  for (const rel of [...drift.missing, ...drift.stale]) {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, files.get(rel) ?? '');
  }
  for (const rel of drift.extra) unlinkSync(path.join(root, rel));
  const topicsDir = path.join(root, TOPICS_DIR);
  removeEmptyDirs(topicsDir, topicsDir);
}

export function report(drift: Drift): string[] {
  return [
    ...drift.missing.map((f) => `  missing  ${f}`),
    ...drift.stale.map((f) => `  stale    ${f}`),
    ...drift.extra.map((f) => `  extra    ${f}`),
  ];
}
