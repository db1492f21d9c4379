// `npm run bench:collector`: tickets polled per second by the router's timeline collector against
// the fake Jira of libs/ticket-source (real HTTP on 127.0.0.1) holding 10,000 answered tickets,
// against a floor measured in the same run: bare HTTP reads of the same issues and comments (the
// same two GETs per ticket, sequential, no mapping, no database, no bus). Then Judge
// re-evaluations per second (a new human answer re-judges a published answer version, stored and
// published in a transaction) against the floor of the pure comparison on the same inputs.
import { cpus } from 'node:os';
import { Bus, InMemoryBroker, InMemoryTransport, PostgresBusStore, busTablesDdl } from '@aoc/bus';
import { TOPIC_REGISTRY, dlqTopicOf } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres } from '@aoc/persistence';
import { bootRole, migrateRole } from '@aoc/service-host';
import { createRouterDefinition, TimelineCollector } from '@aoc/service-router';
import { createLogger } from '@aoc/telemetry';
import { JiraTicketSource } from '@aoc/ticket-source';
import { startFakeJiraServer, type FakeJiraIssueInput } from '@aoc/ticket-source/testing';
import { judgeBench } from './collector/judge-rejudge';

const QUICK = process.env['BENCH_QUICK'] === '1';
const TICKETS = QUICK ? 1000 : 10_000;
const EMAIL = 'bench@support.example.com';
const TOKEN = 'bench-collector-token';

const log = (line: string) => process.stdout.write(`${line}\n`);

function issues(): FakeJiraIssueInput[] {
  const customer = { accountId: 'cust-1', accountType: 'customer' as const };
  const support = { accountId: 'sup-1', emailAddress: 'bob@support.example.com', accountType: 'atlassian' as const };
  return Array.from({ length: TICKETS }, (_, i) => ({
    key: `SUP-${i + 1}`,
    summary: `slow queries ${i}`,
    created: '2026-11-30T10:00:00.000Z',
    reporter: customer,
    comments: [
      { author: customer, body: 'Latency doubled since 10:40 UTC.', created: '2026-11-30T10:05:00.000Z' },
      { author: support, body: 'Looking into it.', created: '2026-11-30T10:30:00.000Z' },
      { author: support, body: 'Cause: a missing index on orders(created_at); add it.', created: '2026-11-30T11:00:00.000Z' },
    ],
  }));
}

async function main(): Promise<void> {
  const jira = await startFakeJiraServer({ auth: { type: 'basic', email: EMAIL, apiToken: TOKEN }, issues: issues() });
  const auth = `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`;
  // Floor: the same HTTP reads, bare.
  const floorStart = performance.now();
  for (let i = 1; i <= TICKETS; i++) {
    for (const path of [`/rest/api/2/issue/SUP-${i}?fields=summary,description,created,labels,reporter`, `/rest/api/2/issue/SUP-${i}/comment?startAt=0&maxResults=100&expand=properties`]) {
      const res = await fetch(`${jira.baseUrl}${path}`, { headers: { authorization: auth } });
      await res.text();
    }
  }
  const floorMs = performance.now() - floorStart;

  const pg = await startEmbeddedPostgres();
  const source = new JiraTicketSource({ config: { baseUrl: jira.baseUrl, auth: { type: 'basic', email: EMAIL, apiToken: TOKEN }, supportEmailDomains: ['support.example.com'] } });
  const definition = createRouterDefinition({ ticketSource: source, collector: { enabled: false, repollMs: 0 }, env: {} });
  await migrateRole(definition, pg.url);
  const dataSource = createServiceDataSource({ url: pg.url, schema: 'public', entities: definition.entities as never[], poolSize: 1 });
  await dataSource.initialize();
  const broker = new InMemoryBroker();
  for (const t of TOPIC_REGISTRY) {
    broker.createTopic(t.name, t.partitions);
    broker.createTopic(dlqTopicOf(t.name), 1);
  }
  const router = await bootRole({ definition, transport: { kind: 'memory', broker }, dataSource, logger: createLogger('router', 'error') });
  for (const ddl of busTablesDdl('judge')) await dataSource.query(ddl);
  let received = 0;
  const listener = new Bus({ role: 'judge', transport: new InMemoryTransport(broker), store: new PostgresBusStore(dataSource, 'judge'), publishes: [] });
  listener.subscribeByName('aoc.ticket.timeline-updated.v1', async () => {
    received += 1;
  });
  await listener.start();
  const now = new Date();
  await dataSource.query(
    `INSERT INTO "router"."runs" ("run_id", "ticket_key", "title", "mode", "trigger", "status", "published_at", "created_at")
     SELECT 'run-' || g, 'SUP-' || g, 't', 'read', 'initial', 'published', $1::timestamptz, $1::timestamptz FROM generate_series(1, $2::int) g`,
    [new Date(now.getTime() - 3_600_000), TICKETS],
  );
  const collector = router.get(TimelineCollector);
  const start = performance.now();
  let polled = 0;
  let published = 0;
  while (polled < TICKETS) {
    const r = await collector.collect({ all: true, limit: 500 }, new Date(now.getTime() + polled));
    if (r.polled === 0) throw new Error(`collector stopped at ${polled} tickets: ${JSON.stringify(r)}`);
    polled += r.polled;
    published += r.published;
  }
  const collectMs = performance.now() - start;
  await router.runtime.bus.flush();
  const second = await collector.collect({ all: true, limit: 500 }, new Date(now.getTime() + TICKETS + 1));

  log('== timeline collector benchmark ==');
  log(`machine: ${cpus().length} CPUs, node ${process.version}; ${TICKETS} answered tickets in the fake Jira (3 comments each)${QUICK ? ' (BENCH_QUICK=1)' : ''}`);
  log(`floor (bare HTTP reads, 2 GETs per ticket, sequential): ${(TICKETS / (floorMs / 1000)).toFixed(0)} tickets/s (${floorMs.toFixed(0)} ms)`);
  log(`collector (read, map, digest, compare, publish in a transaction; batches of 500): ${(TICKETS / (collectMs / 1000)).toFixed(0)} tickets/s (${collectMs.toFixed(0)} ms); ${published} revisions published`);
  log(`ratio collector / floor: ${(collectMs / floorMs).toFixed(2)}x the time of the bare reads`);
  log(`second pass, nothing changed: ${second.published} revisions published for ${second.polled} tickets read`);

  await listener.stop();
  await router.close();
  broker.close();
  await dataSource.destroy();
  await pg.stop();
  await jira.close();
  log(`timeline revisions received by a consumer: ${received}`);

  const judge = await judgeBench(QUICK ? 50 : 300);
  log(`judge re-evaluations: ${judge.cases} answer versions re-judged after a new human answer in ${judge.handlerMs.toFixed(0)} ms = ${(judge.cases / (judge.handlerMs / 1000)).toFixed(1)}/s (stored + published, both orders)`);
  log(`judge floor (the pure comparison on the same inputs, both orders): ${(judge.cases / (judge.floorMs / 1000)).toFixed(1)}/s; ratio ${(judge.handlerMs / judge.floorMs).toFixed(1)}x`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:collector: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
