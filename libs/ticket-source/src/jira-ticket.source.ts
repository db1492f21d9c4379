import { FrozenTicketV1, TicketKey } from '@aoc/contracts';
import { AocError, isRetryable } from '@aoc/errors';
import type { z } from 'zod';
import { idempotencyMarkerOf, normaliseCommentBody, prepareInternalComment, verifyReadBack, type PreparedInternalComment } from './internal-comment.policy';
import { JiraHttpClient, type JiraHttpOptions } from './jira-http.client';
import {
  frozenTicketOf,
  questionOf,
  hasInternalProperty,
  idempotencyPropertyOf,
  IDEMPOTENCY_PROPERTY,
  JiraComment,
  JiraCommentPage,
  JiraIssue,
  JiraRoleMap,
  JSM_VISIBILITY_PROPERTY,
  visibilityOf,
} from './jira-issue.mapper';
import { parseJiraTicketSourceConfig, type ParsedJiraTicketSourceConfig } from './jira-ticket-source.config';
import { ticketSourceError } from './ticket-source.errors';
import type { SourceComment, SourceTimeline, TicketSource, WriteInternalCommentInput, WriteInternalCommentResult } from './ticket-source.port';
import { latestTimelineComments } from './ticket-limits';
import { escapeJiraMarkup } from './jira-markup';

export interface JiraTicketSourceOptions extends JiraHttpOptions {
  /** A `JiraTicketSourceConfig` object or its JSON text; parsed (and checked) here. */
  config: unknown;
}

/** Pages of comments read at most per ticket (at the default page size: 20,000 comments). */
const MAX_COMMENT_PAGES = 200;
const ISSUE_FIELDS = 'summary,description,created,labels,reporter';

/**
 * Jira Service Management Cloud over REST API v2. Reads an issue and all its comments (paged,
 * with their properties) into a `FrozenTicketV1`; writes internal comments carrying the JSM
 * property `sd.public.comment = {internal: true}`, the hidden property
 * `aoc.idempotency-key = {key, version: 1}` and a trailing marker line with the same key.
 */
export class JiraTicketSource implements TicketSource {
  readonly kind = 'jira' as const;
  readonly config: ParsedJiraTicketSourceConfig;
  private readonly http: JiraHttpClient;
  private readonly roles: JiraRoleMap;

  constructor(options: JiraTicketSourceOptions) {
    this.config = parseJiraTicketSourceConfig(options.config);
    this.http = new JiraHttpClient(this.config, options);
    this.roles = new JiraRoleMap(this.config);
  }

  async readTicket(key: string): Promise<FrozenTicketV1> {
    const ticketKey = this.checkKey(key);
    const issue = this.parse(
      JiraIssue,
      await this.onTicket(ticketKey, () => this.http.json({ method: 'GET', path: this.issuePath(ticketKey), query: { fields: ISSUE_FIELDS }, retryAmbiguous: true })),
      `issue ${ticketKey}`,
    );
    const comments = await this.listComments(ticketKey);
    const frozen = frozenTicketOf(issue, comments, this.roles);
    if ('unreadable' in frozen) throw ticketSourceError('TICKET_SOURCE.RESPONSE_INVALID', `Jira issue ${ticketKey}: field "${frozen.unreadable}" is not a readable time`, { ticketKey });
    return this.parse(FrozenTicketV1, frozen, `issue ${ticketKey} as a FrozenTicketV1`);
  }

  async readTimeline(key: string): Promise<SourceTimeline> {
    const ticketKey = this.checkKey(key);
    const issue = this.parse(
      JiraIssue,
      await this.onTicket(ticketKey, () => this.http.json({ method: 'GET', path: this.issuePath(ticketKey), query: { fields: ISSUE_FIELDS }, retryAmbiguous: true })),
      `issue ${ticketKey}`,
    );
    const reporterId = issue.fields.reporter?.accountId ?? null;
    const mapped: SourceComment[] = [];
    for (const comment of await this.onTicket(ticketKey, () => this.listComments(ticketKey))) {
      const c = this.roles.sourceCommentOf(comment, reporterId);
      if (c === null) throw ticketSourceError('TICKET_SOURCE.RESPONSE_INVALID', `Jira issue ${ticketKey}: comment ${comment.id} has no readable created time`, { ticketKey });
      mapped.push(c);
    }
    return { ticketKey, question: questionOf(issue), ...latestTimelineComments(mapped) };
  }

  async writeInternalComment(input: WriteInternalCommentInput): Promise<WriteInternalCommentResult> {
    // Escaped before the idempotency marker is added, so the marker stays recognisable.
    const prepared = prepareInternalComment({ ...input, body: escapeJiraMarkup(input.body) });
    let posted = false;
    for (let attempt = 1; ; attempt++) {
      // Looked up before every POST: a POST that failed ambiguously (5xx, timeout) may have written.
      const existing = this.findWritten(await this.listComments(prepared.ticketKey), prepared.idempotencyKey);
      if (existing && prepared.replace && normaliseCommentBody(existing.body ?? '') !== normaliseCommentBody(prepared.storedBody)) return this.updateInPlace(prepared, existing);
      if (existing) return this.readBack(prepared, existing.id, posted);
      let id: string;
      try {
        posted = true;
        const reply = await this.http.json({ method: 'POST', path: `${this.issuePath(prepared.ticketKey)}/comment`, body: this.commentRequest(prepared), retryAmbiguous: false });
        id = this.parse(JiraComment, reply, `the comment created on ${prepared.ticketKey}`).id;
      } catch (error) {
        if (!isRetryable(error) || attempt > this.config.maxRetries) throw error;
        await this.http.waitBeforeRetry(attempt, null);
        continue;
      }
      return this.readBack(prepared, id, true);
    }
  }

  /** The POST body: text with marker, JSM internal flag, idempotency property. */
  private commentRequest(prepared: PreparedInternalComment): Record<string, unknown> {
    return {
      body: prepared.storedBody,
      properties: [
        { key: JSM_VISIBILITY_PROPERTY, value: { internal: true } },
        { key: IDEMPOTENCY_PROPERTY, value: { key: prepared.idempotencyKey, version: 1 } },
      ],
    };
  }

  /**
   * The comment written for this key: the earliest carrying it in the idempotency property, else
   * the earliest internal one ending with its marker line (a comment whose property was lost).
   */
  private findWritten(comments: readonly JiraComment[], idempotencyKey: string): JiraComment | null {
    return (
      comments.find((c) => idempotencyPropertyOf(c) === idempotencyKey) ??
      comments.find((c) => visibilityOf(c) === 'internal' && idempotencyMarkerOf(c.body ?? '') === idempotencyKey) ??
      null
    );
  }

  /** PUT the new body into the same internal comment (never a public one), then read it back. */
  private async updateInPlace(prepared: PreparedInternalComment, existing: JiraComment): Promise<WriteInternalCommentResult> {
    if (!(hasInternalProperty(existing) && visibilityOf(existing) === 'internal')) {
      throw ticketSourceError('TICKET_SOURCE.READBACK_MISMATCH', `ticket ${prepared.ticketKey}: comment ${existing.id} of this idempotency key is not internal; refusing to edit it`, {
        ticketKey: prepared.ticketKey,
        commentId: existing.id,
      });
    }
    const path = `${this.issuePath(prepared.ticketKey)}/comment/${encodeURIComponent(existing.id)}`;
    // Idempotent: the same PUT again leaves the same body.
    await this.http.json({ method: 'PUT', path, body: this.commentRequest(prepared), retryAmbiguous: true });
    return { ...(await this.readBack(prepared, existing.id, true)), created: false, updated: true };
  }

  private async readBack(prepared: PreparedInternalComment, id: string, created: boolean): Promise<WriteInternalCommentResult> {
    const path = `${this.issuePath(prepared.ticketKey)}/comment/${encodeURIComponent(id)}`;
    const raw = this.parse(
      JiraComment,
      await this.http.json({ method: 'GET', path, query: { expand: 'properties' }, retryAmbiguous: true }),
      `comment ${id} of ${prepared.ticketKey}`,
    );
    const comment = this.roles.commentOf(raw, null);
    if (comment === null) throw ticketSourceError('TICKET_SOURCE.RESPONSE_INVALID', `Jira comment ${id} of ${prepared.ticketKey}: field "created" is not a readable time`);
    // Internal means the JSM property says so, not merely a restriction or a missing flag.
    const visibility = hasInternalProperty(raw) && visibilityOf(raw) === 'internal' ? 'internal' : 'public';
    const storedIdempotencyKey = idempotencyPropertyOf(raw) ?? idempotencyMarkerOf(raw.body ?? '');
    verifyReadBack(prepared, { comment: { ...comment, visibility }, storedIdempotencyKey }, created);
    return { commentId: comment.id, created, updated: false, readBack: comment };
  }

  private async listComments(ticketKey: string): Promise<JiraComment[]> {
    const byId = new Map<string, JiraComment>();
    let startAt = 0;
    for (let page = 0; ; page++) {
      if (page >= MAX_COMMENT_PAGES) {
        throw ticketSourceError('TICKET_SOURCE.TOO_MANY_COMMENTS', `Jira issue ${ticketKey} has more than ${MAX_COMMENT_PAGES} pages of comments`, { ticketKey });
      }
      const query = { startAt, maxResults: this.config.pageSize, expand: 'properties', orderBy: 'created' };
      const json = await this.onTicket(ticketKey, () => this.http.json({ method: 'GET', path: `${this.issuePath(ticketKey)}/comment`, query, retryAmbiguous: true }));
      const current = this.parse(JiraCommentPage, json, `comments of ${ticketKey} from ${startAt}`);
      for (const comment of current.comments) byId.set(comment.id, comment);
      startAt = current.startAt + current.comments.length;
      if (current.comments.length === 0 || startAt >= current.total) return [...byId.values()];
    }
  }

  private issuePath(ticketKey: string): string {
    return `/rest/api/2/issue/${encodeURIComponent(ticketKey)}`;
  }

  private checkKey(key: string): string {
    const parsed = TicketKey.safeParse(key);
    if (!parsed.success) throw ticketSourceError('TICKET_SOURCE.INVALID_INPUT', `invalid ticket key "${String(key).slice(0, 80)}": ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  }

  /** Runs a request about the ticket itself; its 404 means the ticket is missing (or hidden). */
  private async onTicket<T>(ticketKey: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof AocError && error.code === 'TICKET_SOURCE.NOT_FOUND') {
        throw ticketSourceError('TICKET_SOURCE.NOT_FOUND', `ticket ${ticketKey} not found in Jira (or not visible to the configured account)`, { ...error.details, ticketKey });
      }
      throw error;
    }
  }

  private parse<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    throw ticketSourceError('TICKET_SOURCE.RESPONSE_INVALID', `Jira answer for ${what} is not usable: field "${field}": ${issue?.message ?? 'invalid'}`, { field });
  }
}
