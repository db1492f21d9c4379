/** Column values as the pg driver and PGlite return them: jsonb as objects or text, timestamps as Date or text. */
export const jsonValue = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
export const isoValue = (v: unknown): string => new Date(v as string).toISOString();
export const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : isoValue(v));
