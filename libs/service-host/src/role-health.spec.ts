import { AUTH_STORE, migrateAuthStore } from '@aoc/auth';
import { InMemoryBroker, busTablesDdl } from '@aoc/bus';
import { TOPIC_REGISTRY, dlqTopicOf } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { createLogger } from '@aoc/telemetry';
import { Module } from '@nestjs/common';
import type { MigrationInterface, QueryRunner, DataSource } from 'typeorm';
import { bootRole, migrateRole, type BootedRole } from './boot-role';
import { RuntimeModule } from './runtime.module';
import type { ServiceDefinition } from './service-definition';

class ProbeInit1700000000000 implements MigrationInterface {
  name = 'ProbeInit1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE "judge"."probe" ("id" int PRIMARY KEY)');
    for (const ddl of busTablesDdl('judge')) await q.query(ddl);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "judge"."probe"');
  }
}

@Module({})
class ProbeModule {}

/** A role with a migration and no handlers: the probes only. */
const definition = (role: 'judge' | 'reporter', http: boolean): ServiceDefinition => ({
  role,
  publishes: [],
  entities: [],
  migrations: role === 'judge' ? [ProbeInit1700000000000] : [],
  module: (runtime) => ({ module: ProbeModule, imports: [RuntimeModule.forRoot(runtime)] }),
  ...(http ? { http: { defaultPort: 0 } } : {}),
});

async function get(url: string, method = 'GET'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('role probes: /healthz and /readyz', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  const booted: BootedRole[] = [];
  const broker = new InMemoryBroker();

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    await migrateRole(definition('judge', false), pg.url);
    await migrateAuthStore(pg.url);
    ds = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...AUTH_STORE.entities], poolSize: 1 });
    await ds.initialize();
    await ds.query('CREATE SCHEMA IF NOT EXISTS "reporter"');
    for (const ddl of busTablesDdl('reporter')) await ds.query(ddl);
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
  });

  it('serves them on a management port for a role without an HTTP API, naming what is not ready', async () => {
    // (The role also prunes its bus bookkeeping from the start: a row sent 8 days ago goes.)
    await ds.query(`INSERT INTO "judge"."bus_outbox" ("topic", "value", "published_at") VALUES ('t', 'old', now() - interval '8 days'), ('t', 'pending', NULL)`);
    const role = await bootRole({ definition: definition('judge', false), transport: { kind: 'memory', broker }, dataSource: ds, managementPort: 0, logger: createLogger('judge', 'error') });
    booted.push(role);
    const base = role.healthUrl ?? '';
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await get(`${base}/readyz`);
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { bus: { ok: true }, database: { ok: true }, migrations: { ok: true, detail: '1 migrations applied' } } } });
    expect(await get(`${base}/readyz`, 'POST')).toMatchObject({ status: 405, body: { code: 'HTTP.METHOD_NOT_ALLOWED' } });
    expect(await get(`${base}/v1/runs`)).toMatchObject({ status: 404, body: { code: 'HTTP.NOT_FOUND' } });
    // A schema behind the code is not ready.
    await ds.query(`DELETE FROM "judge"."typeorm_migrations" WHERE "name" = 'ProbeInit1700000000000'`);
    expect(await get(`${base}/readyz`)).toMatchObject({ status: 503, body: { status: 'not_ready', checks: { migrations: { ok: false, detail: '1 migrations not applied (first: ProbeInit1700000000000)' } } } });
    await ds.query(`INSERT INTO "judge"."typeorm_migrations" ("timestamp", "name") VALUES (1700000000000, 'ProbeInit1700000000000')`);
    // Nor is a role whose bus stopped.
    await role.runtime.bus.stop();
    expect(await get(`${base}/readyz`)).toMatchObject({ status: 503, body: { checks: { bus: { ok: false, detail: 'the bus is not started' }, migrations: { ok: true } } } });
    expect((await get(`${base}/healthz`)).status).toBe(200);
    const outbox: { value: string }[] = await ds.query(`SELECT "value" FROM "judge"."bus_outbox" WHERE "topic" = 't'`);
    expect(outbox.map((r) => r.value)).toEqual(['pending']);
  }, 60000);

  it('serves them without a credential on the HTTP API of a role that has one', async () => {
    const role = await bootRole({ definition: definition('reporter', true), transport: { kind: 'memory', broker }, dataSource: ds, httpPort: 0, logger: createLogger('reporter', 'error') });
    booted.push(role);
    expect(role.healthUrl).toBe(role.httpUrl);
    expect(await get(`${role.httpUrl}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(`${role.httpUrl}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready', checks: { migrations: { ok: true, detail: 'no migrations' } } } });
    // Everything else still needs a credential.
    expect(await get(`${role.httpUrl}/v1/audit`)).toMatchObject({ status: 401 });
    await role.runtime.bus.stop();
    expect(await get(`${role.httpUrl}/readyz`)).toMatchObject({ status: 503, body: { code: 'HEALTH.NOT_READY', detail: expect.stringContaining('bus: the bus is not started') } });
  }, 60000);
});
