import { AUTH_STORE, migrateAuthStore } from '@aoc/auth';
import { InMemoryBroker, busTablesDdl } from '@aoc/bus';
import { TOPIC_REGISTRY, dlqTopicOf } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { createLogger, pipelineMetrics, shutdownMetrics } from '@aoc/telemetry';
import { Module } from '@nestjs/common';
import { networkInterfaces } from 'node:os';
import type { DataSource } from 'typeorm';
import { bootRole, type BootedRole } from './boot-role';
import { serviceConfigSchema } from './run-service-process';
import { RuntimeModule } from './runtime.module';
import type { ServiceDefinition } from './service-definition';

@Module({})
class EmptyModule {}

const definition = (role: 'judge' | 'reporter', http: boolean): ServiceDefinition => ({
  role,
  publishes: [],
  entities: [],
  migrations: [],
  module: (runtime) => ({ module: EmptyModule, imports: [RuntimeModule.forRoot(runtime)] }),
  ...(http ? { http: { defaultPort: 0 } } : {}),
});

describe('/metrics where the probes are', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  const booted: BootedRole[] = [];
  const broker = new InMemoryBroker();

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    await migrateAuthStore(pg.url);
    ds = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...AUTH_STORE.entities], poolSize: 1 });
    await ds.initialize();
    for (const role of ['judge', 'reporter']) {
      await ds.query(`CREATE SCHEMA IF NOT EXISTS "${role}"`);
      for (const ddl of busTablesDdl(role)) await ds.query(ddl);
    }
    await ds.query('CREATE TABLE "reporter"."http_audit" (id bigserial PRIMARY KEY, at timestamptz NOT NULL, subject text NOT NULL, tenant text, role text, action text NOT NULL, target text NOT NULL, status int NOT NULL)');
    for (const t of TOPIC_REGISTRY) {
      broker.createTopic(t.name, t.partitions);
      broker.createTopic(dlqTopicOf(t.name), 1);
    }
  }, 120000);

  afterAll(async () => {
    for (const b of booted) await b.close().catch(() => undefined);
    broker.close();
    await ds?.destroy();
    await pg?.stop();
    await shutdownMetrics();
  });

  it('serves the Prometheus text format on the management port and on the HTTP API, without a credential', async () => {
    const judge = await bootRole({ definition: definition('judge', false), transport: { kind: 'memory', broker }, dataSource: ds, managementPort: 0, logger: createLogger('judge', 'error') });
    booted.push(judge);
    const reporter = await bootRole({ definition: definition('reporter', true), transport: { kind: 'memory', broker }, dataSource: ds, httpPort: 0, logger: createLogger('reporter', 'error') });
    booted.push(reporter);
    // Booting a role starts the process's metrics when the entry point did not.
    pipelineMetrics.evaluationsJudged.add({ verdict: 'equivalent' });
    for (const base of [judge.healthUrl, reporter.healthUrl]) {
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await res.text();
      expect(text).toContain('aoc_evaluations_judged_total{verdict="equivalent"} 1');
      // One process hosts both roles here: each endpoint shows the process's series, told apart by `role`.
      expect(text).toContain('aoc_bus_outbox_backlog{role="judge"} 0');
      expect(text).toContain('aoc_bus_outbox_backlog{role="reporter"} 0');
    }
    expect((await fetch(`${judge.healthUrl}/metrics`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${judge.healthUrl}/metrics`, { method: 'POST' })).status).toBe(405);
  }, 60000);

  it('binds loopback unless told otherwise; AOC_BIND_HOST=0.0.0.0 makes the probes reachable on the machine\'s own address (a container\'s)', async () => {
    const own = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
    const loopbackOnly = await bootRole({ definition: definition('judge', false), transport: { kind: 'memory', broker }, dataSource: ds, managementPort: 0, logger: createLogger('judge', 'error') });
    booted.push(loopbackOnly);
    const wildcard = await bootRole({ definition: definition('judge', false), transport: { kind: 'memory', broker }, dataSource: ds, managementPort: 0, bindHost: '0.0.0.0', logger: createLogger('judge', 'error') });
    booted.push(wildcard);
    expect((await fetch(`${wildcard.healthUrl}/healthz`)).status).toBe(200);
    if (own) {
      const port = (url: string | null) => new URL(url ?? '').port;
      expect((await fetch(`http://${own}:${port(wildcard.healthUrl)}/healthz`)).status).toBe(200);
      await expect(fetch(`http://${own}:${port(loopbackOnly.healthUrl)}/healthz`)).rejects.toThrow();
    }
    expect(serviceConfigSchema.safeParse({ AOC_BIND_HOST: 'everywhere' }).error?.issues[0]).toMatchObject({ path: ['AOC_BIND_HOST'] });
    expect(serviceConfigSchema.parse({}).AOC_BIND_HOST).toBe('127.0.0.1');
  }, 60000);
});
