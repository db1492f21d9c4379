import { createHash } from 'node:crypto';
import type { FrozenTicketV1, TicketCommentV1 } from '@aoc/contracts';

export type TicketSourceKind = 'json-file' | 'jira';

export interface WriteInternalCommentInput {
  ticketKey: string;
  /** Stable per owner job, e.g. `aoc:<runId>:<job>`; one comment per key, ever. */
  idempotencyKey: string;
  /** Comment text without the idempotency marker (the adapter appends it). */
  body: string;
  /**
   * When the comment of this key exists with another body: update that same internal comment in
   * place (same id) and read it back. Without it the existing comment is returned untouched.
   */
  replace?: boolean;
}

/** A comment as the source holds it now, with its last edit time. */
export interface SourceComment extends TicketCommentV1 {
  updatedAt: string;
}

/** A ticket's current comments (oldest first, the latest `MAX_TIMELINE_COMMENTS`). */
/** The ticket's question as the source holds it now (title and description, within the ticket limits). */
export interface TicketQuestion {
  title: string;
  description: string;
}

/** sha256 of a ticket's title and description: an edit of either changes it (the optimizer's source check reads it). */
export function questionDigest(q: TicketQuestion): string {
  return createHash('sha256').update(JSON.stringify([q.title, q.description])).digest('hex');
}

export interface SourceTimeline {
  ticketKey: string;
  question: TicketQuestion;
  comments: SourceComment[];
  /** More comments exist than were kept. */
  truncated: boolean;
}

export interface WriteInternalCommentResult {
  commentId: string;
  /** False when a comment with this idempotency key already existed and nothing was written. */
  created: boolean;
  /** True when the existing comment was updated in place (`replace`). */
  updated: boolean;
  /** The comment as read back from the source after the write (or lookup), already verified. */
  readBack: TicketCommentV1;
}

/**
 * The port the router uses to read a ticket and to write its analysis back. Adapters: a
 * directory of JSON files (`JsonFileTicketSource`) and Jira Service Management Cloud
 * (`JiraTicketSource`). Failures are `AocError`s with `TICKET_SOURCE.*` codes; `retryable`
 * says whether a later attempt may pass.
 */
export interface TicketSource {
  readonly kind: TicketSourceKind;
  /** The ticket with its comments (oldest first, at most the contract's maximum, latest kept). */
  readTicket(key: string): Promise<FrozenTicketV1>;
  /**
   * Writes exactly one internal (never customer-visible) comment per idempotency key; a second
   * call with the same key writes nothing and returns the existing comment. The comment is then
   * read back and its body and internal visibility verified (`TICKET_SOURCE.READBACK_MISMATCH`).
   */
  writeInternalComment(input: WriteInternalCommentInput): Promise<WriteInternalCommentResult>;
  /**
   * The ticket's comments as they are now, with real created and updated times (deleted ones
   * are absent), for the timeline collector. `TICKET_SOURCE.NOT_FOUND` / `FORBIDDEN` when the
   * ticket is gone or no longer readable; retryable errors when the source is down or limiting.
   */
  readTimeline(key: string): Promise<SourceTimeline>;
}

/** NestJS injection token for the configured ticket source. */
export const TICKET_SOURCE = Symbol('TICKET_SOURCE');
