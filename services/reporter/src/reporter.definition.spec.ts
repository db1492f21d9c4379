import { AUTH_STORE, TokenStore, migrateAuthStore } from '@aoc/auth';
import { Bus, InMemoryBroker, InMemoryTransport, PostgresBusStore, busTablesDdl } from '@aoc/bus';
import { TOPIC_REGISTRY, Topics, dlqTopicOf, type Role, type TopicDefinition } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { bootRole, migrateRole, type BootedRole } from '@aoc/service-host';
import { createLogger } from '@aoc/telemetry';
import type { DataSource } from 'typeorm';
import { comment, execution, judged, published, timeline } from '../test/reporter-harness';
import { reporterDefinition } from './reporter.definition';
import { REPORTS_READER, type AnswerVersionView, type QualityReport, type ReportsReader } from './reports/report.types';

/** The reporter role as it runs: subscribed on the bus (timeline included), reports over HTTP. */
describe('reporter role: bus subscriptions and HTTP reports', () => {
  let pg: EmbeddedPostgres;
  let dataSource: DataSource;
  let broker: InMemoryBroker;
  let reporter: BootedRole;
  const publishers: Bus[] = [];

  const publisher = async (role: Role, publishes: TopicDefinition[]): Promise<Bus> => {
    for (const ddl of busTablesDdl(role)) await dataSource.query(ddl);
    const bus = new Bus({ role, transport: new InMemoryTransport(broker), store: new PostgresBusStore(dataSource, role), publishes });
    await bus.start();
    publishers.push(bus);
    return bus;
  };

  let viewerToken = '';
  let otherTenantToken: string;
  const get = async (path: string, token = viewerToken): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${reporter.httpUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    await migrateRole(reporterDefinition, pg.url);
    await migrateAuthStore(pg.url);
    dataSource = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...(reporterDefinition.entities as never[]), ...AUTH_STORE.entities], poolSize: 1 });
    await dataSource.initialize();
    // Without AOC_TENANTS the deployment has one tenant, `default`; a token of any other tenant sees none of it.
    viewerToken = (await new TokenStore(dataSource).create({ name: 'viewer', role: 'viewer', tenant: 'default', createdBy: 'test' })).token;
    otherTenantToken = (await new TokenStore(dataSource).create({ name: 'other', role: 'viewer', tenant: 'acme', createdBy: 'test' })).token;
    broker = new InMemoryBroker();
    for (const t of TOPIC_REGISTRY) {
      broker.createTopic(t.name, t.partitions);
      broker.createTopic(dlqTopicOf(t.name), 1);
    }
    reporter = await bootRole({ definition: reporterDefinition, transport: { kind: 'memory', broker }, dataSource, httpPort: 0, logger: createLogger('reporter', 'error') });
  }, 120000);

  afterAll(async () => {
    for (const bus of publishers) await bus.stop();
    await reporter?.close();
    broker?.close();
    await dataSource?.destroy();
    await pg?.stop();
  });

  it('consumes run, execution, evaluation and timeline topics and serves the reports as JSON', async () => {
    const router = await publisher('router', [Topics.runPublished, Topics.runExecutionRecorded, Topics.ticketTimelineUpdated]);
    const judge = await publisher('judge', [Topics.evaluationJudged]);
    await router.transaction(async (uow) => {
      for (const event of [
        published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00', { answer: 'a1' }),
        execution('r1', 'SUP-1', '2026-11-20T10:00:30+08:00', {
          evidenceStatus: 'degraded',
          providerQueryEvents: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'complete', supplemental: false, at: '2026-11-20T10:00:01+08:00' }],
        }),
        timeline('SUP-1', 1, [comment('c1', 'support', 'internal', '2026-11-20T11:00:00+08:00', '/ao wrong: owner is wrong')]),
      ]) {
        if (event.topic === 'run.published') await uow.publish(Topics.runPublished, event.payload);
        if (event.topic === 'run.execution-recorded') await uow.publish(Topics.runExecutionRecorded, event.payload);
        if (event.topic === 'ticket.timeline-updated') await uow.publish(Topics.ticketTimelineUpdated, event.payload);
      }
    });
    const evaluation = judged('e1', 'r1', 'SUP-1', 'a1', 'equivalent', '2026-11-20T12:00:00+08:00', ['gap']);
    if (evaluation.topic === 'evaluation.judged') await judge.transaction((uow) => uow.publish(Topics.evaluationJudged, evaluation.payload));
    await router.flush();
    await judge.flush();

    const deadline = Date.now() + 30000;
    let answers: AnswerVersionView[] = [];
    for (;;) {
      answers = (await get('/v1/tickets/SUP-1/answers')).body as AnswerVersionView[];
      if (answers[0]?.verdict && answers[0].feedback.length > 0 && answers[0].evidenceStatus) break;
      if (Date.now() > deadline) throw new Error(`reporter did not record the events: ${JSON.stringify(answers)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answers[0]).toMatchObject({ runId: 'r1', verdict: 'equivalent', quality: { score: 0, source: 'feedback' }, feedback: [{ commentId: 'c1', action: 'wrong' }] });

    const daily = await get('/v1/reports/daily?day=2026-11-20');
    expect(daily.status).toBe(200);
    expect(daily.body).toMatchObject({ runsCounted: 1, quality: { good: 0, bad: 1, unknown: 0 }, runtimeSignals: [{ runId: 'r1', evidenceStatus: 'degraded' }] });
    const weekly = await get('/v1/reports/weekly?weekStart=2026-11-16');
    expect(weekly.body).toMatchObject({ period: { kind: 'weekly', from: '2026-11-16', to: '2026-11-22' }, runsCounted: 1, provider5xx: [] });
    const health = await get('/v1/providers/health?from=2026-11-20&to=2026-11-20');
    expect(health.body).toMatchObject([{ day: '2026-11-20', provider: 'clinic', queries: 1, succeeded: 1, successRate: 1 }]);

    const reader = reporter.app.get<ReportsReader>(REPORTS_READER as never);
    const read = await reader.daily('2026-11-20');
    expect(typeof read.generatedAt).toBe('string');
    expect(read).toEqual({ ...(daily.body as QualityReport), generatedAt: read.generatedAt });

    // A not_compared evaluation of the same ticket keeps its abstention code for the dashboard.
    const abstained = judged('e2', 'r1', 'SUP-1', 'a1', 'not_compared', '2026-11-20T13:00:00+08:00');
    if (abstained.topic === 'evaluation.judged') await judge.transaction((uow) => uow.publish(Topics.evaluationJudged, abstained.payload));
    await judge.flush();
    for (const until = Date.now() + 30000; ; ) {
      answers = (await get('/v1/tickets/SUP-1/answers')).body as AnswerVersionView[];
      if (answers[0]?.verdict === 'not_compared') break;
      if (Date.now() > until) throw new Error(`reporter did not record the abstention: ${JSON.stringify(answers)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answers[0]).toMatchObject({ verdict: 'not_compared', abstentionCode: 'JUDGE.NEEDS_MODEL' });
    // Every evaluation of the version is listed, and the ticket's timeline with what the AI saw.
    expect(answers[0].evaluations?.map((e) => [e.evaluationId, e.verdict])).toEqual([
      ['e1', 'equivalent'],
      ['e2', 'not_compared'],
    ]);
    expect(await reader.ticketTimeline('SUP-1')).toEqual([expect.objectContaining({ commentId: 'c1', authorRole: 'support', visibility: 'internal', visibleToAi: false, isFeedback: true })]);
    // Another tenant's credential finds none of it: the ticket and run are "not found", the list is empty, its figures count nothing.
    expect(await get('/v1/tickets/SUP-1/answers', otherTenantToken)).toMatchObject({ status: 404 });
    expect(await get('/v1/runs/r1', otherTenantToken)).toMatchObject({ status: 404 });
    expect(await get('/v1/runs', otherTenantToken)).toMatchObject({ status: 200, body: [] });
    expect(await get('/v1/reports/daily?day=2026-11-20', otherTenantToken)).toMatchObject({ status: 200, body: { tenant: 'acme', runsCounted: 0, providerHealth: [] } });
    expect(await get('/v1/providers/health?from=2026-11-20&to=2026-11-20', otherTenantToken)).toMatchObject({ status: 200, body: [] });
    // It may not ask for another tenant's figures; the deployment's own tenant may name its tenant.
    expect(await get('/v1/reports/daily?day=2026-11-20&tenant=default', otherTenantToken)).toMatchObject({ status: 403, body: { code: 'AUTH.TENANT_FORBIDDEN' } });
    expect(await get('/v1/reports/daily?day=2026-11-20&tenant=default')).toMatchObject({ status: 200, body: { tenant: 'default', runsCounted: 1 } });
    expect(await get('/v1/reports/daily?day=2026-11-20&tenant=NOT%20OK')).toMatchObject({ status: 400, body: { code: 'AUTH.INVALID_TENANT' } });
    expect(await get('/v1/runs/r1')).toMatchObject({ status: 200, body: { ticketKey: 'SUP-1' } });

    // A decided verdict the model judge's cross-check disagreed with reaches the report on evaluation.judged.
    const second = published('r2', 'SUP-2', '2026-11-20T14:00:00+08:00', { answer: 'a2' });
    if (second.topic === 'run.published') await router.transaction((uow) => uow.publish(Topics.runPublished, second.payload));
    const crossChecked = judged('e3', 'r2', 'SUP-2', 'a2', 'human_better', '2026-11-20T15:00:00+08:00', [], {
      crossCheck: { engine: 'openai:judge-xl', verdict: 'equivalent', agrees: false, reasonCode: 'determined_nothing' },
    });
    if (crossChecked.topic === 'evaluation.judged') await judge.transaction((uow) => uow.publish(Topics.evaluationJudged, crossChecked.payload));
    await router.flush();
    await judge.flush();
    let report: QualityReport | null = null;
    for (const until = Date.now() + 30000; ; ) {
      report = (await get('/v1/reports/daily?day=2026-11-20')).body as QualityReport;
      if (report.judgeCrossCheck?.disagreed === 1) break;
      if (Date.now() > until) throw new Error(`reporter did not record the cross-check: ${JSON.stringify(report)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(report.judgeCrossCheck).toEqual({
      crossChecked: 1,
      disagreed: 1,
      disagreements: [{ runId: 'r2', ticketKey: 'SUP-2', evaluationId: 'e3', judgedAt: '2026-11-20T07:00:00.000Z', builtinVerdict: 'human_better', modelVerdict: 'equivalent', modelEngine: 'openai:judge-xl', reasonCode: 'determined_nothing' }],
    });
    const page = await fetch(`${reporter.httpUrl}/reports/daily?day=2026-11-20`, { headers: { authorization: `Bearer ${viewerToken}` } });
    const html = await page.text();
    expect(html).toContain('<h2 id="judge-cross-check">Judge cross-check</h2>');
    expect(html).toContain('<a class="mono" href="/runs/r2">r2</a>');
    // Another tenant sees none of it, in the JSON and on the page.
    expect(await get('/v1/reports/daily?day=2026-11-20', otherTenantToken)).toMatchObject({ status: 200, body: { judgeCrossCheck: { crossChecked: 0, disagreed: 0, disagreements: [] } } });
    const otherPage = await (await fetch(`${reporter.httpUrl}/reports/daily?day=2026-11-20`, { headers: { authorization: `Bearer ${otherTenantToken}` } })).text();
    expect(otherPage).toContain('No decided verdict was cross-checked by a model judge in this period.');
    expect(otherPage).not.toContain('/runs/r2');
  }, 60000);

  it.each([
    ['/v1/reports/daily', 'day'],
    ['/v1/reports/daily?day=2026-13-01', 'day'],
    ['/v1/reports/daily?day=2026-11-20&day=2026-11-21', 'day'],
    ['/v1/reports/weekly?weekStart=2026-11-17', 'weekStart'],
    ['/v1/reports/weekly?weekStart=yesterday', 'weekStart'],
    ['/v1/providers/health?to=2026-11-20', 'from'],
    ['/v1/providers/health?from=2026-11-20&to=2026-11-19', 'to'],
    ['/v1/providers/health?from=2025-01-01&to=2026-11-19', 'to'],
    ['/v1/tickets/not%20a%20key/answers', 'ticketKey'],
  ])('GET %s is a 400 naming %s', async (path, field) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'REPORTER.INVALID_PARAM', errors: [{ field }] });
  });
});
