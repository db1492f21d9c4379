import { join } from 'node:path';
import { REPORTS_READER, type ReportsReader } from '@aoc/service-reporter';
import { TicketIntakeService, TimelineCollector } from '@aoc/service-router';
import { JiraTicketSource } from '@aoc/ticket-source';
import { startFakeJiraServer, type FakeJiraServer, type FakeJiraUser } from '@aoc/ticket-source/testing';
import { startPlatform, type Platform } from './embedded-platform';
import { BUNDLED_TICKETS } from './examples/example-series';
import { loadExample, waitForRun } from './run-example';

const EMAIL = 'aoc-bot@support.example.com';
const TOKEN = 'live-loop-token-5151';
const customer: FakeJiraUser = { accountId: 'cust-1', displayName: 'Ada', accountType: 'customer' };
const support: FakeJiraUser = { accountId: 'sup-1', displayName: 'Bob', emailAddress: 'bob@support.example.com', accountType: 'atlassian' };

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The live evaluation loop on real parts: the fake Jira of libs/ticket-source over real HTTP,
 * real Kafka, real Postgres. After the answer is published, a Support reply and an `/ao revise`
 * are posted to the ticket; without analysing it again, the collector picks them up, the Judge
 * publishes a new evaluation, the reporter's quality projection follows the explicit feedback,
 * and an edit of the `/ao` comment changes only its action and reason.
 */
describe('live evaluation loop on Kafka, Postgres and a Jira over HTTP', () => {
  let jira: FakeJiraServer;
  let platform: Platform;
  const example = loadExample(join(BUNDLED_TICKETS, 'cpu-saturation.json'));
  // A key of its own: the shared test database holds the bundled example's other runs.
  const ticket = { ...example.ticket!, key: `LIVE-${Date.now() % 1_000_000}` };
  const [customerComment, supportReply] = ticket.comments ?? [];

  beforeAll(async () => {
    const databaseUrl = process.env['DATABASE_URL'];
    if (!databaseUrl) throw new Error('DATABASE_URL is required');
    jira = await startFakeJiraServer({
      auth: { type: 'basic', email: EMAIL, apiToken: TOKEN },
      issues: [
        {
          key: ticket.key,
          summary: ticket.title,
          description: ticket.description,
          created: ticket.createdAt,
          reporter: customer,
          comments: [{ author: customer, body: customerComment.body, created: customerComment.createdAt }],
        },
      ],
    });
    const source = new JiraTicketSource({ config: { baseUrl: jira.baseUrl, auth: { type: 'basic', email: EMAIL, apiToken: TOKEN }, supportEmailDomains: ['support.example.com'], maxRetries: 1 } });
    platform = await startPlatform({
      databaseUrl,
      transport: { kind: 'kafka', brokers: (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',') },
      kafkaPasswordOf: (role) => process.env[`AOC_KAFKA_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`],
      logLevel: 'error',
      router: { ticketSource: source, collector: { enabled: false, repollMs: 0 } },
    });
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await jira?.close();
  }, 60000);

  it('judges a reply posted after publication and binds an /ao revise whose edit changes only action and reason', async () => {
    const router = platform.roles.get('router')!;
    const reporter = platform.roles.get('reporter')!;
    // A live run (a replay that wrote nothing was never shown to anyone, so no feedback binds to it).
    const accepted = await router.get(TicketIntakeService).analyze({ ticketKey: ticket.key, mode: 'read', trigger: 'initial' });
    await waitForRun(platform, accepted.runId, 'published', 90000);
    const answers = () => reporter.app.get<ReportsReader>(REPORTS_READER as never).answerVersions(ticket.key);
    const version = async () => (await answers()).find((a) => a.runId === accepted.runId);
    expect((await version())?.verdict ?? null).toBeNull();

    // After publication: the Support reply and an internal /ao revise.
    jira.addComment(ticket.key, { author: support, body: supportReply.body, created: new Date(Date.now() + 500).toISOString() });
    const aoAt = new Date(Date.now() + 1000).toISOString();
    const ao = jira.addComment(ticket.key, { author: support, body: '/ao revise: name the missing index on events(tenant_id, created_at)', created: aoAt, internal: true });
    const collector = router.get(TimelineCollector);
    expect(await collector.collect({ ticketKeys: [ticket.key] })).toMatchObject({ published: 1 });

    const judged = await until('the judge verdict and the bound feedback', version, (v) => Boolean(v?.verdict) && (v?.feedback.length ?? 0) > 0, 90000);
    expect(judged?.feedback).toEqual([expect.objectContaining({ commentId: ao, action: 'revise', reason: 'name the missing index on events(tenant_id, created_at)' })]);
    expect(judged?.quality).toMatchObject({ score: 0, source: 'feedback' });
    const evaluations: { evaluation_id: string; revision: number }[] = await platform.dataSource.query(`SELECT "evaluation_id", "revision" FROM "judge"."evaluations" WHERE "run_id" = $1 AND "published"`, [accepted.runId]);
    expect(evaluations).toHaveLength(1);

    const [before] = (await platform.dataSource.query(`SELECT "run_id", "answer_fingerprint", "comment_created_at" FROM "judge"."feedback_bindings" WHERE "ticket_key" = $1 AND "comment_id" = $2`, [ticket.key, ao])) as Record<string, string>[];

    // The /ao comment is edited: only its action and reason change.
    jira.editComment(ticket.key, ao, '/ao wrong: the export job is the cause, not the CPU', new Date(Date.now() + 2000).toISOString());
    expect(await collector.collect({ ticketKeys: [ticket.key] })).toMatchObject({ published: 1 });
    const edited = await until('the edited feedback', version, (v) => v?.feedback[0]?.action === 'wrong', 60000);
    expect(edited?.feedback).toEqual([expect.objectContaining({ commentId: ao, action: 'wrong', reason: 'the export job is the cause, not the CPU' })]);
    const [after] = (await platform.dataSource.query(`SELECT "run_id", "answer_fingerprint", "comment_created_at", "action" FROM "judge"."feedback_bindings" WHERE "ticket_key" = $1 AND "comment_id" = $2`, [ticket.key, ao])) as Record<string, string>[];
    expect(after).toMatchObject({ run_id: before.run_id, answer_fingerprint: before.answer_fingerprint, comment_created_at: before.comment_created_at, action: 'wrong' });
    // The human answer did not change: the Judge published no new revision.
    const still: unknown[] = await platform.dataSource.query(`SELECT 1 FROM "judge"."evaluations" WHERE "run_id" = $1 AND "published"`, [accepted.runId]);
    expect(still).toHaveLength(1);
    // Nothing changed since: the collector publishes nothing.
    expect(await collector.collect({ ticketKeys: [ticket.key] })).toMatchObject({ published: 0, unchanged: 1 });
  }, 240000);
});
