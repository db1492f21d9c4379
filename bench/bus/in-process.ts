// Bus benchmark: the in-process floor (raw InMemoryBroker) and the bus on it with embedded Postgres.
import type { DataSource } from 'typeorm';
import { Bus, busTablesDdl, contractsViewOf, InMemoryBroker, InMemoryTransport, PostgresBusStore } from '@aoc/bus';
import { createServiceDataSource, startEmbeddedPostgres } from '@aoc/persistence';
import { MEM, PARTITIONS, RUN_TAG, STORE_WARMUP, progress, type Sizes } from './config';
import { Cleanup, inPhase, releaseIfLate } from './phase';
import { Sink } from './sink';
import { ROLE, benchTopic, floorSeq, floorValue, keyOf, type BenchTopic } from './bench-topics';
import { instrument, txRoundTrip, warmStore, type SqlStats } from './sql-stats';
import { measure, type Result, type TransportName } from './measure';
import { awaitFirstDelivery } from './kafka';

export async function inProcessFloor(): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    const broker = new InMemoryBroker();
    cleanup.add('close in-memory broker', async () => broker.close());
    const topic = `aoc.bench${RUN_TAG}.mem-floor.ping.v1`;
    broker.createTopic(topic, PARTITIONS);
    const sink = new Sink();
    const groupId = `aoc.${ROLE}.bench-floor`;
    const memberId = broker.join(groupId, [topic], async (raw) => sink.arrive(floorSeq(raw.value)));
    cleanup.add('leave floor group', async () => broker.leave(groupId, memberId));
    return await measure(
      {
        transport: 'in-process',
        variant: 'floor',
        sink,
        publishOne: async (seq) => broker.append(topic, [{ key: keyOf(seq), value: floorValue(seq), headers: {} }]),
        publishBatch: async (seqs) => broker.append(topic, seqs.map((seq) => ({ key: keyOf(seq), value: floorValue(seq), headers: {} }))),
      },
      MEM,
    );
  } finally {
    await cleanup.runAll();
  }
}

export async function runBus(
  transportName: TransportName,
  bus: Bus,
  store: PostgresBusStore,
  topic: BenchTopic,
  sink: Sink,
  ds: DataSource,
  sql: SqlStats,
  sizes: Sizes,
  waitForJoin: boolean,
): Promise<Result> {
  progress(`${transportName} bus: store warm-up, ${STORE_WARMUP} outbox/relay/inbox cycles`);
  const warmup = await inPhase(`${transportName} store warm-up`, (phase) => warmStore(store, STORE_WARMUP, phase));
  bus.subscribe(topic, async (payload) => sink.arrive(payload.seq), { groupSuffix: `bench${RUN_TAG}` });
  await inPhase(`${transportName} bus start`, (phase) => phase.wait(bus.start(), 'bus.start()'));
  const publishOne = (seq: number): Promise<void> => bus.transaction((uow) => uow.publish(topic, { key: keyOf(seq), seq }));
  if (waitForJoin) await awaitFirstDelivery(`${transportName} bus`, sink, publishOne);
  const pgRoundTrip = await inPhase(`${transportName} postgres round trip`, (phase) => txRoundTrip(ds, phase));
  const result = await measure(
    {
      transport: transportName,
      variant: 'bus',
      sink,
      sql,
      publishOne,
      publishBatch: (seqs) =>
        bus.transaction(async (uow) => {
          for (const seq of seqs) await uow.publish(topic, { key: keyOf(seq), seq });
        }),
    },
    sizes,
  );
  return { ...result, pgRoundTrip, warmup };
}

export async function inProcessBus(): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    progress('in-process bus: starting embedded Postgres (PGlite)');
    const starting = startEmbeddedPostgres();
    const pg = await inPhase('start PGlite', (phase) => phase.wait(starting, 'startEmbeddedPostgres()')).catch((error: unknown) => {
      releaseIfLate(starting, (late) => late.stop());
      throw error;
    });
    cleanup.add('stop PGlite', () => pg.stop());
    const ds = createServiceDataSource({ url: pg.url, schema: 'public', poolSize: 1, applicationName: 'aoc-bench' });
    const sql = instrument(ds);
    cleanup.add('close PGlite data source', async () => {
      if (ds.isInitialized) await ds.destroy();
    });
    const initializing = ds.initialize();
    await inPhase('connect to PGlite', (phase) => phase.wait(initializing, 'DataSource.initialize()')).catch((error: unknown) => {
      releaseIfLate(initializing, (late) => late.destroy());
      throw error;
    });
    const schema = `bench_${RUN_TAG}`;
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);

    const broker = new InMemoryBroker();
    cleanup.add('close in-memory broker', async () => broker.close());
    const topic = benchTopic('mem');
    broker.createTopic(topic.name, topic.partitions);
    const sink = new Sink();
    const store = new PostgresBusStore(ds, schema);
    const bus = new Bus({
      role: ROLE,
      transport: new InMemoryTransport(broker),
      store,
      publishes: [topic],
      contracts: contractsViewOf([topic]),
    });
    cleanup.add('stop in-process bus', () => bus.stop());
    return await runBus('in-process', bus, store, topic, sink, ds, sql, MEM, false);
  } finally {
    await cleanup.runAll();
  }
}
