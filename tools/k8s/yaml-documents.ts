/**
 * Multi-document YAML as kustomize reads it. Kustomize (kyaml, go-yaml v3) mixes YAML 1.1 and 1.2:
 * `0444` is octal there, decimal for a YAML 1.2 parser; `yes`/`on` are strings or booleans by
 * context. A scalar whose value depends on the YAML version is refused here, so that what this
 * renderer reads is what kustomize reads: quote it, or write the number in decimal.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseAs(text: string, version: '1.1' | '1.2', where: string): Json[] {
  const docs = parseAllDocuments(text, { version, merge: false, uniqueKeys: true });
  if (!Array.isArray(docs)) throw new Error(`${where}: not a YAML stream`);
  const out: Json[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw new Error(`${where}: ${problem.message}`);
    const value = doc.toJS({ maxAliasCount: 0 }) as Json | undefined;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** Every non-empty document of a YAML text; throws on a parse error or a version-dependent scalar. */
export function parseYamlDocuments(text: string, where: string): Json[] {
  const modern = parseAs(text, '1.2', where);
  const legacy = parseAs(text, '1.1', where);
  if (!isDeepStrictEqual(modern, legacy)) {
    throw new Error(`${where}: a scalar reads differently in YAML 1.1 and 1.2 (a 0-prefixed number, yes/no/on/off, a sexagesimal): quote it or write it plainly`);
  }
  return modern;
}

export function readYamlDocuments(file: string): Json[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file);
}
