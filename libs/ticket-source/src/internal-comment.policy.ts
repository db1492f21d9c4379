import { TicketKey, type TicketCommentV1 } from '@aoc/contracts';
import { z } from 'zod';
import { TICKET_LIMITS } from './ticket-limits';
import { ticketSourceError } from './ticket-source.errors';
import type { WriteInternalCommentInput } from './ticket-source.port';
import { issuesText } from '@aoc/errors';

/**
 * The idempotency scheme shared by the adapters. Every comment written for an owner job carries
 * its key twice: as a trailing marker line of the body (it survives any read path, copy and
 * export) and, where the source has one, as a hidden property (Jira: `aoc.idempotency-key`).
 */
export const IdempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, 'idempotencyKey must be a safe identifier such as aoc:<runId>:<job> (letters, digits, . _ : -; at most 200)');

/** Prefix of the trailing marker line, e.g. `aoc-idempotency-key: aoc:run-1:publish`. */
export const IDEMPOTENCY_MARKER_PREFIX = 'aoc-idempotency-key: ';

/** Line endings as LF and no trailing white space: what a source may normalise on its own. */
export function normaliseCommentBody(body: string): string {
  return body.replace(/\r\n?/g, '\n').trimEnd();
}

/** The body as written: the caller's text, a blank line, then the marker line. */
export function withIdempotencyMarker(body: string, idempotencyKey: string): string {
  return `${normaliseCommentBody(body)}\n\n${IDEMPOTENCY_MARKER_PREFIX}${idempotencyKey}`;
}

/** The key of a body's trailing marker line, or null when it has none. */
export function idempotencyMarkerOf(body: string): string | null {
  const lines = normaliseCommentBody(body).split('\n');
  const last = lines[lines.length - 1];
  if (!last.startsWith(IDEMPOTENCY_MARKER_PREFIX)) return null;
  const key = last.slice(IDEMPOTENCY_MARKER_PREFIX.length).trim();
  return IdempotencyKey.safeParse(key).success ? key : null;
}

/** The body without its trailing marker line (for display or fingerprints). */
export function stripIdempotencyMarker(body: string): string {
  if (idempotencyMarkerOf(body) === null) return body;
  const normalised = normaliseCommentBody(body);
  return normalised.slice(0, normalised.lastIndexOf('\n')).trimEnd();
}

const WriteInput = z.object({
  ticketKey: TicketKey,
  idempotencyKey: IdempotencyKey,
  body: z.string().refine((b) => normaliseCommentBody(b).length > 0, 'body must not be empty'),
  replace: z.boolean().default(false),
});

/** A validated write request with the exact body to store. */
export interface PreparedInternalComment {
  ticketKey: string;
  idempotencyKey: string;
  /** Body with the marker line; this exact text is stored and expected on read-back. */
  storedBody: string;
  /** Update an existing comment of this key in place when its body differs. */
  replace: boolean;
}

/** Validates a write request; the stored body (with marker) must fit the contract's limit. */
export function prepareInternalComment(input: WriteInternalCommentInput): PreparedInternalComment {
  const parsed = WriteInput.safeParse(input);
  if (!parsed.success) {
    const issues = issuesText(parsed.error.issues, '(input)');
    throw ticketSourceError('TICKET_SOURCE.INVALID_INPUT', `invalid internal comment request: ${issues}`);
  }
  const storedBody = withIdempotencyMarker(parsed.data.body, parsed.data.idempotencyKey);
  if (storedBody.length > TICKET_LIMITS.commentBodyLength) {
    throw ticketSourceError(
      'TICKET_SOURCE.INVALID_INPUT',
      `invalid internal comment request: body: ${storedBody.length} characters with the idempotency marker, at most ${TICKET_LIMITS.commentBodyLength} allowed`,
      { ticketKey: parsed.data.ticketKey, length: storedBody.length },
    );
  }
  return { ticketKey: parsed.data.ticketKey, idempotencyKey: parsed.data.idempotencyKey, storedBody, replace: parsed.data.replace };
}

/** What an adapter read back for a comment it wrote or found. */
export interface ReadBackComment {
  comment: TicketCommentV1;
  /** The idempotency key the source stores beside the body (property or record field), if any. */
  storedIdempotencyKey: string | null;
}

/**
 * Fails with `TICKET_SOURCE.READBACK_MISMATCH` unless the comment read back is internal, carries
 * the expected body (with its marker) and the expected idempotency key.
 */
export function verifyReadBack(expected: PreparedInternalComment, readBack: ReadBackComment, created: boolean): void {
  const mismatches: string[] = [];
  if (readBack.comment.visibility !== 'internal') mismatches.push('visibility is public, expected internal');
  if (normaliseCommentBody(readBack.comment.body) !== normaliseCommentBody(expected.storedBody)) {
    mismatches.push(`body differs (${readBack.comment.body.length} characters read, ${expected.storedBody.length} written)`);
  }
  if (readBack.storedIdempotencyKey !== expected.idempotencyKey) mismatches.push('idempotency key differs or is missing');
  if (mismatches.length === 0) return;
  const what = created ? 'the comment just written' : 'the existing comment with this idempotency key';
  throw ticketSourceError(
    'TICKET_SOURCE.READBACK_MISMATCH',
    `ticket ${expected.ticketKey}: ${what} (id ${readBack.comment.id}) does not read back as written: ${mismatches.join('; ')}`,
    { ticketKey: expected.ticketKey, commentId: readBack.comment.id, idempotencyKey: expected.idempotencyKey, created, mismatches },
  );
}
