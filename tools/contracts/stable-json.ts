// Contract generator: deterministic JSON (keys sorted recursively, 2-space indent, trailing newline).
import { type Json, type JsonObject } from './paths';

export function sortKeys(value: unknown, at: string): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`non-finite number at ${at}`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => sortKeys(v, `${at}[${i}]`));
  if (typeof value === 'object') {
    const out: JsonObject = {};
    // Code-unit order, independent of the locale.
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      out[key] = sortKeys(v, `${at}.${key}`);
    }
    return out;
  }
  throw new Error(`value of type ${typeof value} at ${at} is not JSON`);
}

/** JSON with recursively sorted keys, 2-space indentation and a trailing newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value, '$'), null, 2)}\n`;
}
