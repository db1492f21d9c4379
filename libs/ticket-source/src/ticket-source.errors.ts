import { PermanentError, TransientError, type AocError } from '@aoc/errors';

export type TicketSourceErrorCode =
  | 'TICKET_SOURCE.NOT_FOUND'
  | 'TICKET_SOURCE.INVALID_INPUT'
  | 'TICKET_SOURCE.TICKET_INVALID'
  | 'TICKET_SOURCE.CONFIG_INVALID'
  | 'TICKET_SOURCE.AUTH_FAILED'
  | 'TICKET_SOURCE.REQUEST_REJECTED'
  | 'TICKET_SOURCE.RESPONSE_INVALID'
  | 'TICKET_SOURCE.TOO_MANY_COMMENTS'
  | 'TICKET_SOURCE.READBACK_MISMATCH'
  | 'TICKET_SOURCE.UNAVAILABLE'
  | 'TICKET_SOURCE.TIMEOUT'
  | 'TICKET_SOURCE.STORAGE_FAILED';

/** Codes a later attempt may clear: rate limits, 5xx, network trouble, timeouts, file I/O. */
const TRANSIENT_CODES: ReadonlySet<TicketSourceErrorCode> = new Set(['TICKET_SOURCE.UNAVAILABLE', 'TICKET_SOURCE.TIMEOUT', 'TICKET_SOURCE.STORAGE_FAILED']);

/** The error of a ticket source: transient or permanent by its code. */
export function ticketSourceError(code: TicketSourceErrorCode, message: string, details: Record<string, unknown> = {}): AocError {
  return TRANSIENT_CODES.has(code) ? new TransientError(code, message, { details }) : new PermanentError(code, message, { details });
}
