import { PermanentError } from '@aoc/errors';

/** Error codes of the bus module. Dead letters carry one of these. */
export type BusErrorCode =
  | 'BUS.ROLE_NOT_GRANTED'
  | 'BUS.UNKNOWN_TOPIC'
  | 'BUS.MESSAGE_TOO_LARGE'
  | 'BUS.MALFORMED_JSON'
  | 'BUS.ENVELOPE_INVALID'
  | 'BUS.UNKNOWN_SCHEMA_VERSION'
  | 'BUS.SCHEMA_MISMATCH'
  | 'BUS.SCHEMA_INVALID'
  | 'BUS.HANDLER_REJECTED'
  | 'BUS.RETRIES_EXHAUSTED'
  | 'BUS.NO_HANDLER';

export class BusError extends PermanentError {
  constructor(code: BusErrorCode, message: string, options: { runId?: string | null; details?: Record<string, unknown> } = {}) {
    super(code, message, options);
  }
}

/** Refusal to start (or to publish) outside the role/topic matrix. */
export class BusAclError extends BusError {
  constructor(
    readonly role: string,
    readonly topic: string,
    readonly access: 'subscribe' | 'publish',
  ) {
    super('BUS.ROLE_NOT_GRANTED', `role "${role}" is not granted ${access} on topic "${topic}" by the matrix in libs/contracts`, {
      details: { role, topic, access },
    });
  }
}

/** Renders zod issues as `path: message` pairs, prefixed with where they were found. */
export function describeIssues(prefix: string, issues: readonly { path: readonly PropertyKey[]; message: string }[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.')}: ${i.message}`);
  const more = issues.length > max ? ` (+${issues.length - max} more)` : '';
  return shown.join('; ') + more;
}
