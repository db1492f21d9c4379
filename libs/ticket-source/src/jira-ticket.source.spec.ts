import { IDEMPOTENCY_MARKER_PREFIX } from './internal-comment.policy';
import type { JiraTicketSourceConfig } from './jira-ticket-source.config';
import { JiraTicketSource } from './jira-ticket.source';
import { rejectionOf } from './testing/aoc-error.capture';
import { startFakeJiraServer, type FakeJiraIssueInput, type FakeJiraServer, type FakeJiraServerOptions, type FakeJiraUser } from './testing/fake-jira.server';

const EMAIL = 'aoc-bot@support.example.com';
const TOKEN = 'jira-api-token-s3cret-42';
const BASIC = Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64');

const reporter: FakeJiraUser = { accountId: 'cust-1', displayName: 'Alice', emailAddress: 'alice@customer.example', accountType: 'customer' };
const colleague: FakeJiraUser = { accountId: 'cust-2', displayName: 'Carol', emailAddress: 'carol@customer.example', accountType: 'customer' };
const supportByDomain: FakeJiraUser = { accountId: 'sup-1', displayName: 'Bob', emailAddress: 'bob@Support.Example.com', accountType: 'atlassian' };
const supportById: FakeJiraUser = { accountId: 'sup-2', displayName: 'Dan', accountType: 'atlassian' };
const engineer: FakeJiraUser = { accountId: 'eng-1', displayName: 'Eve', accountType: 'atlassian' };
const automation: FakeJiraUser = { accountId: 'app-1', displayName: 'Automation for Jira', accountType: 'app' };

const issue: FakeJiraIssueInput = {
  key: 'SUP-1042',
  summary: 'p99 latency doubled on cluster tidb-prod-7f3a',
  description: 'Since 10:40 UTC p99 went from 40ms to 90ms.',
  created: '2026-11-20T10:58:00.000Z',
  labels: ['latency', 'production'],
  reporter,
  comments: [
    { author: reporter, body: 'Still slow.', created: '2026-11-20T11:02:00.000Z' },
    { author: automation, body: 'Auto-assigned to L1.', created: '2026-11-20T11:03:00.000Z', internal: true },
    { author: supportByDomain, body: 'TopSQL shows a scan.', created: '2026-11-20T11:40:00.000Z', internal: true },
    { author: supportById, body: 'We are looking into it.', created: '2026-11-20T11:45:00.000Z', internal: false },
    { author: engineer, body: 'Missing index on orders.', created: '2026-11-20T12:00:00.000Z', internal: true },
    { author: colleague, body: 'Same here.', created: '2026-11-20T12:10:00.000Z' },
    { author: null, body: 'From a deleted user.', created: '2026-11-20T12:20:00.000Z' },
  ],
};

interface Harness {
  server: FakeJiraServer;
  source: JiraTicketSource;
  waits: number[];
}

async function harness(options: Partial<FakeJiraServerOptions> = {}, config: Partial<JiraTicketSourceConfig> = {}): Promise<Harness> {
  const server = await startFakeJiraServer({ auth: { type: 'basic', email: EMAIL, apiToken: TOKEN }, issues: [issue], maxResults: 2, ...options });
  const waits: number[] = [];
  const source = new JiraTicketSource({
    config: {
      baseUrl: server.baseUrl,
      auth: { type: 'basic', email: EMAIL, apiToken: TOKEN },
      supportAccountIds: ['sup-2'],
      supportEmailDomains: ['support.example.com'],
      engineerAccountIds: ['eng-1'],
      maxRetries: 2,
      ...config,
    },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { server, source, waits };
}


/** Comments the adapter wrote (the fake server's API user). */
const botComments = (h: Harness) => h.server.comments('SUP-1042').filter((c) => c.author?.accountId === 'aoc-bot');

const write = { ticketKey: 'SUP-1042', idempotencyKey: 'aoc:run-20261120-1:publish', body: 'Cause: a new report query scans orders.' };
const storedBody = `${write.body}\n\n${IDEMPOTENCY_MARKER_PREFIX}${write.idempotencyKey}`;

describe('JiraTicketSource against a local Jira', () => {
  let h: Harness;
  afterEach(() => h?.server.close());

  it('reads the issue and every page of comments with roles and visibility', async () => {
    h = await harness();
    const ticket = await h.source.readTicket('SUP-1042');
    expect(ticket).toMatchObject({
      key: 'SUP-1042',
      title: 'p99 latency doubled on cluster tidb-prod-7f3a',
      description: 'Since 10:40 UTC p99 went from 40ms to 90ms.',
      reporterRole: 'customer',
      createdAt: '2026-11-20T10:58:00.000Z',
      labels: ['latency', 'production'],
    });
    expect(ticket.comments.map((c) => [c.body, c.authorRole, c.visibility])).toEqual([
      ['Still slow.', 'customer', 'public'],
      ['Auto-assigned to L1.', 'bot', 'internal'],
      ['TopSQL shows a scan.', 'support', 'internal'],
      ['We are looking into it.', 'support', 'public'],
      ['Missing index on orders.', 'engineer', 'internal'],
      ['Same here.', 'customer', 'public'],
      ['From a deleted user.', 'unknown', 'public'],
    ]);
    expect(ticket.comments[0].createdAt).toBe('2026-11-20T11:02:00.000Z');
    const pages = h.server.requests.filter((r) => r.path === '/rest/api/2/issue/SUP-1042/comment');
    expect(pages.map((r) => r.query.startAt)).toEqual(['0', '2', '4', '6']);
    expect(pages.every((r) => r.query.expand === 'properties')).toBe(true);
    const get = h.server.requests.find((r) => r.path === '/rest/api/2/issue/SUP-1042');
    expect(get?.query.fields).toBe('summary,description,created,labels,reporter');
  });

  it('reads the timeline with real edit times; edits and deletions show on the next read; a 429 is waited out as Jira asks', async () => {
    h = await harness();
    const id = h.server.addComment('SUP-1042', { author: supportById, body: 'Cause: missing index.', created: '2026-11-20T13:00:00.000Z' });
    h.server.editComment('SUP-1042', id, 'Cause: missing index on orders(created_at).', '2026-11-20T13:30:00.000Z');
    const first = await h.source.readTimeline('SUP-1042');
    expect(first.truncated).toBe(false);
    expect(first.comments.find((c) => c.id === id)).toMatchObject({ authorRole: 'support', visibility: 'public', createdAt: '2026-11-20T13:00:00.000Z', updatedAt: '2026-11-20T13:30:00.000Z', body: 'Cause: missing index on orders(created_at).' });
    expect(first.comments[0].updatedAt).toBe(first.comments[0].createdAt);
    h.server.deleteComment('SUP-1042', id);
    h.server.fail({ method: 'GET', path: /\/comment$/, status: 429, headers: { 'retry-after': '7' } });
    const second = await h.source.readTimeline('SUP-1042');
    expect(second.comments.some((c) => c.id === id)).toBe(false);
    expect(h.waits).toContain(7000);
    h.server.removeIssue('SUP-1042');
    expect((await rejectionOf(h.source.readTimeline('SUP-1042'))).code).toBe('TICKET_SOURCE.NOT_FOUND');
  });

  it('with replace, updates the same internal comment in place and reads it back; never edits a public one', async () => {
    h = await harness();
    const first = await h.source.writeInternalComment({ ...write, replace: true });
    expect(first).toMatchObject({ created: true, updated: false });
    const again = await h.source.writeInternalComment({ ...write, replace: true });
    expect(again).toMatchObject({ commentId: first.commentId, created: false, updated: false });
    const changed = await h.source.writeInternalComment({ ...write, body: 'Cause: the export job.', replace: true });
    expect(changed).toMatchObject({ commentId: first.commentId, created: false, updated: true, readBack: { visibility: 'internal' } });
    expect(botComments(h)).toHaveLength(1);
    expect(botComments(h)[0].body).toContain('Cause: the export job.');
    expect(h.server.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    // Without replace the comment is left as it is, and a different body is a mismatch.
    expect((await rejectionOf(h.source.writeInternalComment({ ...write, body: 'Something else.' }))).code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(botComments(h)[0].body).toContain('Cause: the export job.');
    // A public comment carrying the key (someone copied the marker) is never edited.
    h.server.addComment('SUP-1042', { author: supportById, body: `Public.\n\n${IDEMPOTENCY_MARKER_PREFIX}aoc:SUP-1042:public-copy`, created: '2026-11-20T13:00:00.000Z', internal: false, properties: [{ key: 'aoc.idempotency-key', value: { key: 'aoc:SUP-1042:public-copy', version: 1 } }] });
    expect((await rejectionOf(h.source.writeInternalComment({ ticketKey: 'SUP-1042', idempotencyKey: 'aoc:SUP-1042:public-copy', body: 'New.', replace: true }))).code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
  });

  it('keeps the latest 200 comments and truncates an oversized description', async () => {
    h = await harness({ maxResults: 100 });
    const comments = Array.from({ length: 205 }, (_, i) => ({ author: reporter, body: `comment ${i}`, created: new Date(Date.parse('2026-11-21T00:00:00Z') + i * 60000).toISOString() }));
    h.server.addIssue({ ...issue, key: 'SUP-7', description: 'x'.repeat(60000), comments });
    const ticket = await h.source.readTicket('SUP-7');
    expect(ticket.comments).toHaveLength(200);
    expect(ticket.comments[0].body).toBe('comment 5');
    expect(ticket.comments[199].body).toBe('comment 204');
    expect(ticket.description).toHaveLength(50000);
    expect(ticket.description.endsWith('[truncated by auto-oncall]')).toBe(true);
  });

  it('fails NOT_FOUND (permanent) for a missing issue, reading or writing', async () => {
    h = await harness();
    const read = await rejectionOf(h.source.readTicket('SUP-404'));
    expect(read.code).toBe('TICKET_SOURCE.NOT_FOUND');
    expect(read.retryable).toBe(false);
    expect((await rejectionOf(h.source.writeInternalComment({ ...write, ticketKey: 'SUP-404' }))).code).toBe('TICKET_SOURCE.NOT_FOUND');
    expect(h.server.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('writes exactly one internal comment with the JSM flag, the idempotency property and the marker line', async () => {
    h = await harness();
    const result = await h.source.writeInternalComment(write);
    expect(result.created).toBe(true);
    const written = botComments(h);
    expect(written).toHaveLength(1);
    expect(written[0].id).toBe(result.commentId);
    expect(written[0].body).toBe(storedBody);
    expect(written[0].properties).toEqual([
      { key: 'sd.public.comment', value: { internal: true } },
      { key: 'aoc.idempotency-key', value: { key: write.idempotencyKey, version: 1 } },
    ]);
    expect(typeof result.readBack.createdAt).toBe('string');
    expect(result.readBack).toEqual({ id: result.commentId, authorRole: 'bot', visibility: 'internal', createdAt: result.readBack.createdAt, body: storedBody });
    // Looked up first, then posted once, then read back with its properties.
    const calls = h.server.requests.map((r) => `${r.method} ${r.path.replace('/rest/api/2/issue/SUP-1042', '')}`);
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual(['POST /comment']);
    expect(calls[calls.length - 1]).toBe(`GET /comment/${result.commentId}`);
    expect(h.server.requests[h.server.requests.length - 1].query.expand).toBe('properties');
    // The written comment comes back from readTicket as the bot's internal comment.
    const ticket = await h.source.readTicket('SUP-1042');
    expect(ticket.comments[ticket.comments.length - 1]).toMatchObject({ id: result.commentId, authorRole: 'bot', visibility: 'internal' });
  });

  it('writes nothing the second time for the same idempotency key', async () => {
    h = await harness();
    const first = await h.source.writeInternalComment(write);
    const second = await h.source.writeInternalComment(write);
    expect(second).toEqual({ ...first, created: false });
    expect(botComments(h)).toHaveLength(1);
    expect(h.server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const other = await h.source.writeInternalComment({ ...write, idempotencyKey: 'aoc:run-20261120-2:publish' });
    expect(other.created).toBe(true);
    expect(botComments(h)).toHaveLength(2);
  });

  it('finds a comment whose property was lost by its marker line and does not write again', async () => {
    h = await harness();
    h.server.addIssue({ ...issue, comments: [...(issue.comments ?? []), { author: { accountId: 'aoc-bot' }, body: storedBody, created: '2026-11-20T13:00:00.000Z', internal: true }] });
    const result = await h.source.writeInternalComment(write);
    expect(result.created).toBe(false);
    expect(h.server.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('fails READBACK_MISMATCH when Jira stores the comment as public', async () => {
    h = await harness();
    h.server.transformCreatedComments((c) => ({ ...c, properties: c.properties.filter((p) => p.key !== 'sd.public.comment') }));
    const error = await rejectionOf(h.source.writeInternalComment(write));
    expect(error.code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('visibility is public');
    expect(error.details).toMatchObject({ created: true, ticketKey: 'SUP-1042' });
  });

  it('fails READBACK_MISMATCH when the body reads back altered', async () => {
    h = await harness();
    h.server.transformCreatedComments((c) => ({ ...c, body: c.body.replace('scans', 'reads') }));
    const error = await rejectionOf(h.source.writeInternalComment(write));
    expect(error.code).toBe('TICKET_SOURCE.READBACK_MISMATCH');
    expect(error.message).toContain('body differs');
  });

  it('fails AUTH_FAILED on 401 without retrying and without the token in the error', async () => {
    h = await harness({ echoAuthorizationOn401: true });
    const wrong = new JiraTicketSource({ config: { baseUrl: h.server.baseUrl, auth: { type: 'basic', email: EMAIL, apiToken: 'wrong-token-0123456789' } }, sleep: async () => undefined });
    const error = await rejectionOf(wrong.readTicket('SUP-1042'));
    expect(error.code).toBe('TICKET_SOURCE.AUTH_FAILED');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('HTTP 401');
    const everything = JSON.stringify({ message: error.message, details: error.details, stack: error.stack });
    expect(everything).not.toContain('wrong-token-0123456789');
    expect(everything).not.toContain(Buffer.from(`${EMAIL}:wrong-token-0123456789`).toString('base64'));
    expect(everything).toContain('***');
    expect(h.server.requests).toHaveLength(1);
  });

  it('fails AUTH_FAILED on 403 too, and accepts bearer tokens', async () => {
    h = await harness({ auth: { type: 'bearer', token: TOKEN } });
    const bearer = new JiraTicketSource({ config: { baseUrl: h.server.baseUrl, auth: { type: 'bearer', token: TOKEN } } });
    await expect(bearer.readTicket('SUP-1042')).resolves.toMatchObject({ key: 'SUP-1042' });
    h.server.fail({ status: 403, body: { errorMessages: [`token ${TOKEN} lacks permission`] } });
    const error = await rejectionOf(bearer.readTicket('SUP-1042'));
    expect(error.code).toBe('TICKET_SOURCE.AUTH_FAILED');
    expect(error.message).toContain('lacks permission');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain(BASIC);
  });

  it('retries a 429 after the Retry-After delay (capped) and then succeeds', async () => {
    h = await harness({}, { retryAfterCapMs: 20000 });
    h.server.fail({ method: 'GET', path: /\/comment$/, status: 429, headers: { 'retry-after': '7' } });
    h.server.fail({ method: 'GET', path: /\/comment$/, status: 429, headers: { 'retry-after': '3600' } });
    const ticket = await h.source.readTicket('SUP-1042');
    expect(ticket.comments).toHaveLength(7);
    expect(h.waits).toEqual([7000, 20000]);
  });

  it('retries a 429 on the POST itself and writes once', async () => {
    h = await harness();
    h.server.fail({ method: 'POST', status: 429, headers: { 'retry-after': '1' } });
    const result = await h.source.writeInternalComment(write);
    expect(result.created).toBe(true);
    expect(h.waits).toEqual([1000]);
    expect(botComments(h)).toHaveLength(1);
  });

  it('gives up after the configured retries of a 5xx with a retryable UNAVAILABLE', async () => {
    h = await harness();
    h.server.fail({ method: 'GET', status: 500, times: 10, body: { errorMessages: ['database is down'] } });
    const error = await rejectionOf(h.source.readTicket('SUP-1042'));
    expect(error.code).toBe('TICKET_SOURCE.UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 500');
    expect(error.message).toContain('database is down');
    expect(error.details).toMatchObject({ attempts: 3, status: 500 });
    expect(h.server.requests).toHaveLength(3);
    expect(h.waits).toEqual([500, 1000]);
  });

  it.each([
    { what: 'wrote but answered 502: the lookup finds it, no second POST', fault: { method: 'POST' as const, status: 502, after: true }, posts: 1 },
    { what: 'failed with 503 before writing: posted again', fault: { method: 'POST' as const, status: 503 }, posts: 2 },
  ])('keeps one comment when the POST $what', async ({ fault, posts }) => {
    h = await harness();
    h.server.fail(fault);
    const result = await h.source.writeInternalComment(write);
    expect(result.created).toBe(true);
    expect(h.server.requests.filter((r) => r.method === 'POST')).toHaveLength(posts);
    expect(botComments(h)).toHaveLength(1);
  });

  it('rejects a bad write request before any call', async () => {
    h = await harness();
    const error = await rejectionOf(h.source.writeInternalComment({ ...write, body: 'x'.repeat(20000) }));
    expect(error.code).toBe('TICKET_SOURCE.INVALID_INPUT');
    expect(h.server.requests).toHaveLength(0);
  });
});
