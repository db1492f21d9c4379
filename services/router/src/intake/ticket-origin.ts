import { createHash } from 'node:crypto';
import { CALLER_TICKET_KEY_PREFIX } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';

/**
 * Where a ticket's text came from. `source`: read from the configured ticket source; `import`: sent
 * by an operator (or an in-process caller on the operator's machine) who vouches for it; `caller`:
 * sent in an HTTP request body by anyone else, so nothing in it is trusted.
 */
export type TicketOrigin = { kind: 'source' } | { kind: 'import' } | { kind: 'caller'; subject: string };

const MAX_KEY = 64;

/**
 * The key a caller-supplied ticket runs under: its own namespace per principal, so a forged
 * body can never become a revision, a run or an answer of the real ticket with that key. The layout
 * (`adhoc-<8 hex>-<key>`) is the contracts' `innerTicketKey`'s.
 */
export function callerTicketKey(subject: string, key: string): string {
  const owner = createHash('sha256').update(subject).digest('hex').slice(0, 8);
  const prefix = `${CALLER_TICKET_KEY_PREFIX}${owner}-`;
  return `${prefix}${key.slice(0, MAX_KEY - prefix.length)}`;
}

/** A caller-supplied ticket runs in read mode only: nothing may be written back for it. */
export function checkCallerMode(origin: TicketOrigin, mode: string): void {
  if (origin.kind === 'caller' && mode === 'write') {
    throw new PermanentError('INTAKE.UNTRUSTED_TICKET', 'a ticket sent in the request body runs in read mode only; send ticketKey to analyse the ticket source\'s copy, or import it as an operator ("import": true)');
  }
}
