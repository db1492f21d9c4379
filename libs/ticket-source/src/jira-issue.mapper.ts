import type { SourceComment, TicketQuestion } from './ticket-source.port';
import type { FrozenTicketV1, TicketCommentV1 } from '@aoc/contracts';
import { z } from 'zod';
import { IdempotencyKey } from './internal-comment.policy';
import type { ParsedJiraTicketSourceConfig } from './jira-ticket-source.config';
import { latestComments, TICKET_LIMITS, truncateText } from './ticket-limits';

/** JSM comment property holding the comment's visibility: `{ internal: true }` = internal. */
export const JSM_VISIBILITY_PROPERTY = 'sd.public.comment';
/** Hidden comment property holding the idempotency key: `{ key, version: 1 }`. */
export const IDEMPOTENCY_PROPERTY = 'aoc.idempotency-key';

/** The parts of Jira's REST v2 answers the adapter reads; anything else is ignored. */
export const JiraUser = z.object({
  accountId: z.string().nullish(),
  emailAddress: z.string().nullish(),
  displayName: z.string().nullish(),
  accountType: z.string().nullish(),
});
export type JiraUser = z.infer<typeof JiraUser>;

const JiraProperty = z.object({ key: z.string(), value: z.unknown() });

export const JiraComment = z.object({
  id: z.union([z.string().min(1).max(64), z.number().int().transform(String)]),
  author: JiraUser.nullish(),
  body: z.string().nullish(),
  created: z.string(),
  updated: z.string().nullish(),
  properties: z.array(JiraProperty).nullish(),
  jsdPublic: z.boolean().nullish(),
  visibility: z.object({ type: z.string().nullish(), value: z.string().nullish() }).nullish(),
});
export type JiraComment = z.infer<typeof JiraComment>;

export const JiraCommentPage = z.object({
  startAt: z.number().int().nonnegative(),
  maxResults: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  comments: z.array(JiraComment),
});
export type JiraCommentPage = z.infer<typeof JiraCommentPage>;

export const JiraIssue = z.object({
  key: z.string(),
  fields: z.object({
    summary: z.string().nullish(),
    // v2 returns wiki-markup text; anything else (e.g. a v3 document) is not read.
    description: z.unknown(),
    created: z.string(),
    labels: z.array(z.string()).nullish(),
    reporter: JiraUser.nullish(),
  }),
});
export type JiraIssue = z.infer<typeof JiraIssue>;

type AuthorRole = TicketCommentV1['authorRole'];

/** Jira times (`2026-11-20T10:58:00.000+0000`) as ISO-8601 UTC, or null when unreadable. */
export function isoFromJiraTime(value: string): string | null {
  const at = Date.parse(value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

function propertyValue(comment: JiraComment, key: string): unknown {
  return comment.properties?.find((p) => p.key === key)?.value;
}

/** The idempotency key in the comment's `aoc.idempotency-key` property, if any. */
export function idempotencyPropertyOf(comment: JiraComment): string | null {
  const value = propertyValue(comment, IDEMPOTENCY_PROPERTY) as { key?: unknown } | undefined;
  const parsed = IdempotencyKey.safeParse(value?.key);
  return parsed.success ? parsed.data : null;
}

/** Whether the JSM property marks the comment internal (`{ internal: true }`, or the string `"true"`). */
export function hasInternalProperty(comment: JiraComment): boolean {
  const value = propertyValue(comment, JSM_VISIBILITY_PROPERTY) as { internal?: unknown } | undefined;
  return value?.internal === true || value?.internal === 'true';
}

/** Internal when the JSM property says so, when `jsdPublic` is false or when the comment is restricted. */
export function visibilityOf(comment: JiraComment): 'public' | 'internal' {
  if (hasInternalProperty(comment) || comment.jsdPublic === false || comment.visibility?.value) return 'internal';
  return 'public';
}

/** How the configured account sets classify people. */
export class JiraRoleMap {
  private readonly support: ReadonlySet<string>;
  private readonly engineers: ReadonlySet<string>;
  private readonly bots: ReadonlySet<string>;
  private readonly supportDomains: ReadonlySet<string>;

  constructor(config: Pick<ParsedJiraTicketSourceConfig, 'supportAccountIds' | 'supportEmailDomains' | 'engineerAccountIds' | 'botAccountIds'>) {
    this.support = new Set(config.supportAccountIds);
    this.engineers = new Set(config.engineerAccountIds);
    this.bots = new Set(config.botAccountIds);
    this.supportDomains = new Set(config.supportEmailDomains.map((d) => d.toLowerCase()));
  }

  /**
   * The role of a person on a ticket: app accounts and configured bots -> bot; the reporter ->
   * customer; configured engineers -> engineer; configured support accounts or support email
   * domains -> support; anyone else -> customer; no identifiable author -> unknown.
   */
  roleOf(user: JiraUser | null | undefined, reporterAccountId: string | null): AuthorRole {
    const id = user?.accountId;
    if (!id) return 'unknown';
    if (user.accountType === 'app' || this.bots.has(id)) return 'bot';
    if (reporterAccountId !== null && id === reporterAccountId) return 'customer';
    if (this.engineers.has(id)) return 'engineer';
    if (this.support.has(id)) return 'support';
    const domain = user.emailAddress?.split('@')[1]?.toLowerCase();
    if (domain && this.supportDomains.has(domain)) return 'support';
    return 'customer';
  }

  /** A comment: the bot's own when it carries an idempotency property, else by its author. */
  commentOf(comment: JiraComment, reporterAccountId: string | null): TicketCommentV1 | null {
    const createdAt = isoFromJiraTime(comment.created);
    if (createdAt === null) return null;
    return {
      id: comment.id,
      authorRole: idempotencyPropertyOf(comment) !== null ? 'bot' : this.roleOf(comment.author, reporterAccountId),
      visibility: visibilityOf(comment),
      createdAt,
      body: truncateText(comment.body ?? '', TICKET_LIMITS.commentBodyLength),
    };
  }

  /** The comment with its last edit time (its creation time when Jira gives none). */
  sourceCommentOf(comment: JiraComment, reporterAccountId: string | null): SourceComment | null {
    const base = this.commentOf(comment, reporterAccountId);
    if (base === null) return null;
    const updatedAt = comment.updated ? isoFromJiraTime(comment.updated) : null;
    return { ...base, updatedAt: updatedAt ?? base.createdAt };
  }
}

/** The issue's title and description as a frozen ticket holds them (truncated with a note). */
export function questionOf(issue: JiraIssue): TicketQuestion {
  const summary = issue.fields.summary?.trim() || '(no summary)';
  const description = typeof issue.fields.description === 'string' ? issue.fields.description : '';
  return { title: truncateText(summary, TICKET_LIMITS.titleLength), description: truncateText(description, TICKET_LIMITS.descriptionLength) };
}

/**
 * The frozen ticket of an issue and its comments, within the contract's limits: title and
 * description truncated with a note, labels cut to the allowed count and length, and only the
 * latest comments kept. A time that cannot be read yields `{ unreadable: <field> }` instead.
 */
export function frozenTicketOf(issue: JiraIssue, comments: readonly JiraComment[], roles: JiraRoleMap): FrozenTicketV1 | { unreadable: string } {
  const createdAt = isoFromJiraTime(issue.fields.created);
  if (createdAt === null) return { unreadable: 'fields.created' };
  const reporterId = issue.fields.reporter?.accountId ?? null;
  const mapped: TicketCommentV1[] = [];
  for (const comment of comments) {
    const ticketComment = roles.commentOf(comment, reporterId);
    if (ticketComment === null) return { unreadable: `comment ${comment.id}: created` };
    mapped.push(ticketComment);
  }
  return {
    key: issue.key,
    ...questionOf(issue),
    reporterRole: roles.roleOf(issue.fields.reporter, reporterId),
    createdAt,
    labels: (issue.fields.labels ?? []).slice(0, TICKET_LIMITS.labels).map((l) => l.slice(0, TICKET_LIMITS.labelLength)),
    comments: latestComments(mapped),
  };
}
