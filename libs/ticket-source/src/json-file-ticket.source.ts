import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FrozenTicketV1, TicketCommentV1, TicketKey } from '@aoc/contracts';
import { z } from 'zod';
import { IdempotencyKey, normaliseCommentBody, prepareInternalComment, verifyReadBack, type PreparedInternalComment } from './internal-comment.policy';
import { latestComments, latestTimelineComments } from './ticket-limits';
import { ticketSourceError } from './ticket-source.errors';
import type { SourceTimeline, TicketSource, WriteInternalCommentInput, WriteInternalCommentResult } from './ticket-source.port';

export interface JsonFileTicketSourceOptions {
  /** Directory of `<KEY>.json` tickets; written comments go to `<KEY>.comments.json` beside them. */
  directory: string;
  /** Clock for the creation time of written comments. */
  now?: () => Date;
}

/** The edit time a ticket file may give a comment (`FrozenTicketV1` itself has none). */
const EditedAt = z.object({ id: z.string(), updatedAt: z.iso.datetime({ offset: true }).optional() });

/** One written comment with the idempotency key it was written for. */
const StoredComment = z.object({ idempotencyKey: IdempotencyKey, comment: TicketCommentV1, updatedAt: z.iso.datetime({ offset: true }).optional() });
type StoredComment = z.infer<typeof StoredComment>;

/** `<KEY>.comments.json`: the comments this adapter wrote, in write order. */
const CommentsFile = z.object({ version: z.literal(1), ticketKey: TicketKey, comments: z.array(StoredComment) });
type CommentsFile = z.infer<typeof CommentsFile>;

function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((i) => `field "${i.path.join('.') || '(root)'}": ${i.message}`);
  const more = error.issues.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/**
 * Tickets as JSON files (the default source; also what tests and examples use). `<KEY>.json`
 * holds a `FrozenTicketV1`; internal comments written through the port are kept in
 * `<KEY>.comments.json` (replaced atomically: temp file, fsync, rename) and come back from
 * `readTicket` as internal bot comments. Writes to one ticket are serialised within the process;
 * separate processes writing the same ticket are not coordinated.
 */
export class JsonFileTicketSource implements TicketSource {
  readonly kind = 'json-file' as const;
  private readonly now: () => Date;
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(private readonly options: JsonFileTicketSourceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async readTicket(key: string): Promise<FrozenTicketV1> {
    const ticket = await this.readTicketFile(this.checkKey(key));
    const written = (await this.readCommentsFile(ticket.key)).comments.map((c) => c.comment);
    const known = new Set(ticket.comments.map((c) => c.id));
    return { ...ticket, comments: latestComments([...ticket.comments, ...written.filter((c) => !known.has(c.id))]) };
  }

  /** Comments of `<KEY>.json` (an optional `updatedAt` per comment is its edit time) plus the ones written here. */
  async readTimeline(key: string): Promise<SourceTimeline> {
    const ticket = await this.readTicketFile(this.checkKey(key));
    const raw = (await this.readJson(this.ticketPath(ticket.key))) as { comments?: unknown } | undefined;
    const edits = new Map<string, string>();
    for (const c of Array.isArray(raw?.comments) ? raw.comments : []) {
      const parsed = EditedAt.safeParse(c);
      if (parsed.success && parsed.data.updatedAt) edits.set(parsed.data.id, parsed.data.updatedAt);
    }
    const stored = (await this.readCommentsFile(ticket.key)).comments;
    for (const s of stored) if (s.updatedAt) edits.set(s.comment.id, s.updatedAt);
    const written = stored.map((c) => c.comment);
    const known = new Set(ticket.comments.map((c) => c.id));
    const all = [...ticket.comments, ...written.filter((c) => !known.has(c.id))].map((c) => ({ ...c, updatedAt: edits.get(c.id) ?? c.createdAt }));
    return { ticketKey: ticket.key, question: { title: ticket.title, description: ticket.description }, ...latestTimelineComments(all) };
  }

  async writeInternalComment(input: WriteInternalCommentInput): Promise<WriteInternalCommentResult> {
    const prepared = prepareInternalComment(input);
    return this.serialised(prepared.ticketKey, async () => {
      await this.readTicketFile(prepared.ticketKey);
      const file = await this.readCommentsFile(prepared.ticketKey);
      let entry = file.comments.find((c) => c.idempotencyKey === prepared.idempotencyKey);
      const created = entry === undefined;
      let updated = false;
      if (!entry) {
        entry = this.newEntry(prepared);
        await this.replaceCommentsFile(prepared.ticketKey, { ...file, comments: [...file.comments, entry] });
      } else if (prepared.replace && normaliseCommentBody(entry.comment.body) !== normaliseCommentBody(prepared.storedBody)) {
        // The same comment (id, creation time) with the new body: an edit in place.
        const edited: StoredComment = { ...entry, comment: { ...entry.comment, body: prepared.storedBody }, updatedAt: this.now().toISOString() };
        await this.replaceCommentsFile(prepared.ticketKey, { ...file, comments: file.comments.map((c) => (c === entry ? edited : c)) });
        entry = edited;
        updated = true;
      }
      const readBack = (await this.readCommentsFile(prepared.ticketKey)).comments.find((c) => c.idempotencyKey === prepared.idempotencyKey);
      if (!readBack) {
        throw ticketSourceError('TICKET_SOURCE.READBACK_MISMATCH', `ticket ${prepared.ticketKey}: comment ${entry.comment.id} is missing from ${this.commentsFileName(prepared.ticketKey)} after the write`, {
          ticketKey: prepared.ticketKey,
          commentId: entry.comment.id,
        });
      }
      verifyReadBack(prepared, { comment: readBack.comment, storedIdempotencyKey: readBack.idempotencyKey }, created || updated);
      return { commentId: readBack.comment.id, created, updated, readBack: readBack.comment };
    });
  }

  private newEntry(prepared: PreparedInternalComment): StoredComment {
    // The id follows from the key, so even a lost file update cannot yield two ids for one key.
    const id = `aoc-${createHash('sha256').update(prepared.idempotencyKey).digest('hex').slice(0, 24)}`;
    return {
      idempotencyKey: prepared.idempotencyKey,
      comment: { id, authorRole: 'bot', visibility: 'internal', createdAt: this.now().toISOString(), body: prepared.storedBody },
    };
  }

  private checkKey(key: string): string {
    // Also keeps the key from naming a file outside the directory.
    const parsed = TicketKey.safeParse(key);
    if (!parsed.success) throw ticketSourceError('TICKET_SOURCE.INVALID_INPUT', `invalid ticket key "${String(key).slice(0, 80)}": ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  }

  private ticketPath(key: string): string {
    return join(this.options.directory, `${key}.json`);
  }

  private commentsFileName(key: string): string {
    return `${key}.comments.json`;
  }

  private async readJson(path: string): Promise<unknown | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw ticketSourceError('TICKET_SOURCE.STORAGE_FAILED', `cannot read ${path}: ${errnoOf(error) ?? 'unknown error'}`, { file: path });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw ticketSourceError('TICKET_SOURCE.TICKET_INVALID', `${path} is not valid JSON: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`, { file: path });
    }
  }

  private async readTicketFile(key: string): Promise<FrozenTicketV1> {
    const path = this.ticketPath(key);
    const json = await this.readJson(path);
    if (json === undefined) {
      throw ticketSourceError('TICKET_SOURCE.NOT_FOUND', `ticket ${key} not found: no ${basename(path)} in ${this.options.directory}`, { ticketKey: key, file: path });
    }
    const parsed = FrozenTicketV1.safeParse(json);
    if (!parsed.success) throw ticketSourceError('TICKET_SOURCE.TICKET_INVALID', `${path} is not a FrozenTicketV1: ${describeIssues(parsed.error)}`, { file: path });
    if (parsed.data.key !== key) {
      throw ticketSourceError('TICKET_SOURCE.TICKET_INVALID', `${path}: field "key" is "${parsed.data.key}", expected "${key}" (the file name)`, { file: path });
    }
    return parsed.data;
  }

  private async readCommentsFile(key: string): Promise<CommentsFile> {
    const path = join(this.options.directory, this.commentsFileName(key));
    const json = await this.readJson(path);
    if (json === undefined) return { version: 1, ticketKey: key, comments: [] };
    const parsed = CommentsFile.safeParse(json);
    if (!parsed.success) throw ticketSourceError('TICKET_SOURCE.TICKET_INVALID', `${path} is not a comments file: ${describeIssues(parsed.error)}`, { file: path });
    if (parsed.data.ticketKey !== key) {
      throw ticketSourceError('TICKET_SOURCE.TICKET_INVALID', `${path}: field "ticketKey" is "${parsed.data.ticketKey}", expected "${key}"`, { file: path });
    }
    return parsed.data;
  }

  private async replaceCommentsFile(key: string, file: CommentsFile): Promise<void> {
    const target = join(this.options.directory, this.commentsFileName(key));
    const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw ticketSourceError('TICKET_SOURCE.STORAGE_FAILED', `cannot write ${target}: ${errnoOf(error) ?? 'unknown error'}`, { file: target });
    }
  }

  private serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.writes.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.writes.set(key, settled);
    void settled.then(() => {
      if (this.writes.get(key) === settled) this.writes.delete(key);
    });
    return next;
  }
}
