import type { z } from 'zod';

/**
 * Limits read from the schemas themselves, so code that clips text or lists to fit a contract
 * never re-types a maximum: change the schema and every clip follows.
 */
type Schema = z.core.$ZodType;

const WRAPPERS: ReadonlySet<string> = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** The schema inside optional, nullable and default wrappers. */
function core(schema: Schema): Schema {
  let s = schema;
  while (WRAPPERS.has(s._zod.def.type)) s = (s._zod.def as unknown as { innerType: Schema }).innerType;
  return s;
}

function maximum(schema: Schema, what: string): number {
  const s = core(schema);
  for (const check of s._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; maximum?: number };
    if (def.check === 'max_length' && typeof def.maximum === 'number') return def.maximum;
  }
  throw new Error(`the schema (${s._zod.def.type}) declares no maximum ${what}`);
}

/** The longest string a string schema (optionally wrapped) accepts. */
export function maxLengthOf(schema: Schema): number {
  if (core(schema)._zod.def.type !== 'string') throw new Error(`maxLengthOf needs a string schema, got ${core(schema)._zod.def.type}`);
  return maximum(schema, 'length');
}

/** The most items an array schema (optionally wrapped) accepts. */
export function maxItemsOf(schema: Schema): number {
  if (core(schema)._zod.def.type !== 'array') throw new Error(`maxItemsOf needs an array schema, got ${core(schema)._zod.def.type}`);
  return maximum(schema, 'number of items');
}

/** The element schema of an array schema (optionally wrapped). */
export function elementOf(schema: Schema): Schema {
  const s = core(schema);
  if (s._zod.def.type !== 'array') throw new Error(`elementOf needs an array schema, got ${s._zod.def.type}`);
  return (s._zod.def as unknown as { element: Schema }).element;
}

/** Text clipped to what a string schema accepts, marked with an ellipsis when cut. */
export function clipTo(schema: Schema, text: string): string {
  const max = maxLengthOf(schema);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Texts clipped to an array-of-strings schema: at most its items, each at most its element's length. */
export function clipAllTo(schema: Schema, texts: readonly string[]): string[] {
  const element = elementOf(schema);
  return texts.slice(0, maxItemsOf(schema)).map((t) => clipTo(element, t));
}
