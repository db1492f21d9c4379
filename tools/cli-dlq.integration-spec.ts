import { randomUUID } from 'node:crypto';
import { Bus, KafkaTransport, PostgresBusStore, busTablesDdl, contractsViewOf, type BusLogger } from '@aoc/bus';
import { defineTopic, dlqTopicOf } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { createServiceDataSource } from '@aoc/persistence';
import { Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { dlqKafkaOf, parseDlqArgs, runDlqCommand, type DlqKafka } from './cli-dlq';

// `aoc dlq` against the real broker (admin principal) and Postgres: a message a consumer group
// dead-letters is listed without its text, replayed once to that group only, and not twice.

const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
const admin = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };
const env = { KAFKA_BROKERS: brokers.join(','), AOC_KAFKA_ADMIN_PASSWORD: admin.password };
const TICKET_TEXT = 'Ticket text: our orders database stalls every morning while the nightly export still runs';

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('aoc dlq on Kafka', () => {
  const tag = randomUUID().slice(0, 8);
  const ping = defineTopic({
    baseName: `t${tag}.dlqcli`,
    version: 1,
    description: 'aoc dlq integration test',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string(), seq: z.number().int(), description: z.string() }),
    producers: ['router'],
    consumers: ['router'],
    partitions: 2,
  });
  const schema = `dlq_cli_${tag}`;
  const kafkaAdmin = new Kafka({ clientId: 'aoc-test-dlq', brokers, sasl: { mechanism: 'plain', ...admin }, logLevel: logLevel.NOTHING }).admin();
  const logs: string[] = [];
  const logger: BusLogger = {
    info: (m, f) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    warn: (m, f) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    error: (m, f) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`),
  };
  let ds: DataSource;
  let kafka: DlqKafka;
  const buses: Bus[] = [];

  beforeAll(async () => {
    await kafkaAdmin.connect();
    await kafkaAdmin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: ping.name, numPartitions: 2, replicationFactor: 1 },
        { topic: dlqTopicOf(ping.name), numPartitions: 1, replicationFactor: 1 },
      ],
    });
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('DATABASE_URL must point at a real Postgres');
    ds = createServiceDataSource({ url, schema: 'public', poolSize: 4 });
    await ds.initialize();
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);
    kafka = dlqKafkaOf(parseDlqArgs(['list'], env));
  }, 60_000);

  afterAll(async () => {
    for (const b of buses) await b.stop();
    await kafka?.disconnect();
    await ds?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds?.destroy();
    await kafkaAdmin.deleteTopics({ topics: [ping.name, dlqTopicOf(ping.name)] }).catch(() => undefined);
    await kafkaAdmin.disconnect();
  }, 60_000);

  function makeBus(): Bus {
    const bus = new Bus({
      role: 'router',
      transport: new KafkaTransport({ clientId: `aoc-test-dlq-${tag}`, brokers, sasl: admin, redeliveryDelayMs: 20, sessionTimeoutMs: 6000 }),
      store: new PostgresBusStore(ds, schema),
      publishes: [ping],
      contracts: contractsViewOf([ping]),
      retry: { maxAttempts: 2, initialDelayMs: 10, maxDelayMs: 20 },
      relayIntervalMs: 100,
      logger,
    });
    buses.push(bus);
    return bus;
  }

  it('lists a dead letter without its ticket text, replays it to its group once, and skips it the second time', async () => {
    let broken = true;
    const failing: number[] = [];
    const healthy: number[] = [];
    const bus = makeBus();
    bus.subscribe(ping, async (p) => {
      if (broken) throw new PermanentError('TEST.CANNOT_READ', `cannot read "${p.description}"`);
      failing.push(p.seq);
    }, { groupSuffix: `dlq-${tag}-failing` });
    bus.subscribe(ping, async (p) => void healthy.push(p.seq), { groupSuffix: `dlq-${tag}-healthy` });
    await bus.start();
    await bus.transaction((uow) => uow.publish(ping, { key: 'SUP-42', seq: 1, description: TICKET_TEXT }));

    const listed = await eventually(async () => {
      const r = await runDlqCommand(parseDlqArgs(['list', '--topic', ping.name], env), kafka);
      return (r.json as { deadLetters: unknown[] }).deadLetters.length === 1 ? r : undefined;
    }, 60_000, 'the dead letter');
    const id = `${dlqTopicOf(ping.name)}:0:0`;
    const text = listed.lines.join('\n');
    expect(text).toContain(`${id}  `);
    expect(text).toMatch(new RegExp(`${ping.name.replace(/\./g, '\\.')}  partition 0 offset 0  BUS.HANDLER_REJECTED  group aoc.router.dlq-${tag}-failing  run -  attempts 1  replayable`));
    expect(text).toContain('    reason: TEST.CANNOT_READ: cannot read "…(89 chars)"');
    for (const out of [text, JSON.stringify(listed.json), ...logs]) expect(out).not.toContain('nightly export');
    expect(logs.some((l) => l.startsWith('message dead-lettered'))).toBe(true);
    expect(healthy).toEqual([1]);

    const dry = await runDlqCommand(parseDlqArgs(['replay', id, '--dry-run'], env), kafka);
    expect(dry.lines.at(-1)).toBe('1 to replay, 0 skipped (dry run: nothing sent)');

    broken = false;
    const replayed = await runDlqCommand(parseDlqArgs(['replay', id], env), kafka);
    expect(replayed.lines[0]).toMatch(new RegExp(`^replayed ${id.replace(/\./g, '\\.')} to ${ping.name.replace(/\./g, '\\.')} \\(message [0-9a-f-]{36}, handled again by aoc.router.dlq-${tag}-failing only\\)$`));
    await eventually(() => (failing.length === 1 ? true : undefined), 60_000, 'the replay handled');

    const again = await runDlqCommand(parseDlqArgs(['replay', '--topic', ping.name], env), kafka);
    expect(again.lines[0]).toMatch(new RegExp(`^skipped ${id.replace(/\./g, '\\.')}: already replayed at `));
    // A later message proves both groups moved past the replay: the healthy group ignored it, the failing one handled it once.
    await bus.transaction((uow) => uow.publish(ping, { key: 'SUP-42', seq: 2, description: 'next' }));
    await eventually(() => (failing.includes(2) && healthy.includes(2) ? true : undefined), 60_000, 'the next message');
    expect(failing).toEqual([1, 2]);
    expect(healthy).toEqual([1, 2]);
    const after = await runDlqCommand(parseDlqArgs(['list', '--topic', ping.name], env), kafka);
    expect(after.lines.join('\n')).toContain('1 dead letter on 1 DLQ topic (1 replayed)');
    for (const out of [after.lines.join('\n'), ...logs]) expect(out).not.toContain('nightly export');
  }, 180_000);
});
