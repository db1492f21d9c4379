// Bus benchmark: the Kafka floor (raw kafkajs) and the bus on Kafka with a real Postgres.
import { connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { dlqTopicOf } from '@aoc/contracts';
import { Bus, busTablesDdl, contractsViewOf, KafkaTransport, PostgresBusStore } from '@aoc/bus';
import { createServiceDataSource } from '@aoc/persistence';
import { ADMIN_SASL, DATABASE_URL, KAFKA, KAFKA_BROKERS, PARTITIONS, RUN_TAG, progress } from './config';
import { Cleanup, errorText, inPhase, releaseIfLate, sleep, withTimeout } from './phase';
import { Sink } from './sink';
import { ROLE, benchTopic, floorSeq, floorValue, keyOf } from './bench-topics';
import { instrument } from './sql-stats';
import { measure, reserve, type Result } from './measure';
import { runBus } from './in-process';

export function hostPort(broker: string): { host: string; port: number } {
  const i = broker.lastIndexOf(':');
  return { host: broker.slice(0, i), port: Number(broker.slice(i + 1)) };
}

export function tcpProbe(host: string, port: number, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TCP answer from ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(`cannot connect to ${host}:${port}: ${errorText(error)}`));
    });
  });
}

/** Publishes probe messages until one is consumed (consumer group joined), then drains them. */
export async function awaitFirstDelivery(name: string, sink: Sink, publishOne: (seq: number) => Promise<void>): Promise<void> {
  progress(`${name}: waiting for the consumer group to join (probe messages until one arrives)`);
  await inPhase(`${name} consumer group join`, async (phase) => {
    const maxProbes = 1000;
    const lo = reserve(maxProbes);
    const first = sink.range(lo, lo + maxProbes, 1);
    let arrived = false;
    void first.then(() => (arrived = true));
    let sent = 0;
    const t0 = performance.now();
    while (!arrived && sent < maxProbes) {
      await phase.wait(publishOne(lo + sent), `publish of join probe ${sent + 1}`);
      sent++;
      await phase.wait(Promise.race([first, sleep(1000)]), 'first delivery');
    }
    await phase.wait(sink.range(lo, lo + sent), () => `delivery of all ${sent} join probes (${sink.countIn(lo, lo + sent)} arrived)`);
    progress(`${name}: first delivery after ${((performance.now() - t0) / 1000).toFixed(1)} s (${sent} probe(s))`);
  });
}

/** A part that failed after measuring something: keeps what it measured. */
export class PartialFailure extends Error {
  constructor(
    readonly reason: unknown,
    readonly results: Result[],
    readonly notes: string[],
  ) {
    super(errorText(reason));
    this.name = 'PartialFailure';
  }
}

export interface KafkaOutcome {
  results: Result[];
  notes: string[];
}

export async function kafkaPart(): Promise<KafkaOutcome> {
  const notes: string[] = [];
  const results: Result[] = [];
  const cleanup = new Cleanup();
  try {
    const { host, port } = hostPort(KAFKA_BROKERS[0]);
    try {
      await tcpProbe(host, port);
    } catch (error) {
      notes.push(`kafka: SKIPPED (floor and bus): broker ${KAFKA_BROKERS.join(',')} unreachable: ${errorText(error)}`);
      return { results, notes };
    }
    const kafka = new Kafka({
      clientId: `aoc-bench-${RUN_TAG}`,
      brokers: KAFKA_BROKERS,
      sasl: { mechanism: 'plain', ...ADMIN_SASL },
      ssl: false,
      connectionTimeout: 5000,
      requestTimeout: 15000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
      logLevel: logLevel.NOTHING,
    });
    const admin: Admin = kafka.admin();
    try {
      await withTimeout(admin.connect(), 20_000, 'kafka admin connect');
    } catch (error) {
      await admin.disconnect().catch(() => undefined);
      notes.push(`kafka: SKIPPED (floor and bus): cannot connect as ${ADMIN_SASL.username} to ${KAFKA_BROKERS.join(',')}: ${errorText(error)}`);
      return { results, notes };
    }
    cleanup.add('disconnect kafka admin', () => admin.disconnect());

    const floorTopic = `aoc.bench${RUN_TAG}.kafka-floor.ping.v1`;
    const busTopic = benchTopic('kafka');
    const floorGroup = `aoc.bench.${RUN_TAG}.floor`;
    const busGroup = `aoc.${ROLE}.bench${RUN_TAG}`;
    progress(`kafka: creating private topics ${floorTopic}, ${busTopic.name} (${PARTITIONS} partitions each)`);
    await inPhase('kafka topic creation', (phase) =>
      phase.wait(
        admin.createTopics({
          waitForLeaders: true,
          topics: [
            { topic: floorTopic, numPartitions: PARTITIONS, replicationFactor: 1 },
            { topic: busTopic.name, numPartitions: PARTITIONS, replicationFactor: 1 },
            { topic: dlqTopicOf(busTopic.name), numPartitions: 1, replicationFactor: 1 },
          ],
        }),
        'admin.createTopics()',
      ),
    );
    cleanup.add('delete private kafka topics and groups', async () => {
      await admin.deleteGroups([floorGroup, busGroup]).catch(() => undefined);
      await admin.deleteTopics({ topics: [floorTopic, busTopic.name, dlqTopicOf(busTopic.name)], timeout: 10_000 });
    });

    results.push(await kafkaFloor(kafka, floorTopic, floorGroup));

    // Bus on Kafka needs a real Postgres.
    const ds = createServiceDataSource({ url: DATABASE_URL, schema: 'public', poolSize: 5, applicationName: 'aoc-bench' });
    const sql = instrument(ds);
    const initializing = ds.initialize();
    try {
      await withTimeout(initializing, 15_000, 'postgres connect');
    } catch (error) {
      releaseIfLate(initializing, (late) => late.destroy());
      notes.push(`kafka bus: SKIPPED: Postgres at ${redactUrl(DATABASE_URL)} unreachable: ${errorText(error)}`);
      return { results, notes };
    }
    cleanup.add('close postgres data source', () => ds.destroy());
    const schema = `bench_${RUN_TAG}`;
    cleanup.add(`drop schema ${schema}`, () => ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);

    const transport = new KafkaTransport({ clientId: `aoc-bench-bus-${RUN_TAG}`, brokers: KAFKA_BROKERS, sasl: ADMIN_SASL });
    const store = new PostgresBusStore(ds, schema);
    const bus = new Bus({
      role: ROLE,
      transport,
      store,
      publishes: [busTopic],
      contracts: contractsViewOf([busTopic]),
    });
    cleanup.add('stop kafka bus', () => bus.stop());
    results.push(await runBus('kafka', bus, store, busTopic, new Sink(), ds, sql, KAFKA, true));
    return { results, notes };
  } catch (error) {
    // Keep what was measured so far; the caller reports the failure.
    throw new PartialFailure(error, results, notes);
  } finally {
    await cleanup.runAll();
  }
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

export async function kafkaFloor(kafka: Kafka, topic: string, groupId: string): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    const sink = new Sink();
    // Same producer/consumer settings as KafkaTransport, so the difference is the bus itself.
    const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1 });
    cleanup.add('disconnect floor producer', () => producer.disconnect());
    await inPhase('kafka floor producer connect', (phase) => phase.wait(producer.connect(), 'producer.connect()'));
    const consumer: Consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: 10000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 20000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5000 },
    });
    let joinedResolve: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (joinedResolve = resolve));
    const removeListener = consumer.on(consumer.events.GROUP_JOIN, () => joinedResolve());
    cleanup.add('disconnect floor consumer', async () => {
      removeListener();
      await consumer.disconnect();
    });
    progress('kafka floor: connecting consumer and waiting for GROUP_JOIN');
    await inPhase('kafka floor consumer group join', async (phase) => {
      await phase.wait(consumer.connect(), 'consumer.connect()');
      await phase.wait(consumer.subscribe({ topic, fromBeginning: true }), 'consumer.subscribe()');
      await phase.wait(
        consumer.run({
          autoCommit: true,
          partitionsConsumedConcurrently: 3,
          eachMessage: async ({ message }) => sink.arrive(floorSeq(message.value)),
        }),
        'consumer.run()',
      );
      await phase.wait(joined, 'GROUP_JOIN event');
    });
    const send = (seqs: number[]): Promise<void> =>
      producer.send({ topic, acks: -1, messages: seqs.map((seq) => ({ key: keyOf(seq), value: floorValue(seq), headers: {} })) }).then(() => undefined);
    return await measure({ transport: 'kafka', variant: 'floor', sink, publishOne: (seq) => send([seq]), publishBatch: send }, KAFKA);
  } finally {
    await cleanup.runAll();
  }
}
