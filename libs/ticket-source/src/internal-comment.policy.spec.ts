import {
  IDEMPOTENCY_MARKER_PREFIX,
  idempotencyMarkerOf,
  prepareInternalComment,
  stripIdempotencyMarker,
  verifyReadBack,
  withIdempotencyMarker,
} from './internal-comment.policy';
import { thrownBy } from './testing/aoc-error.capture';


describe('idempotency marker', () => {
  it('ends the body with one marker line that reads back to the key', () => {
    const body = withIdempotencyMarker('Line one.\r\nLine two.  \n\n', 'aoc:run-1:publish');
    expect(body).toBe(`Line one.\nLine two.\n\n${IDEMPOTENCY_MARKER_PREFIX}aoc:run-1:publish`);
    expect(idempotencyMarkerOf(body)).toBe('aoc:run-1:publish');
    expect(idempotencyMarkerOf(`${body}\r\n `)).toBe('aoc:run-1:publish');
    expect(stripIdempotencyMarker(body)).toBe('Line one.\nLine two.');
  });

  it('finds no key in a body without a trailing marker line', () => {
    expect(idempotencyMarkerOf('plain text')).toBeNull();
    expect(idempotencyMarkerOf(`${IDEMPOTENCY_MARKER_PREFIX}aoc:run-1:publish\nquoted above`)).toBeNull();
    expect(idempotencyMarkerOf(`${IDEMPOTENCY_MARKER_PREFIX}not a key`)).toBeNull();
    expect(stripIdempotencyMarker('plain text')).toBe('plain text');
  });
});

describe('prepareInternalComment', () => {
  it('returns the body to store, with the marker', () => {
    expect(prepareInternalComment({ ticketKey: 'SUP-1', idempotencyKey: 'aoc:run-1:publish', body: 'Analysis.' })).toEqual({
      ticketKey: 'SUP-1',
      idempotencyKey: 'aoc:run-1:publish',
      storedBody: `Analysis.\n\n${IDEMPOTENCY_MARKER_PREFIX}aoc:run-1:publish`,
      replace: false,
    });
  });

  it('rejects bad keys, empty bodies and bodies that no longer fit with the marker', () => {
    const bad = thrownBy(() => prepareInternalComment({ ticketKey: 'SUP 1', idempotencyKey: '', body: '\n' }));
    expect(bad.code).toBe('TICKET_SOURCE.INVALID_INPUT');
    expect(bad.message).toMatch(/ticketKey: .*idempotencyKey: .*body: body must not be empty/);
    const long = thrownBy(() => prepareInternalComment({ ticketKey: 'SUP-1', idempotencyKey: 'k', body: 'x'.repeat(19990) }));
    expect(long.message).toContain('at most 20000');
  });
});

describe('verifyReadBack', () => {
  const expected = prepareInternalComment({ ticketKey: 'SUP-1', idempotencyKey: 'aoc:run-1:publish', body: 'Analysis.' });
  const good = {
    comment: { id: '1', authorRole: 'bot' as const, visibility: 'internal' as const, createdAt: '2026-01-01T00:00:00.000Z', body: expected.storedBody },
    storedIdempotencyKey: 'aoc:run-1:publish',
  };

  it('accepts the comment as written, also with CRLF line ends and trailing white space', () => {
    expect(() => verifyReadBack(expected, good, true)).not.toThrow();
    expect(() => verifyReadBack(expected, { ...good, comment: { ...good.comment, body: `${expected.storedBody.replace(/\n/g, '\r\n')}\n` } }, true)).not.toThrow();
  });

  it('names every mismatch', () => {
    const error = thrownBy(() => verifyReadBack(expected, { comment: { ...good.comment, visibility: 'public', body: 'Edited.' }, storedIdempotencyKey: null }, false));
    expect(error.code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(error.details.mismatches).toEqual(['visibility is public, expected internal', expect.stringContaining('body differs'), 'idempotency key differs or is missing']);
    expect(error.message).toContain('the existing comment with this idempotency key');
  });
});
