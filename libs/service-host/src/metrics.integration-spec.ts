import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busTablesDdl, contractsViewOf } from '@aoc/bus';
import { defineTopic, dlqTopicOf } from '@aoc/contracts';
import { PermanentError, TransientError } from '@aoc/errors';
import { createServiceDataSource } from '@aoc/persistence';
import { createLogger, shutdownMetrics } from '@aoc/telemetry';
import { Module } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { bootRole, type BootedRole } from './boot-role';
import { RuntimeModule } from './runtime.module';
import type { ServiceDefinition } from './service-definition';

/**
 * A role booted on real Kafka and a real Postgres, scraped by a real Prometheus (the Debian
 * `prometheus`, on a free 127.0.0.1 port with a generated config and a temporary data dir): the
 * key series reach Prometheus through the role's management port, with bounded labels only.
 */
const BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
const ADMIN = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };
const TAG = randomUUID().slice(0, 8);
const DATABASE = `aoc_metrics_${TAG}`;

const ping = defineTopic({
  baseName: `t${TAG}.metrics-ping`,
  version: 1,
  description: 'metrics test ping',
  keyField: 'key',
  key: z.string(),
  value: z.object({ key: z.string().min(1), seq: z.number().int().nonnegative() }),
  producers: ['router'],
  consumers: ['router'],
  partitions: 3,
});

@Module({})
class PingModule {}

/** The router role with one handler: transient failure once for `flaky`, refusal for `refused`. */
const definition: ServiceDefinition = {
  role: 'router',
  publishes: [ping],
  entities: [],
  migrations: [],
  module: (runtime) => {
    runtime.bus.subscribe(
      ping,
      async (p, ctx) => {
        if (p.key === 'flaky' && ctx.attempt === 1) throw new TransientError('TEST.FLAKY', 'try again');
        if (p.key === 'refused') throw new PermanentError('TEST.REFUSED', 'refused: SELECT * FROM tickets WHERE body = \'db slow\'');
      },
      { groupSuffix: `metrics${TAG}` },
    );
    return { module: PingModule, imports: [RuntimeModule.forRoot(runtime)] };
  },
};

function databaseUrlFor(database: string): string {
  const url = new URL(process.env['DATABASE_URL'] as string);
  url.pathname = `/${database}`;
  return url.toString();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

describe('metrics scraped by a real Prometheus', () => {
  let admin: Client;
  let ds: DataSource;
  let role: BootedRole;
  let prometheus: { child: ChildProcess; dir: string; baseUrl: string; stderr: () => string } | null = null;
  const kafka = new Kafka({ clientId: `aoc-metrics-test-${TAG}`, brokers: BROKERS, sasl: { mechanism: 'plain', ...ADMIN }, logLevel: logLevel.NOTHING });

  beforeAll(async () => {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('DATABASE_URL is required (bash deploy/local/postgres-ensure.sh)');
    // A database of its own: no other suite's outbox is relayed, nothing is left behind.
    admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${DATABASE}"`);
    ds = createServiceDataSource({ url: databaseUrlFor(DATABASE), schema: 'public', poolSize: 4 });
    await ds.initialize();
    for (const ddl of busTablesDdl('router')) await ds.query(ddl);
    const kadmin = kafka.admin();
    await kadmin.connect();
    try {
      await kadmin.createTopics({
        waitForLeaders: true,
        topics: [
          { topic: ping.name, numPartitions: ping.partitions, replicationFactor: 1 },
          { topic: dlqTopicOf(ping.name), numPartitions: 1, replicationFactor: 1 },
        ],
      });
    } finally {
      await kadmin.disconnect();
    }
    role = await bootRole({
      definition,
      transport: { kind: 'kafka', brokers: BROKERS, username: ADMIN.username, password: ADMIN.password, clientIdSuffix: TAG },
      dataSource: ds,
      managementPort: 0,
      logger: createLogger('router', 'error'),
      contracts: contractsViewOf([ping]),
      retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
    });
  }, 120000);

  afterAll(async () => {
    if (prometheus) {
      const { child, dir } = prometheus;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      }
      rmSync(dir, { recursive: true, force: true });
    }
    await role?.close();
    await ds?.destroy();
    await shutdownMetrics();
    const kadmin = kafka.admin();
    await kadmin.connect().catch(() => undefined);
    await kadmin.deleteTopics({ topics: [ping.name, dlqTopicOf(ping.name)] }).catch(() => undefined);
    await kadmin.disconnect().catch(() => undefined);
    await admin?.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
  }, 60000);

  async function startPrometheus(target: string): Promise<NonNullable<typeof prometheus>> {
    const dir = mkdtempSync(join(tmpdir(), 'aoc-metrics-prom-'));
    writeFileSync(
      join(dir, 'prometheus.yml'),
      ['global:', '  scrape_interval: 1s', '  scrape_timeout: 1s', 'scrape_configs:', '  - job_name: aoc-router', '    static_configs:', `      - targets: ['${target}']`, ''].join('\n'),
    );
    const port = await freePort();
    let stderr = '';
    const child = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const spawnError = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`cannot start prometheus (apt-get install prometheus): ${e.message}`))));
    const started = { child, dir, baseUrl: `http://127.0.0.1:${port}`, stderr: () => stderr };
    prometheus = started;
    await Promise.race([
      spawnError,
      eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
          return (await fetch(`${started.baseUrl}/-/ready`)).ok ? true : undefined;
        },
        30000,
        'prometheus to be ready',
      ),
    ]);
    return started;
  }

  async function query(base: string, promql: string): Promise<PromSeries[]> {
    const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data?: { result: PromSeries[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
    return body.data?.result ?? [];
  }

  it('serves the key series on the management port, where Prometheus scrapes them', async () => {
    const bus = role.runtime.bus;
    await bus.transaction(async (uow) => {
      for (let seq = 0; seq < 5; seq++) await uow.publish(ping, { key: `ok-${seq}`, seq });
      await uow.publish(ping, { key: 'flaky', seq: 5 });
      await uow.publish(ping, { key: 'refused', seq: 6 });
    });
    const target = (role.healthUrl ?? '').replace(/^http:\/\//, '');
    expect(target).toMatch(/^127\.0\.0\.1:\d+$/);
    // The role's own endpoint first: every message handled, one retried, one dead-lettered.
    const text = await eventually(
      async () => {
        const t = await (await fetch(`${role.healthUrl}/metrics`)).text();
        return t.includes(`aoc_bus_dead_letters_total{role="router",topic="${ping.name}",code="BUS.HANDLER_REJECTED"} 1`) &&
          new RegExp(`aoc_bus_handler_duration_seconds_count\\{role="router",topic="${ping.name.replace(/\./g, '\\.')}",outcome="processed"\\} 6`).test(t)
          ? t
          : undefined;
      },
      60000,
      'the handled messages in /metrics',
    );
    expect(text).toContain(`aoc_bus_retries_total{role="router",topic="${ping.name}",code="TEST.FLAKY"} 1`);

    const prom = await startPrometheus(target);
    const base = prom.baseUrl;
    await eventually(async () => ((await query(base, 'up{job="aoc-router"} == 1')).length === 1 ? true : undefined), 30000, `a successful scrape (${prom.stderr()})`);
    const topic = `topic="${ping.name}"`;
    const expectations: [string, (r: PromSeries[]) => boolean][] = [
      [`aoc_bus_handler_duration_seconds_count{role="router",${topic},outcome="processed"}`, (r) => r.length === 1 && r[0].value[1] === '6'],
      [`aoc_bus_handler_duration_seconds_bucket{role="router",${topic},outcome="processed",le="+Inf"}`, (r) => r.length === 1 && r[0].value[1] === '6'],
      [`aoc_bus_handler_duration_seconds_count{role="router",${topic},outcome="dead_lettered"}`, (r) => r.length === 1 && r[0].value[1] === '1'],
      [`aoc_bus_retries_total{role="router",${topic},code="TEST.FLAKY"}`, (r) => r.length === 1 && r[0].value[1] === '1'],
      [`aoc_bus_dead_letters_total{role="router",${topic},code="BUS.HANDLER_REJECTED"}`, (r) => r.length === 1 && r[0].value[1] === '1'],
      ['aoc_bus_outbox_backlog{role="router"}', (r) => r.length === 1 && r[0].value[1] === '0'],
      // Kafka lag per partition of the consumer group, back to zero once everything is handled.
      [`aoc_bus_consumer_lag{role="router",${topic},consumer_group="aoc.router.metrics${TAG}"}`, (r) => r.length >= 1 && r.every((s) => s.value[1] === '0' && /^\d+$/.test(s.metric['partition'] ?? ''))],
    ];
    for (const [promql, ok] of expectations) {
      await eventually(async () => (ok(await query(base, promql)) ? true : undefined), 30000, `${promql} in Prometheus`);
    }
    // Every aoc_ series in Prometheus carries only declared label keys (plus Prometheus' job and instance) and identifier values.
    const all = await query(base, '{__name__=~"aoc_.+"}');
    expect(all.length).toBeGreaterThan(5);
    const allowed = new Set(['__name__', 'job', 'instance', 'role', 'topic', 'outcome', 'code', 'consumer_group', 'partition', 'le', 'package', 'agent_role', 'type', 'decision', 'verdict']);
    for (const s of all) {
      for (const [k, v] of Object.entries(s.metric)) {
        expect(allowed.has(k)).toBe(true);
        if (k !== 'instance' && k !== 'le') expect(v).toMatch(/^@?[A-Za-z0-9_][A-Za-z0-9_.\-/]*$/);
      }
    }
    expect(JSON.stringify(all)).not.toMatch(/SELECT|db slow|try again/);

    // Every query of the Grafana dashboard is valid PromQL; the bus panels show this role's series.
    const dashboard = JSON.parse(readFileSync(join(__dirname, '../../../deploy/grafana/auto-oncall.json'), 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const grafana = (expr: string) => expr.replace(/\$__rate_interval/g, '1m').replace(/\$__range/g, '1h').replace(/\$role/g, '.*');
    for (const panel of dashboard.panels) {
      for (const t of panel.targets ?? []) {
        const expr = grafana(t.expr);
        await query(base, expr);
        // rate() and increase() need two samples of the series: wait for the next scrape if need be.
        if (['Messages handled by outcome', 'Consumer lag', 'Outbox backlog', 'Dead letters by code', 'Retries by code'].includes(panel.title)) {
          await eventually(async () => ((await query(base, expr)).length > 0 ? true : undefined), 20000, `the dashboard's "${panel.title}" series`);
        }
      }
    }
  }, 150000);
});
