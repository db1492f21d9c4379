import { PermanentError, TransientError, type AocError } from '@aoc/errors';

/**
 * Error codes of the model port. Transient ones are retried inside the client (bounded) and,
 * once exhausted, left to the bus's own bounded retries; permanent ones go to the dead letter.
 */
export type ModelErrorCode =
  | 'MODEL.NOT_CONFIGURED'
  | 'MODEL.BUILTIN_MISSING'
  | 'MODEL.INSTRUCTIONS_INVALID'
  | 'MODEL.SCHEMA_UNSUPPORTED'
  | 'MODEL.REQUEST_REJECTED'
  | 'MODEL.RATE_LIMITED'
  | 'MODEL.UPSTREAM_UNAVAILABLE'
  | 'MODEL.NETWORK_ERROR'
  | 'MODEL.TIMEOUT'
  | 'MODEL.RESPONSE_INVALID'
  | 'MODEL.REFUSED'
  | 'MODEL.TRUNCATED'
  | 'MODEL.OUTPUT_INVALID';

const TRANSIENT: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>(['MODEL.RATE_LIMITED', 'MODEL.UPSTREAM_UNAVAILABLE', 'MODEL.NETWORK_ERROR', 'MODEL.TIMEOUT']);

export function isTransientModelCode(code: ModelErrorCode): boolean {
  return TRANSIENT.has(code);
}

export function modelError(code: ModelErrorCode, message: string, details: Record<string, unknown> = {}): AocError {
  return isTransientModelCode(code) ? new TransientError(code, message, { details }) : new PermanentError(code, message, { details });
}

/**
 * Removes anything that looks like a credential from text that came back from an upstream
 * (some servers echo request headers in their error bodies): the configured key itself, bearer
 * tokens and `sk-` style keys.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('[redacted]');
  return out.replace(/bearer\s+[^\s"',;]+/gi, 'Bearer [redacted]').replace(/\bsk-[A-Za-z0-9_-]{6,}/g, '[redacted]');
}
