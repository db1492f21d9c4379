/**
 * Base error of every module. Codes are `MODULE.REASON` (e.g. `BUS.SCHEMA_INVALID`); the
 * `retryable` flag is what consumers use to choose between retry and dead-letter.
 */
export interface AocErrorOptions {
  runId?: string | null;
  retryable?: boolean;
  details?: Record<string, unknown>;
  cause?: unknown;
}

export const ERROR_CODE_PATTERN = /^[A-Z][A-Z0-9_]*\.[A-Z][A-Z0-9_]*$/;

export class AocError extends Error {
  readonly code: string;
  readonly runId: string | null;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, options: AocErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (!ERROR_CODE_PATTERN.test(code)) throw new Error(`invalid error code "${code}"`);
    this.name = new.target.name;
    this.code = code;
    this.runId = options.runId ?? null;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }

  get module(): string {
    return this.code.split('.')[0];
  }

  toJSON(): { code: string; message: string; runId: string | null; retryable: boolean; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, runId: this.runId, retryable: this.retryable, details: this.details };
  }
}

/** A failure that may pass if tried again (network blip, lock timeout, broker rebalance). */
export class TransientError extends AocError {
  constructor(code: string, message: string, options: Omit<AocErrorOptions, 'retryable'> = {}) {
    super(code, message, { ...options, retryable: true });
  }
}

/** A failure that will not pass by retrying (bad input, contract violation). */
export class PermanentError extends AocError {
  constructor(code: string, message: string, options: Omit<AocErrorOptions, 'retryable'> = {}) {
    super(code, message, { ...options, retryable: false });
  }
}

/** Classifies any thrown value. Unknown errors are treated as transient: retries are bounded anyway. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof AocError) return error.retryable;
  return true;
}

export function errorCodeOf(error: unknown, fallback = 'INTERNAL.UNEXPECTED'): string {
  return error instanceof AocError ? error.code : fallback;
}

export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
