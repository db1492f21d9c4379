import { Bus, InMemoryBroker, InMemoryTransport, PostgresBusStore, busTablesDdl } from '@aoc/bus';
import { MAX_MESSAGE_BYTES, TOPIC_REGISTRY, Topics, dlqTopicOf, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { BusError } from '@aoc/bus';
import { AUTH_STORE, TokenStore, migrateAuthStore } from '@aoc/auth';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { bootRole, migrateRole, type BootedRole } from '@aoc/service-host';
import { createLogger } from '@aoc/telemetry';
import { JiraTicketSource } from '@aoc/ticket-source';
import { startFakeJiraServer, type FakeJiraServer, type FakeJiraUser } from '@aoc/ticket-source/testing';
import type { DataSource } from 'typeorm';
import { createRouterDefinition } from '../router.definition';
import { TimelineCollector } from './timeline-collector.service';

const EMAIL = 'aoc@support.example.com';
const TOKEN = 'collector-token-1';
const customer: FakeJiraUser = { accountId: 'cust-1', accountType: 'customer' };
const support: FakeJiraUser = { accountId: 'sup-1', emailAddress: 'bob@support.example.com', accountType: 'atlassian' };

/** The router role with the real Jira adapter against a local fake Jira over HTTP, an embedded Postgres and the in-process bus. */
describe('timeline collector', () => {
  let pg: EmbeddedPostgres;
  let dataSource: DataSource;
  let broker: InMemoryBroker;
  let router: BootedRole;
  let listener: Bus;
  let jira: FakeJiraServer;
  let collector: TimelineCollector;
  const seen: TicketTimelineUpdatedV1[] = [];

  const published = async (runId: string, ticketKey: string, at: string) => {
    await dataSource.query(
      `INSERT INTO "router"."runs" ("run_id", "ticket_key", "title", "mode", "trigger", "cutoff", "status", "published_at", "created_at") VALUES ($1, $2, 't', 'read', 'initial', NULL, 'published', $3, $3)`,
      [runId, ticketKey, at],
    );
  };
  const settle = async () => {
    await router.runtime.bus.flush();
    await new Promise((r) => setTimeout(r, 100));
  };

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    jira = await startFakeJiraServer({
      auth: { type: 'basic', email: EMAIL, apiToken: TOKEN },
      issues: [
        { key: 'SUP-1', summary: 'slow', created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: [{ id: '1', author: customer, body: 'Still slow.', created: '2026-11-30T10:05:00.000Z' }] },
        { key: 'SUP-2', summary: 'errors', created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: [] },
        { key: 'SUP-OLD', summary: 'old', created: '2026-10-01T10:00:00.000Z', reporter: customer, comments: [] },
      ],
    });
    const definition = createRouterDefinition({
      ticketSource: new JiraTicketSource({ config: { baseUrl: jira.baseUrl, auth: { type: 'basic', email: EMAIL, apiToken: TOKEN }, supportEmailDomains: ['support.example.com'], maxRetries: 0 }, sleep: async () => undefined }),
      collector: { enabled: false, repollMs: 0 },
      env: {},
    });
    await migrateRole(definition, pg.url);
    await migrateAuthStore(pg.url);
    dataSource = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...(definition.entities as never[]), ...AUTH_STORE.entities], poolSize: 2 });
    await dataSource.initialize();
    broker = new InMemoryBroker();
    for (const t of TOPIC_REGISTRY) {
      broker.createTopic(t.name, t.partitions);
      broker.createTopic(dlqTopicOf(t.name), 1);
    }
    router = await bootRole({ definition, transport: { kind: 'memory', broker }, dataSource, httpPort: 0, logger: createLogger('router', 'error') });
    collector = router.app.get(TimelineCollector);
    for (const ddl of busTablesDdl('judge')) await dataSource.query(ddl);
    listener = new Bus({ role: 'judge', transport: new InMemoryTransport(broker), store: new PostgresBusStore(dataSource, 'judge'), publishes: [] });
    listener.subscribeByName(Topics.ticketTimelineUpdated.name, async (payload) => {
      seen.push(payload as TicketTimelineUpdatedV1);
    });
    await listener.start();
  }, 120000);

  afterAll(async () => {
    await listener?.stop();
    await router?.close();
    broker?.close();
    await dataSource?.destroy();
    await pg?.stop();
    await jira?.close();
  });

  it('publishes a revision only when a comment is added, edited, re-scoped or deleted, and keeps real edit times', async () => {
    const now = new Date();
    await published('run-1', 'SUP-1', new Date(now.getTime() - 3_600_000).toISOString());
    await published('run-old', 'SUP-OLD', new Date(now.getTime() - 30 * 86_400_000).toISOString());
    const first = await collector.collect({}, now);
    expect(first).toMatchObject({ enrolled: 1, polled: 1, published: 1, unchanged: 0 });
    await settle();
    expect(seen.map((t) => t.ticketKey)).toEqual(['SUP-1']);

    // Nothing changed: no new revision.
    expect(await collector.collect({}, new Date(now.getTime() + 1000))).toMatchObject({ polled: 1, published: 0, unchanged: 1 });

    const id = jira.addComment('SUP-1', { author: support, body: 'Cause: missing index.', created: new Date(now.getTime() + 2000).toISOString() });
    await collector.collect({}, new Date(now.getTime() + 3000));
    jira.editComment('SUP-1', id, 'Cause: missing index on orders(created_at).', new Date(now.getTime() + 4000).toISOString());
    await collector.collect({}, new Date(now.getTime() + 5000));
    jira.deleteComment('SUP-1', '1');
    await collector.collect({}, new Date(now.getTime() + 6000));
    await settle();
    const revisions = seen.filter((t) => t.ticketKey === 'SUP-1');
    expect(revisions).toHaveLength(4);
    expect(revisions.map((r) => r.revision)).toEqual([...revisions.map((r) => r.revision)].sort((a, b) => a - b));
    expect(new Set(revisions.map((r) => r.revision)).size).toBe(4);
    const edited = revisions[2].comments.find((c) => c.id === id);
    expect(edited).toMatchObject({ authorRole: 'support', body: 'Cause: missing index on orders(created_at).', visibleToAi: false });
    expect(edited?.updatedAt).not.toBe(edited?.createdAt);
    expect(revisions[3].comments.map((c) => c.id)).toEqual([id]);
  });

  it('waits out a rate limit as Jira asks and stops polling a ticket that is gone, saying why', async () => {
    const now = new Date(Date.now() + 60_000);
    await published('run-2', 'SUP-2', new Date(now.getTime() - 60_000).toISOString());
    jira.fail({ method: 'GET', path: /SUP-2$/, status: 429, headers: { 'retry-after': '120' } });
    const limited = await collector.collect({ ticketKeys: ['SUP-2'] }, now);
    expect(limited.failed).toBe(1);
    expect(Date.parse(limited.pausedUntil ?? '') - now.getTime()).toBe(120_000);
    // A background cycle inside the pause reads nothing.
    expect(await collector.collect({}, new Date(now.getTime() + 1000))).toMatchObject({ polled: 0, pausedUntil: limited.pausedUntil });

    jira.removeIssue('SUP-2');
    expect(await collector.collect({ ticketKeys: ['SUP-2'] }, new Date(now.getTime() + 200_000))).toMatchObject({ stopped: 1 });
    const [row] = (await dataSource.query(`SELECT "status", "reason" FROM "router"."timeline_watch" WHERE "ticket_key" = 'SUP-2'`)) as { status: string; reason: string }[];
    expect(row.status).toBe('inaccessible');
    expect(row.reason).toMatch(/^TICKET_SOURCE\.NOT_FOUND/);
    expect(row.reason).not.toContain(TOKEN);
    // Stopped tickets are not read again.
    expect(await collector.collect({ all: true }, new Date(now.getTime() + 300_000))).toMatchObject({ stopped: 0 });
  });

  it('consecutive backfill calls read the least recently read tickets first, so every ticket is covered', async () => {
    const now = new Date(Date.now() + 400_000);
    for (const key of ['SUP-3', 'SUP-4', 'SUP-5']) {
      jira.addIssue({ key, summary: key, created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: [] });
      await published(`run-${key}`, key, new Date(now.getTime() - 60_000).toISOString());
    }
    const read = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const before = (await dataSource.query(`SELECT "ticket_key", "last_polled_at" FROM "router"."timeline_watch" WHERE "status" = 'active'`)) as { ticket_key: string; last_polled_at: Date | null }[];
      await collector.collect({ all: true, limit: 2 }, new Date(now.getTime() + i * 1000));
      const after = (await dataSource.query(`SELECT "ticket_key", "last_polled_at" FROM "router"."timeline_watch" WHERE "status" = 'active'`)) as { ticket_key: string; last_polled_at: Date | null }[];
      for (const row of after) if (String(row.last_polled_at) !== String(before.find((b) => b.ticket_key === row.ticket_key)?.last_polled_at)) read.add(row.ticket_key);
    }
    expect([...read].filter((k) => ['SUP-3', 'SUP-4', 'SUP-5'].includes(k)).sort()).toEqual(['SUP-3', 'SUP-4', 'SUP-5']);
  });

  it('backs off while the source is down for an hour, then catches up and loses no change', async () => {
    const start = new Date(Date.now() + 1_000_000);
    jira.addIssue({ key: 'SUP-6', summary: 'down', created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: [] });
    await published('run-SUP-6', 'SUP-6', new Date(start.getTime() - 60_000).toISOString());
    await collector.collect({ ticketKeys: ['SUP-6'] }, start);
    await settle();
    const seenBefore = seen.filter((t) => t.ticketKey === 'SUP-6').length;
    // The source fails every call for the next while; meanwhile a Support reply is posted.
    jira.fail({ status: 503, times: 8 });
    const reply = jira.addComment('SUP-6', { author: support, body: 'Fixed by raising the pool.', created: new Date(start.getTime() + 1000).toISOString() });
    const pauses: number[] = [];
    let t = start.getTime() + 60_000;
    for (let i = 0; i < 6 && t < start.getTime() + 3_600_000; i++) {
      const r = await collector.collect({ ticketKeys: ['SUP-6'] }, new Date(t));
      expect(r.published).toBe(0);
      pauses.push(Date.parse(r.pausedUntil ?? '') - t);
      t += pauses[pauses.length - 1];
    }
    // The pause grows with each failed cycle (exponential backoff) and never exceeds an hour.
    expect(pauses.slice(1).every((p, i) => p >= pauses[i])).toBe(true);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(3_600_000);
    const [row] = (await dataSource.query(`SELECT "status", "reason" FROM "router"."timeline_watch" WHERE "ticket_key" = 'SUP-6'`)) as { status: string; reason: string }[];
    expect(row.status).toBe('active');
    expect(row.reason).toMatch(/^TICKET_SOURCE\.UNAVAILABLE/);
    // The source comes back (its last failures run out): the read publishes the reply posted during the outage.
    for (let i = 0; i < 5; i++) {
      const probe = await collector.collect({ ticketKeys: ['SUP-6'] }, new Date(t + i * 3_600_000));
      if (probe.published > 0) break;
    }
    await settle();
    const after = seen.filter((x) => x.ticketKey === 'SUP-6');
    expect(after.length).toBe(seenBefore + 1);
    expect(after[after.length - 1].comments.map((c) => c.id)).toContain(reply);
  });

  it('publishes a timeline of pasted logs cut to one bus message, and one ticket\'s failure does not stop the others', async () => {
    const now = new Date(Date.now() + 600_000);
    const logs = Array.from({ length: 40 }, (_, i) => ({ id: `big-${i}`, author: customer, body: `log ${i}: ${'ERROR connection reset by peer\n'.repeat(650)}`, created: '2026-11-30T10:10:00.000Z' }));
    jira.addIssue({ key: 'SUP-BIG', summary: 'logs', created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: logs });
    jira.addIssue({ key: 'SUP-NEXT', summary: 'next', created: '2026-11-30T10:00:00.000Z', reporter: customer, comments: [{ id: 'n1', author: customer, body: 'hello', created: '2026-11-30T10:05:00.000Z' }] });
    await published('run-big', 'SUP-BIG', new Date(now.getTime() - 60_000).toISOString());
    await published('run-next', 'SUP-NEXT', new Date(now.getTime() - 60_000).toISOString());
    // The first publication of this pass fails (a refusal of the bus); the ticket after it is still collected.
    const bus = router.runtime.bus;
    const failOnce = jest.spyOn(bus, 'transaction').mockRejectedValueOnce(new BusError('BUS.MESSAGE_TOO_LARGE', 'refused'));
    const pass = await collector.collect({ ticketKeys: ['SUP-BIG', 'SUP-NEXT'] }, now);
    failOnce.mockRestore();
    expect(pass).toMatchObject({ polled: 2, failed: 1, published: 1 });
    const [failedRow] = (await dataSource.query(`SELECT "reason", "failures" FROM "router"."timeline_watch" WHERE "reason" LIKE 'BUS.%'`)) as { reason: string; failures: number }[];
    expect(failedRow).toMatchObject({ reason: 'BUS.MESSAGE_TOO_LARGE: refused', failures: 1 });
    // Next pass: the 1 MB timeline goes out cut to fit, every comment still there under its id.
    expect(await collector.collect({ ticketKeys: ['SUP-BIG', 'SUP-NEXT'] }, new Date(now.getTime() + 1000))).toMatchObject({ failed: 0 });
    await settle();
    const big = seen.filter((t) => t.ticketKey === 'SUP-BIG').at(-1);
    expect(big?.comments.map((c) => c.id).sort()).toEqual(logs.map((c) => c.id).sort());
    expect(Buffer.byteLength(JSON.stringify(big))).toBeLessThan(MAX_MESSAGE_BYTES);
    expect(big?.comments.every((c) => c.body.includes('characters omitted by the timeline collector'))).toBe(true);
    expect(seen.some((t) => t.ticketKey === 'SUP-NEXT')).toBe(true);
  });

  it('backfills over HTTP (at most 500, operators only) and names a bad field', async () => {
    const tokens = new TokenStore(dataSource);
    const operator = (await tokens.create({ name: 'ops', role: 'operator', tenant: 'default', createdBy: 'test' })).token;
    const support = (await tokens.create({ name: 'support', role: 'support', tenant: 'default', createdBy: 'test' })).token;
    const headers = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
    const anonymous = await fetch(`${router.httpUrl}/v1/timelines/collect`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    const notOperator = await fetch(`${router.httpUrl}/v1/timelines/collect`, { method: 'POST', headers: headers(support), body: '{}' });
    expect(notOperator.status).toBe(403);
    const ok = await fetch(`${router.httpUrl}/v1/timelines/collect`, { method: 'POST', headers: headers(operator), body: JSON.stringify({ limit: 500, all: true }) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ polled: expect.any(Number) });
    const bad = await fetch(`${router.httpUrl}/v1/timelines/collect`, { method: 'POST', headers: headers(operator), body: JSON.stringify({ limit: 501 }) });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(await bad.json()).toMatchObject({ status: 400, code: 'TIMELINE.REQUEST_INVALID', errors: [{ field: 'limit' }] });
  });
});
