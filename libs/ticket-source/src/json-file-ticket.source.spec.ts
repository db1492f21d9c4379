import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrozenTicketV1 } from '@aoc/contracts';
import { IDEMPOTENCY_MARKER_PREFIX } from './internal-comment.policy';
import { JsonFileTicketSource } from './json-file-ticket.source';
import { rejectionOf } from './testing/aoc-error.capture';

const ticket: FrozenTicketV1 = {
  key: 'SUP-1042',
  title: 'p99 latency doubled',
  description: 'Since 10:40 UTC p99 went from 40ms to 90ms.',
  reporterRole: 'customer',
  createdAt: '2026-11-20T10:58:00Z',
  labels: ['latency'],
  comments: [
    { id: 'c-1', authorRole: 'customer', visibility: 'public', createdAt: '2026-11-20T11:02:00Z', body: 'Still slow.' },
    { id: 'c-2', authorRole: 'support', visibility: 'internal', createdAt: '2026-11-20T11:40:00Z', body: 'TopSQL shows a scan.' },
  ],
};


describe('JsonFileTicketSource', () => {
  let dir: string;
  let source: JsonFileTicketSource;
  const at = new Date('2026-11-21T09:00:00.000Z');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aoc-ticket-source-'));
    await writeFile(join(dir, 'SUP-1042.json'), JSON.stringify(ticket));
    source = new JsonFileTicketSource({ directory: dir, now: () => at });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads a ticket file as a FrozenTicketV1', async () => {
    await expect(source.readTicket('SUP-1042')).resolves.toEqual(ticket);
    expect(source.kind).toBe('json-file');
  });

  it('reads the timeline with edit times from the file and the comments written through the port', async () => {
    const edited = { ...ticket, comments: [ticket.comments[0], { ...ticket.comments[1], body: 'TopSQL shows a full scan.', updatedAt: '2026-11-20T12:00:00Z' }] };
    await writeFile(join(dir, 'SUP-1042.json'), JSON.stringify(edited));
    await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Analysis.' });
    const timeline = await source.readTimeline('SUP-1042');
    expect(timeline.comments.map((c) => [c.id, c.updatedAt])).toEqual([
      ['c-1', '2026-11-20T11:02:00Z'],
      ['c-2', '2026-11-20T12:00:00Z'],
      [expect.any(String), at.toISOString()],
    ]);
    expect((await rejectionOf(source.readTimeline('SUP-9'))).code).toBe('TICKET_SOURCE.NOT_FOUND');
  });

  it('with replace, updates the same written comment in place (id and creation time kept, edit time set)', async () => {
    const key = { ticketKey: 'SUP-1042', idempotencyKey: 'aoc:SUP-1042:final-response' };
    const first = await source.writeInternalComment({ ...key, body: 'Version 1.', replace: true });
    const later = new JsonFileTicketSource({ directory: dir, now: () => new Date('2026-11-22T09:00:00.000Z') });
    const second = await later.writeInternalComment({ ...key, body: 'Version 2.', replace: true });
    expect(second).toMatchObject({ commentId: first.commentId, created: false, updated: true });
    expect(second.readBack.body).toContain('Version 2.');
    expect(second.readBack.createdAt).toBe(first.readBack.createdAt);
    const timeline = await later.readTimeline('SUP-1042');
    expect(timeline.comments.filter((c) => c.id === first.commentId)).toEqual([expect.objectContaining({ updatedAt: '2026-11-22T09:00:00.000Z' })]);
    expect(await later.writeInternalComment({ ...key, body: 'Version 2.', replace: true })).toMatchObject({ updated: false, created: false });
  });

  it('fails with a permanent NOT_FOUND for a missing ticket', async () => {
    const error = await rejectionOf(source.readTicket('SUP-9'));
    expect(error.code).toBe('TICKET_SOURCE.NOT_FOUND');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('SUP-9.json');
  });

  it('refuses keys that are not ticket keys (no path outside the directory)', async () => {
    const error = await rejectionOf(source.readTicket('../etc/passwd'));
    expect(error.code).toBe('TICKET_SOURCE.INVALID_INPUT');
  });

  it('names the field and the file of an invalid ticket', async () => {
    await writeFile(join(dir, 'SUP-7.json'), JSON.stringify({ ...ticket, key: 'SUP-7', comments: [{ ...ticket.comments[0], createdAt: 'yesterday' }] }));
    const error = await rejectionOf(source.readTicket('SUP-7'));
    expect(error.code).toBe('TICKET_SOURCE.TICKET_INVALID');
    expect(error.message).toContain(join(dir, 'SUP-7.json'));
    expect(error.message).toContain('field "comments.0.createdAt"');
  });

  it('rejects a file whose key is not its name, and a file that is not JSON', async () => {
    await writeFile(join(dir, 'SUP-8.json'), JSON.stringify(ticket));
    expect((await rejectionOf(source.readTicket('SUP-8'))).message).toContain('field "key" is "SUP-1042", expected "SUP-8"');
    await writeFile(join(dir, 'SUP-9.json'), '{ not json');
    const error = await rejectionOf(source.readTicket('SUP-9'));
    expect(error.code).toBe('TICKET_SOURCE.TICKET_INVALID');
    expect(error.message).toContain('SUP-9.json is not valid JSON');
  });

  it('writes one internal bot comment beside the ticket, reads it back and merges it into the ticket', async () => {
    const result = await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Cause: a missing index.' });
    expect(result.created).toBe(true);
    expect(result.readBack).toEqual({
      id: result.commentId,
      authorRole: 'bot',
      visibility: 'internal',
      createdAt: at.toISOString(),
      body: `Cause: a missing index.\n\n${IDEMPOTENCY_MARKER_PREFIX}aoc:run-1:publish`,
    });
    const stored = JSON.parse(await readFile(join(dir, 'SUP-1042.comments.json'), 'utf8')) as { comments: { idempotencyKey: string }[] };
    expect(stored.comments.map((c) => c.idempotencyKey)).toEqual(['aoc:run-1:publish']);
    const read = await source.readTicket('SUP-1042');
    expect(read.comments.map((c) => c.id)).toEqual(['c-1', 'c-2', result.commentId]);
    // The ticket file itself is never rewritten; no temp file is left behind.
    expect(JSON.parse(await readFile(join(dir, 'SUP-1042.json'), 'utf8'))).toEqual(ticket);
    expect((await readdir(dir)).sort()).toEqual(['SUP-1042.comments.json', 'SUP-1042.json']);
  });

  it('writes nothing for a key already written and returns the existing comment', async () => {
    const first = await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Cause: a missing index.' });
    const before = await readFile(join(dir, 'SUP-1042.comments.json'), 'utf8');
    const again = await new JsonFileTicketSource({ directory: dir, now: () => new Date('2026-12-01T00:00:00Z') }).writeInternalComment({
      ticketKey: 'SUP-1042',
      idempotencyKey: 'aoc:run-1:publish',
      body: 'Cause: a missing index.',
    });
    expect(again).toEqual({ ...first, created: false });
    expect(await readFile(join(dir, 'SUP-1042.comments.json'), 'utf8')).toBe(before);
    const other = await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-2:publish', body: 'Second run.' });
    expect(other.created).toBe(true);
    expect(other.commentId).not.toBe(first.commentId);
    expect((await source.readTicket('SUP-1042')).comments).toHaveLength(4);
  });

  it('keeps one comment per key under concurrent writes in one process', async () => {
    const writes = await Promise.all(
      [1, 2, 3, 1, 2, 3].map((n) => source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: `aoc:run-${n}:publish`, body: `run ${n}` })),
    );
    expect(writes.filter((w) => w.created)).toHaveLength(3);
    const stored = JSON.parse(await readFile(join(dir, 'SUP-1042.comments.json'), 'utf8')) as { comments: unknown[] };
    expect(stored.comments).toHaveLength(3);
  });

  it('fails READBACK_MISMATCH when the comment stored for the key differs from what is asked', async () => {
    await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'First text.' });
    const error = await rejectionOf(source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Other text.' }));
    expect(error.code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(error.details).toMatchObject({ created: false });
  });

  it('fails READBACK_MISMATCH when the stored comment is public', async () => {
    await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Text.' });
    const path = join(dir, 'SUP-1042.comments.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as { comments: { comment: { visibility: string } }[] };
    stored.comments[0].comment.visibility = 'public';
    await writeFile(path, JSON.stringify(stored));
    const error = await rejectionOf(source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Text.' }));
    expect(error.code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(error.message).toContain('visibility is public');
  });

  it('refuses to write to a missing ticket or with a bad request', async () => {
    expect((await rejectionOf(source.writeInternalComment({ ticketKey: 'SUP-9', idempotencyKey: 'aoc:run-1:publish', body: 'x' }))).code).toBe('TICKET_SOURCE.NOT_FOUND');
    const bad = await rejectionOf(source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'has spaces', body: ' ' }));
    expect(bad.code).toBe('TICKET_SOURCE.INVALID_INPUT');
    expect(bad.message).toContain('idempotencyKey');
    expect(bad.message).toContain('body must not be empty');
    await expect(readdir(dir)).resolves.toEqual(['SUP-1042.json']);
  });

  it('keeps only the latest 200 comments when written comments push a ticket over the limit', async () => {
    const many = Array.from({ length: 200 }, (_, i) => ({
      id: `c-${i}`,
      authorRole: 'customer' as const,
      visibility: 'public' as const,
      createdAt: new Date(Date.parse('2026-11-20T11:00:00Z') + i * 1000).toISOString(),
      body: `comment ${i}`,
    }));
    await writeFile(join(dir, 'SUP-1042.json'), JSON.stringify({ ...ticket, comments: many }));
    const written = await source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-1:publish', body: 'Analysis.' });
    const read = await source.readTicket('SUP-1042');
    expect(read.comments).toHaveLength(200);
    expect(read.comments[0].id).toBe('c-1');
    expect(read.comments[199].id).toBe(written.commentId);
  });
});
