import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Jira user as the REST API shows it. */
export interface FakeJiraUser {
  accountId: string;
  displayName?: string;
  emailAddress?: string;
  /** `atlassian` (staff), `customer` (JSM portal customer) or `app` (integrations, bots). */
  accountType?: 'atlassian' | 'customer' | 'app';
}

export interface FakeJiraProperty {
  key: string;
  value: unknown;
}

/** A stored comment; `created` is ISO-8601 (served in Jira's `+0000` form). */
export interface FakeJiraComment {
  id: string;
  author: FakeJiraUser | null;
  body: string;
  created: string;
  /** Last edit (ISO-8601); `created` when never edited. */
  updated?: string;
  properties: FakeJiraProperty[];
}

/** A comment to seed: `internal: true` adds the JSM property `sd.public.comment = {internal: true}`. */
export interface FakeJiraCommentInput {
  id?: string;
  author: FakeJiraUser | null;
  body: string;
  created: string;
  internal?: boolean;
  properties?: FakeJiraProperty[];
}

export interface FakeJiraIssueInput {
  key: string;
  summary: string;
  description?: string | null;
  created: string;
  labels?: string[];
  reporter?: FakeJiraUser | null;
  comments?: FakeJiraCommentInput[];
}

/** A scripted answer for matching requests, served instead of (or, with `after`, after) the real one. */
export interface FakeJiraFault {
  method?: 'GET' | 'POST' | 'PUT';
  /** Matched against the path without the query, e.g. `/comment$/`. */
  path?: RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** How many matching requests it answers; 1 by default. */
  times?: number;
  /** Perform the request first (e.g. store the comment), then answer with the fault. */
  after?: boolean;
}

/** One request the server received (never its credentials). */
export interface RecordedJiraRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorized: boolean;
}

export interface FakeJiraServerOptions {
  /** The only credential the server accepts. */
  auth: { type: 'basic'; email: string; apiToken: string } | { type: 'bearer'; token: string };
  issues?: FakeJiraIssueInput[];
  /** Largest page the server serves, whatever the client asks for (Jira caps it too). */
  maxResults?: number;
  /** Author of comments created through the API. */
  apiUser?: FakeJiraUser;
  /** Clock for created comments. */
  now?: () => Date;
  /** Put the received Authorization header into 401 bodies (tests that errors redact it). */
  echoAuthorizationOn401?: boolean;
}

export interface FakeJiraServer {
  /** Base URL to configure, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string;
  readonly requests: RecordedJiraRequest[];
  addIssue(issue: FakeJiraIssueInput): void;
  /** Adds a comment as someone posting it in Jira; returns its id. */
  addComment(issueKey: string, comment: FakeJiraCommentInput): string;
  /** Edits a comment's body in place (as its author would), moving its `updated` time. */
  editComment(issueKey: string, commentId: string, body: string, updated: string): void;
  deleteComment(issueKey: string, commentId: string): void;
  /** Removes an issue (the integration lost access to it): 404 from then on. */
  removeIssue(issueKey: string): void;
  /** The stored comments of an issue, oldest first (a copy). */
  comments(issueKey: string): FakeJiraComment[];
  /** Queues a scripted answer. */
  fail(fault: FakeJiraFault): void;
  /** Changes every comment the API creates before it is stored (null: store as sent). */
  transformCreatedComments(transform: ((comment: FakeJiraComment) => FakeJiraComment) | null): void;
  close(): Promise<void>;
}

interface IssueState {
  key: string;
  summary: string;
  description: string | null;
  created: string;
  labels: string[];
  reporter: FakeJiraUser | null;
  comments: FakeJiraComment[];
}

const JSM_PROPERTY = 'sd.public.comment';
const DEFAULT_API_USER: FakeJiraUser = { accountId: 'aoc-bot', displayName: 'Auto-oncall', accountType: 'atlassian' };

/** Jira's time format: `2026-11-20T10:58:00.000+0000`. */
function jiraTime(iso: string): string {
  return new Date(iso).toISOString().replace('Z', '+0000');
}

function isInternal(comment: FakeJiraComment): boolean {
  const value = comment.properties.find((p) => p.key === JSM_PROPERTY)?.value as { internal?: unknown } | undefined;
  return value?.internal === true;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

const jiraError = (message: string) => ({ errorMessages: [message], errors: {} });

/**
 * A real HTTP server on 127.0.0.1 (any free port) speaking the part of the Jira Service
 * Management Cloud REST API v2 the Jira adapter uses, with in-memory issues and comments:
 * `GET /rest/api/2/issue/{key}`, `GET|POST /rest/api/2/issue/{key}/comment` (paged, properties
 * only with `expand=properties`) and `GET /rest/api/2/issue/{key}/comment/{id}`. Credentials are
 * checked on every request; faults can be scripted per method and path.
 */
export async function startFakeJiraServer(options: FakeJiraServerOptions): Promise<FakeJiraServer> {
  const issues = new Map<string, IssueState>();
  const requests: RecordedJiraRequest[] = [];
  const faults: (FakeJiraFault & { left: number })[] = [];
  const now = options.now ?? (() => new Date());
  const apiUser = options.apiUser ?? DEFAULT_API_USER;
  const cap = options.maxResults ?? 100;
  let nextId = 10000;
  let transform: ((comment: FakeJiraComment) => FakeJiraComment) | null = null;
  const expected =
    options.auth.type === 'basic' ? `Basic ${Buffer.from(`${options.auth.email}:${options.auth.apiToken}`).toString('base64')}` : `Bearer ${options.auth.token}`;

  const addIssue = (input: FakeJiraIssueInput) => {
    issues.set(input.key, {
      key: input.key,
      summary: input.summary,
      description: input.description ?? null,
      created: input.created,
      labels: input.labels ?? [],
      reporter: input.reporter ?? null,
      comments: (input.comments ?? []).map((c) => ({
        id: c.id ?? String(nextId++),
        author: c.author,
        body: c.body,
        created: c.created,
        properties: [...(c.properties ?? []), ...(c.internal === undefined ? [] : [{ key: JSM_PROPERTY, value: { internal: c.internal } }])],
      })),
    });
  };
  for (const issue of options.issues ?? []) addIssue(issue);

  const commentJson = (comment: FakeJiraComment, withProperties: boolean) => ({
    id: comment.id,
    author: comment.author,
    body: comment.body,
    created: jiraTime(comment.created),
    updated: jiraTime(comment.updated ?? comment.created),
    jsdPublic: !isInternal(comment),
    ...(withProperties ? { properties: comment.properties } : {}),
  });

  const takeFault = (method: string, path: string): (FakeJiraFault & { left: number }) | null => {
    const fault = faults.find((f) => f.left > 0 && (f.method === undefined || f.method === method) && (f.path === undefined || f.path.test(path)));
    if (!fault) return null;
    fault.left -= 1;
    return fault;
  };

  /** The real answer: status and body. */
  const handle = (method: string, path: string, query: URLSearchParams, body: unknown): { status: number; body: unknown } => {
    const match = /^\/rest\/api\/2\/issue\/([^/]+)(?:\/comment(?:\/([^/]+))?)?$/.exec(path);
    const isCommentPath = /\/comment(\/[^/]+)?$/.test(path);
    if (!match) return { status: 404, body: jiraError('No such endpoint') };
    const issue = issues.get(decodeURIComponent(match[1]));
    if (!issue) return { status: 404, body: jiraError('Issue does not exist or you do not have permission to see it.') };
    const withProperties = (query.get('expand') ?? '').split(',').includes('properties');
    if (!isCommentPath) {
      if (method !== 'GET') return { status: 405, body: jiraError('Method not allowed') };
      return {
        status: 200,
        body: {
          id: String(issues.size),
          key: issue.key,
          fields: { summary: issue.summary, description: issue.description, created: jiraTime(issue.created), labels: issue.labels, reporter: issue.reporter },
        },
      };
    }
    if (match[2] !== undefined) {
      const comment = issue.comments.find((c) => c.id === decodeURIComponent(match[2]));
      if (method === 'PUT') {
        // Jira updates the body (and properties when sent) and keeps id, author and created.
        const request = body as { body?: unknown; properties?: unknown } | null;
        if (!comment) return { status: 404, body: jiraError('Can not find a comment for the id') };
        if (typeof request?.body !== 'string' || request.body.trim() === '') return { status: 400, body: { errorMessages: [], errors: { comment: 'Comment body can not be empty!' } } };
        comment.body = request.body;
        comment.updated = now().toISOString();
        if (Array.isArray(request.properties)) {
          const sent = (request.properties as FakeJiraProperty[]).filter((p) => typeof p?.key === 'string');
          comment.properties = [...comment.properties.filter((p) => !sent.some((s) => s.key === p.key)), ...sent];
        }
        if (transform) Object.assign(comment, transform({ ...comment }));
        return { status: 200, body: commentJson(comment, false) };
      }
      if (method !== 'GET') return { status: 405, body: jiraError('Method not allowed') };
      return comment ? { status: 200, body: commentJson(comment, withProperties) } : { status: 404, body: jiraError('Can not find a comment for the id') };
    }
    if (method === 'GET') {
      const startAt = Math.max(0, Number(query.get('startAt') ?? 0) || 0);
      const maxResults = Math.min(cap, Math.max(1, Number(query.get('maxResults') ?? 50) || 50));
      const ordered = [...issue.comments].sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || Number(a.id) - Number(b.id));
      if (query.get('orderBy') === '-created') ordered.reverse();
      return {
        status: 200,
        body: { startAt, maxResults, total: ordered.length, comments: ordered.slice(startAt, startAt + maxResults).map((c) => commentJson(c, withProperties)) },
      };
    }
    if (method !== 'POST') return { status: 405, body: jiraError('Method not allowed') };
    const request = body as { body?: unknown; properties?: unknown } | null;
    if (typeof request?.body !== 'string' || request.body.trim() === '') return { status: 400, body: { errorMessages: [], errors: { comment: 'Comment body can not be empty!' } } };
    const properties = Array.isArray(request.properties) ? (request.properties as FakeJiraProperty[]).filter((p) => typeof p?.key === 'string') : [];
    let comment: FakeJiraComment = { id: String(nextId++), author: apiUser, body: request.body, created: now().toISOString(), properties };
    if (transform) comment = transform(comment);
    issue.comments.push(comment);
    return { status: 201, body: commentJson(comment, false) };
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake-jira');
      const method = req.method ?? 'GET';
      const authorized = req.headers.authorization === expected;
      requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), authorized });
      if (!authorized) {
        const echo = options.echoAuthorizationOn401 ? ` (received "${req.headers.authorization ?? ''}")` : '';
        sendJson(res, 401, jiraError(`Client must be authenticated to access this resource.${echo}`));
        return;
      }
      const fault = takeFault(method, url.pathname);
      if (fault && !fault.after) {
        sendJson(res, fault.status, fault.body ?? jiraError(`scripted ${fault.status}`), fault.headers);
        return;
      }
      let body: unknown = undefined;
      if (chunks.length > 0) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        } catch {
          sendJson(res, 400, jiraError('Unexpected character in the request body'));
          return;
        }
      }
      const answer = handle(method, url.pathname, url.searchParams, body);
      if (fault) sendJson(res, fault.status, fault.body ?? jiraError(`scripted ${fault.status}`), fault.headers);
      else sendJson(res, answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    addIssue,
    addComment: (issueKey, c) => {
      const issue = issues.get(issueKey);
      if (!issue) throw new Error(`no issue ${issueKey}`);
      const id = c.id ?? String(nextId++);
      issue.comments.push({ id, author: c.author, body: c.body, created: c.created, properties: [...(c.properties ?? []), ...(c.internal === undefined ? [] : [{ key: JSM_PROPERTY, value: { internal: c.internal } }])] });
      return id;
    },
    editComment: (issueKey, commentId, body, updated) => {
      const comment = issues.get(issueKey)?.comments.find((c) => c.id === commentId);
      if (!comment) throw new Error(`no comment ${commentId} on ${issueKey}`);
      comment.body = body;
      comment.updated = updated;
    },
    deleteComment: (issueKey, commentId) => {
      const issue = issues.get(issueKey);
      if (issue) issue.comments = issue.comments.filter((c) => c.id !== commentId);
    },
    removeIssue: (issueKey) => {
      issues.delete(issueKey);
    },
    comments: (issueKey) => (issues.get(issueKey)?.comments ?? []).map((c) => ({ ...c, properties: [...c.properties] })),
    fail: (fault) => faults.push({ ...fault, left: fault.times ?? 1 }),
    transformCreatedComments: (next) => {
      transform = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
