import { createHash } from 'node:crypto';
import { opaqueRef, redactText, type QueryEvidence } from '@aoc/providers';
import { z } from 'zod';

/** One sanitised query result, keyed so that a replay with the same plan finds it. */
export const RecordingEntry = z.object({
  key: z.string().regex(/^[a-f0-9]{64}$/),
  provider: z.string(),
  target: z.string(),
  operation: z.string(),
  expression: z.string(),
  window: z.object({ from: z.string(), to: z.string() }),
  stepSeconds: z.number().nullable(),
  evidence: z.object({
    id: z.string(),
    status: z.enum(['complete', 'empty', 'failed']),
    result: z.unknown().optional(),
    error_code: z.string().optional(),
    detail_error: z.string().optional(),
    supplemental: z.boolean().optional(),
  }),
});
export type RecordingEntry = z.infer<typeof RecordingEntry>;

export interface RecordingKeyParts {
  provider: string;
  target: string;
  operation: string;
  expression: string;
  window: { from: string; to: string };
  stepSeconds?: number | null;
}

/** Whitespace and instant formatting never change the key. */
export function normaliseExpression(expression: string): string {
  return expression.trim().replace(/\s+/g, ' ');
}

export function recordingKey(parts: RecordingKeyParts): string {
  const canonical = JSON.stringify([
    parts.provider,
    parts.target,
    parts.operation,
    normaliseExpression(parts.expression),
    new Date(parts.window.from).toISOString(),
    new Date(parts.window.to).toISOString(),
    parts.stepSeconds ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Operations whose expression is SQL text: kept as an opaque reference, never verbatim. */
const SQL_OPERATIONS: ReadonlySet<string> = new Set(['sql']);

/**
 * What a recording keeps: the key's parts and the package's already-sanitised evidence (every
 * package result passes `sanitizeValue` before it leaves the package). The entry itself adds no
 * secret, address or raw SQL: an SQL expression is stored as an opaque reference (the key, a
 * digest of the real expression, still finds it) and an error detail is redacted again.
 */
export function recordingEntry(parts: RecordingKeyParts, evidence: QueryEvidence): RecordingEntry {
  const expression = normaliseExpression(parts.expression);
  return {
    key: recordingKey(parts),
    provider: parts.provider,
    target: parts.target,
    operation: parts.operation,
    expression: SQL_OPERATIONS.has(parts.operation) ? opaqueRef('sql', expression) : expression,
    window: { from: new Date(parts.window.from).toISOString(), to: new Date(parts.window.to).toISOString() },
    stepSeconds: parts.stepSeconds ?? null,
    evidence: evidence.detail_error === undefined ? evidence : { ...evidence, detail_error: redactText(evidence.detail_error, { maxStringLength: 1000 }) },
  };
}
