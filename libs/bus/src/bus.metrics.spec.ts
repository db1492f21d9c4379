import { randomUUID } from 'node:crypto';
import { PermanentError, TransientError } from '@aoc/errors';
import { metricsSnapshot, shutdownMetrics, startMetrics, type MetricPoint } from '@aoc/telemetry';
import { eventually } from '../test/bus-contract.suite';
import { MemoryHarness } from '../test/memory-harness';
import { testTopics } from '../test/test-topics';
import { Bus, PostgresBusStore, busTablesDdl, contractsViewOf, type Transport } from './index';

const harness = new MemoryHarness();
const runTag = randomUUID().slice(0, 8);
const topics = testTopics(runTag);
const contracts = contractsViewOf(topics.all);
const schema = `bus_metrics_${runTag}`;
const buses: Bus[] = [];

beforeAll(async () => {
  await harness.setup();
  await harness.createTopics(topics.all);
  for (const ddl of busTablesDdl(schema)) await harness.dataSource().query(ddl);
  startMetrics({ serviceName: 'aoc-bus-test' });
}, 60000);

afterEach(async () => {
  for (const b of buses.splice(0)) await b.stop();
});

afterAll(async () => {
  await shutdownMetrics();
  await harness.teardown();
});

function makeBus(transport: Transport = harness.transport()): Bus {
  const bus = new Bus({
    role: 'router',
    transport,
    store: new PostgresBusStore(harness.dataSource(), schema),
    publishes: [topics.ping, topics.pong],
    contracts,
    retry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
    relayIntervalMs: 50,
  });
  buses.push(bus);
  return bus;
}

const series = (points: MetricPoint[], name: string, labels: Record<string, string>) =>
  points.filter((p) => p.name === name && Object.entries(labels).every(([k, v]) => p.labels[k] === v));
const valueOf = (points: MetricPoint[], name: string, labels: Record<string, string>) => series(points, name, labels).reduce((n, p) => n + p.value, 0);

describe('bus metrics', () => {
  it('records handler duration and outcome per topic, retries by code and dead letters by code', async () => {
    const bus = makeBus();
    bus.subscribe(topics.ping, async (p, ctx) => {
      if (p.key === 'flaky' && ctx.attempt < 2) throw new TransientError('TEST.FLAKY', 'try again');
      if (p.key === 'refused') throw new PermanentError('TEST.REFUSED', 'no, and here is ticket text: the db is slow');
    }, { groupSuffix: 'm1' });
    await bus.start();
    await bus.transaction(async (uow) => {
      await uow.publish(topics.ping, { key: 'fine', seq: 1 });
      await uow.publish(topics.ping, { key: 'flaky', seq: 2 });
      await uow.publish(topics.ping, { key: 'refused', seq: 3 });
    });
    await harness.rawSend(topics.ping.name, [{ key: 'bad', value: '{"not json', headers: {} }]);
    const points = await eventually(async () => {
      const p = await metricsSnapshot();
      return valueOf(p, 'aoc_bus_dead_letters', { topic: topics.ping.name }) === 2 && valueOf(p, 'aoc_bus_handler_duration_seconds', { topic: topics.ping.name }) === 3 ? p : undefined;
    }, 20000, 'the metrics of four messages');
    const labels = { role: 'router', topic: topics.ping.name };
    expect(valueOf(points, 'aoc_bus_handler_duration_seconds', { ...labels, outcome: 'processed' })).toBe(2);
    expect(valueOf(points, 'aoc_bus_handler_duration_seconds', { ...labels, outcome: 'dead_lettered' })).toBe(1);
    expect(series(points, 'aoc_bus_handler_duration_seconds', { ...labels, outcome: 'processed' })[0].sum).toBeGreaterThan(0);
    expect(valueOf(points, 'aoc_bus_retries', { ...labels, code: 'TEST.FLAKY' })).toBe(1);
    expect(valueOf(points, 'aoc_bus_dead_letters', { ...labels, code: 'BUS.HANDLER_REJECTED' })).toBe(1);
    expect(valueOf(points, 'aoc_bus_dead_letters', { ...labels, code: 'BUS.MALFORMED_JSON' })).toBe(1);
    // Labels are the declared keys only, with identifier values: never the reason's text.
    for (const p of points.filter((x) => x.name.startsWith('aoc_bus_'))) {
      for (const v of Object.values(p.labels)) expect(v).toMatch(/^[A-Za-z0-9_.@/-]+$/);
    }
  }, 30000);

  it('reports consumer lag per topic and partition while a handler is behind, and zero once it caught up', async () => {
    const bus = makeBus();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let handled = 0;
    bus.subscribe(topics.ping, async (p) => {
      if (p.key === 'slow') await gate;
      if (p.key === 'slow') handled++;
    }, { groupSuffix: 'm2' });
    await bus.start();
    // The group starts from the beginning of the topic: let it drain what earlier tests left.
    await eventually(async () => (series(await metricsSnapshot(), 'aoc_bus_consumer_lag', { consumer_group: 'aoc.router.m2' }).every((p) => p.value === 0) ? true : undefined), 20000, 'a drained group');
    await bus.transaction(async (uow) => {
      for (let seq = 0; seq < 3; seq++) await uow.publish(topics.ping, { key: 'slow', seq });
    });
    const behind = await eventually(async () => {
      const p = series(await metricsSnapshot(), 'aoc_bus_consumer_lag', { role: 'router', consumer_group: 'aoc.router.m2', topic: topics.ping.name });
      return p.some((x) => x.value === 3) ? p : undefined;
    }, 20000, 'lag of 3');
    const partition = behind.find((x) => x.value === 3)?.labels['partition'];
    expect(partition).toMatch(/^\d+$/);
    // One series per partition the member owns (ping has 6).
    expect(behind).toHaveLength(topics.ping.partitions);
    release();
    await eventually(() => (handled === 3 ? true : undefined), 20000, 'three slow messages');
    const after = await eventually(async () => {
      const p = series(await metricsSnapshot(), 'aoc_bus_consumer_lag', { consumer_group: 'aoc.router.m2', partition: partition as string });
      return p.length === 1 && p[0].value === 0 ? p : undefined;
    }, 20000, 'lag back to 0');
    expect(after[0].value).toBe(0);
    await bus.stop();
    // A stopped bus reports nothing.
    expect(series(await metricsSnapshot(), 'aoc_bus_consumer_lag', { consumer_group: 'aoc.router.m2' })).toEqual([]);
  }, 40000);

  it('reports the outbox backlog: rows committed and not yet relayed', async () => {
    const inner = harness.transport();
    let down = true;
    const transport: Transport = {
      kind: 'memory',
      connect: () => inner.connect(),
      disconnect: () => inner.disconnect(),
      subscribe: (options) => inner.subscribe(options),
      send: async (topic, messages) => {
        if (down) throw new Error('broker unreachable');
        return inner.send(topic, messages);
      },
    };
    const bus = makeBus(transport);
    await bus.start();
    await bus.transaction(async (uow) => {
      await uow.publish(topics.pong, { key: 'held', seq: 1 });
      await uow.publish(topics.pong, { key: 'held', seq: 2 });
    });
    const backlog = async () => valueOf(await metricsSnapshot(), 'aoc_bus_outbox_backlog', { role: 'router' });
    expect(await backlog()).toBeGreaterThanOrEqual(2);
    down = false;
    await bus.flush();
    expect(await eventually(async () => ((await backlog()) === 0 ? 0 : undefined), 20000, 'an empty outbox')).toBe(0);
  }, 30000);
});
