/**
 * Broker-side role boundaries (DESIGN.md section 3, "enforced twice", second half): on the real
 * local broker (deploy/local/kafka-start.sh), with the ACLs provisioned from the role/topic
 * matrix, each role principal can do exactly what the matrix grants and nothing else.
 *
 *   bash deploy/local/kafka-start.sh
 *   npx jest --config deploy/test/jest.config.js
 *
 * Matrix: AOC_KAFKA_ACL_MATRIX, else deploy/kafka/acl-matrix.generated.json, else the sample.
 * Credentials: AOC_KAFKA_PASSWORD_<ROLE> / AOC_KAFKA_ADMIN_PASSWORD or the local defaults,
 * exactly like kafka-start.sh. The suite fails (never skips) when the broker is unreachable.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Consumer,
  type LogEntry,
  type Producer,
  type RecordMetadata,
} from 'kafkajs';
import { z } from 'zod';
import {
  adminCredentials,
  brokerAddresses,
  loadMatrix,
  principalCredentials,
  resolveMatrixPath,
  type MatrixPrincipal,
  type SaslPlainCredentials,
} from '../local/kafka-matrix';

const DIAGNOSIS_PREFIXES = ['aoc.scenario.', 'aoc.diagnosis.', 'aoc.run.'] as const;
const EXECUTION_RECORDED = 'aoc.run.execution-recorded.v1';
const RUN_ID = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;

const matrixPath = resolveMatrixPath(process.env.AOC_KAFKA_ACL_MATRIX);
const matrix = loadMatrix(matrixPath);
const topicNames = matrix.topics.map((t) => t.name);

function principalOf(role: string): MatrixPrincipal {
  const p = matrix.principals.find((x) => x.role === role);
  if (!p) throw new Error(`role "${role}" is missing from ${matrixPath}`);
  return p;
}

// ---------------------------------------------------------------------------------------------
// kafkajs error identification
// ---------------------------------------------------------------------------------------------

/**
 * kafkajs's own protocol error table (type <-> code <-> message). Needed because kafkajs turns a
 * GROUP_AUTHORIZATION_FAILED answer to FindCoordinator into a bare KafkaJSGroupCoordinatorNotFound;
 * the protocol error survives only in the connection's error log entry (as its message).
 */
const kafkajsErrorTable = z
  .object({ errorCodes: z.array(z.object({ type: z.string(), code: z.number(), message: z.string() })) })
  .parse(createRequire(__filename)('kafkajs/src/protocol/error'));
function protocolError(type: string): { type: string; code: number; message: string } {
  const e = kafkajsErrorTable.errorCodes.find((x) => x.type === type);
  if (!e) throw new Error(`kafkajs has no protocol error ${type}`);
  return e;
}
const TOPIC_AUTHZ = protocolError('TOPIC_AUTHORIZATION_FAILED');
const GROUP_AUTHZ = protocolError('GROUP_AUTHORIZATION_FAILED');

/** Every `type`/`code` on an error and its causes (KafkaJSNonRetriableError wraps the protocol error). */
function protocolErrorsIn(err: unknown): { types: string[]; codes: number[] } {
  const types: string[] = [];
  const codes: number[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown): void => {
    if (typeof e !== 'object' || e === null || seen.has(e)) return;
    seen.add(e);
    const rec = e as Record<string, unknown>;
    if (typeof rec.type === 'string') types.push(rec.type);
    if (typeof rec.code === 'number') codes.push(rec.code);
    visit(rec.cause);
    visit(rec.originalError);
    if (Array.isArray(rec.errors)) rec.errors.forEach(visit);
  };
  visit(err);
  return { types, codes };
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { types } = protocolErrorsIn(err);
  return `${err.name}: ${err.message}${types.length ? ` [${types.join(',')}]` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// clients (one Kafka + one producer per principal, reused; consumers are per attempt)
// ---------------------------------------------------------------------------------------------

interface CapturedLog {
  message: string;
  error: string;
}

interface Client {
  name: string;
  kafka: Kafka;
  logs: CapturedLog[];
  producer?: Producer;
}

const clients = new Map<string, Client>();
const openConsumers = new Set<Consumer>();
let admin: Admin;

function clientFor(creds: SaslPlainCredentials): Client {
  const existing = clients.get(creds.username);
  if (existing) return existing;
  const logs: CapturedLog[] = [];
  const kafka = new Kafka({
    clientId: `aoc-acl-test-${creds.username}`,
    brokers: brokerAddresses(),
    sasl: { mechanism: 'plain', username: creds.username, password: creds.password },
    ssl: false,
    connectionTimeout: 3_000,
    authenticationTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
    // Denials are expected here: keep them out of the output, but keep what we assert on.
    logCreator: () => (entry: LogEntry) => {
      const error: unknown = entry.log.error;
      if (entry.level <= logLevel.WARN && error !== undefined) logs.push({ message: entry.log.message, error: String(error) });
    },
  });
  const client: Client = { name: creds.username, kafka, logs };
  clients.set(creds.username, client);
  return client;
}

const clientOf = (p: MatrixPrincipal): Client => clientFor(principalCredentials(p));

async function producerOf(c: Client): Promise<Producer> {
  if (!c.producer) {
    const producer = c.kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 1, initialRetryTime: 100 },
    });
    await producer.connect();
    c.producer = producer;
  }
  return c.producer;
}

async function produce(c: Client, topic: string, value: string, key = 'acl-test'): Promise<RecordMetadata> {
  const producer = await producerOf(c);
  const [meta] = await producer.send({ topic, acks: -1, timeout: 5_000, messages: [{ key, value, headers: { 'aoc-test-run': RUN_ID } }] });
  return meta;
}

function newConsumer(c: Client, groupId: string): Consumer {
  const consumer = c.kafka.consumer({
    groupId,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
    rebalanceTimeout: 10_000,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
    // retriable errors (e.g. a coordinator still loading) are retried; denials are not retriable
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500, restartOnFailure: async () => false },
  });
  openConsumers.add(consumer);
  return consumer;
}

async function closeConsumer(consumer: Consumer): Promise<void> {
  openConsumers.delete(consumer);
  await consumer.disconnect().catch(() => undefined);
}

let groupSeq = 0;
const groupId = (prefix: string, label: string): string => `${prefix}.acl-test.${RUN_ID}.${label}.${++groupSeq}`;

type ConsumeOutcome = { kind: 'denied'; error: unknown } | { kind: 'fetched' };

/**
 * Tries to consume `topic` in group `group` as client `c`. Resolves with the error that stopped
 * it (subscribe, join or fetch), or `fetched` after the first successful fetch. No timers: the
 * outcome is decided by what the broker answers.
 */
async function attemptConsume(c: Client, topic: string, group: string): Promise<ConsumeOutcome> {
  const consumer = newConsumer(c, group);
  try {
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: false });
    } catch (error) {
      return { kind: 'denied', error };
    }
    return await new Promise<ConsumeOutcome>((resolve) => {
      consumer.on(consumer.events.CRASH, (e) => resolve({ kind: 'denied', error: e.payload.error }));
      consumer.on(consumer.events.FETCH, () => resolve({ kind: 'fetched' }));
      consumer.run({ autoCommit: false, eachMessage: async () => undefined }).catch((error: unknown) => resolve({ kind: 'denied', error }));
    });
  } finally {
    await closeConsumer(consumer);
  }
}

function expectTopicDenied(err: unknown): void {
  const { types, codes } = protocolErrorsIn(err);
  expect({ error: describeError(err), types, codes }).toEqual(
    expect.objectContaining({ types: expect.arrayContaining([TOPIC_AUTHZ.type]), codes: expect.arrayContaining([TOPIC_AUTHZ.code]) }),
  );
}

async function expectProduceDenied(c: Client, topic: string): Promise<void> {
  let outcome: unknown = 'produced';
  try {
    await produce(c, topic, `must-not-land ${RUN_ID}`);
  } catch (error) {
    outcome = error;
  }
  expect(outcome).not.toBe('produced');
  expectTopicDenied(outcome);
}

async function expectConsumeTopicDenied(c: Client, topic: string, group: string): Promise<void> {
  const outcome = await attemptConsume(c, topic, group);
  expect(outcome.kind).toBe('denied');
  if (outcome.kind === 'denied') expectTopicDenied(outcome.error);
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  // Fails the suite (does not skip it) when the broker is down or the admin cannot log in.
  const c = clientFor(adminCredentials(matrix));
  admin = c.kafka.admin({ retry: { retries: 2, initialRetryTime: 200 } });
  try {
    await admin.connect();
    await admin.describeCluster();
  } catch (error) {
    throw new Error(
      `Kafka broker ${brokerAddresses().join(',')} unreachable or admin login failed (${describeError(error)}). ` +
        'Start it with `bash deploy/local/kafka-start.sh`.',
    );
  }
  const existing = new Set(await admin.listTopics());
  const missing = topicNames.filter((t) => !existing.has(t));
  if (missing.length > 0) throw new Error(`topics not provisioned (run deploy/local/kafka-start.sh): ${missing.join(', ')}`);
});

afterAll(async () => {
  await Promise.all([...openConsumers].map(closeConsumer));
  for (const c of clients.values()) await c.producer?.disconnect().catch(() => undefined);
  await admin?.disconnect().catch(() => undefined);
});

describe(`broker ACLs from ${matrixPath.replace(/^.*\/deploy\//, 'deploy/')}`, () => {
  test('matrix covers the boundaries under test', () => {
    expect(matrix.principals.map((p) => p.role)).toEqual(expect.arrayContaining(['evidence', 'judge']));
    expect(topicNames.filter((t) => DIAGNOSIS_PREFIXES.some((p) => t.startsWith(p))).length).toBeGreaterThan(0);
    expect(topicNames).toContain(EXECUTION_RECORDED);
  });

  describe('(a) the evidence principal is denied every diagnosis-side topic', () => {
    const evidence = principalOf('evidence');
    const diagnosisTopics = topicNames.filter((t) => DIAGNOSIS_PREFIXES.some((p) => t.startsWith(p)));

    test.each(diagnosisTopics)('evidence cannot produce to %s', async (topic) => {
      await expectProduceDenied(clientOf(evidence), topic);
    });

    test.each(diagnosisTopics)('evidence cannot consume %s (group under its own prefix)', async (topic) => {
      await expectConsumeTopicDenied(clientOf(evidence), topic, groupId(evidence.consumerGroupPrefix, 'deny'));
    });

    test("evidence cannot join another role's consumer group, even on a topic it may read", async () => {
      const other = matrix.principals.find((p) => p.role !== 'evidence' && !p.consumerGroupPrefix.startsWith(evidence.consumerGroupPrefix));
      const readable = evidence.read[0];
      if (!other || !readable) throw new Error('matrix needs another role and a readable topic for evidence');
      const c = clientOf(evidence);
      const before = c.logs.length;
      const outcome = await attemptConsume(c, readable, groupId(other.consumerGroupPrefix, 'foreign'));
      expect(outcome.kind).toBe('denied');
      // kafkajs reports FindCoordinator's GROUP_AUTHORIZATION_FAILED only through its connection log.
      const protocolErrors = c.logs.slice(before).map((l) => l.error);
      expect(protocolErrors).toContain(GROUP_AUTHZ.message);
    });
  });

  describe('(b) the judge principal is denied the execution record', () => {
    test(`judge cannot consume ${EXECUTION_RECORDED}`, async () => {
      const judge = principalOf('judge');
      await expectConsumeTopicDenied(clientOf(judge), EXECUTION_RECORDED, groupId(judge.consumerGroupPrefix, 'deny'));
    });
  });

  describe('(c) every principal can use exactly what the matrix grants it', () => {
    const writes = matrix.principals.flatMap((p) => p.write.map((t) => [p.role, t] as const));
    test.each(writes)('%s can produce to %s', async (role, topic) => {
      const meta = await produce(clientOf(principalOf(role)), topic, `write-check ${RUN_ID}`);
      expect(meta.errorCode).toBe(0);
    });

    const readers = matrix.principals.filter((p) => p.read.length > 0);
    test.each(readers.map((p) => p.role))(
      '%s can consume every topic it reads (group under its prefix) and commit offsets',
      async (role) => {
        const reader = principalOf(role);
        // 1. a granted writer (or the admin when no role writes the topic) produces a marker
        const expected = new Map<string, { topic: string; partition: number; offset: string }>();
        for (const topic of reader.read) {
          const writer = matrix.principals.find((p) => p.write.includes(topic));
          const c = writer ? clientOf(writer) : clientFor(adminCredentials(matrix));
          const value = `read-check ${RUN_ID} ${role} ${topic}`;
          const meta = await produce(c, topic, value, `acl-test-${role}`);
          expected.set(value, { topic, partition: meta.partition, offset: meta.baseOffset ?? '0' });
        }
        // 2. the reader, in a fresh group under its prefix, seeks right to the markers, consumes
        //    them and commits each one
        const group = groupId(reader.consumerGroupPrefix, 'read');
        const consumer = newConsumer(clientOf(reader), group);
        try {
          await consumer.connect();
          await consumer.subscribe({ topics: reader.read, fromBeginning: false });
          const pending = new Set(expected.keys());
          await new Promise<void>((resolve, reject) => {
            consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
            consumer
              .run({
                autoCommit: false,
                eachMessage: async ({ topic, partition, message }) => {
                  const value = message.value?.toString() ?? '';
                  if (!pending.has(value)) return;
                  await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
                  pending.delete(value);
                  if (pending.size === 0) resolve();
                },
              })
              .catch(reject);
            // run() has created the group synchronously: seeks apply once partitions are assigned
            for (const m of expected.values()) consumer.seek({ topic: m.topic, partition: m.partition, offset: m.offset });
          });
        } finally {
          await closeConsumer(consumer);
        }
        // 3. the commits are on the broker
        for (const m of expected.values()) {
          const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [m.topic] });
          const committed = offsets.partitions.find((p) => p.partition === m.partition)?.offset;
          expect({ topic: m.topic, committed }).toEqual({ topic: m.topic, committed: (BigInt(m.offset) + 1n).toString() });
        }
      },
    );
  });

  describe('(d) and nothing else', () => {
    const deniedWrites = matrix.principals.flatMap((p) => topicNames.filter((t) => !p.write.includes(t)).map((t) => [p.role, t] as const));
    test('no principal can produce to a topic outside its write list', async () => {
      const unexpected: string[] = [];
      for (const [role, topic] of deniedWrites) {
        try {
          await produce(clientOf(principalOf(role)), topic, `must-not-land ${RUN_ID}`);
          unexpected.push(`${role} produced to ${topic}`);
        } catch (error) {
          if (!protocolErrorsIn(error).types.includes(TOPIC_AUTHZ.type)) unexpected.push(`${role} -> ${topic}: ${describeError(error)}`);
        }
      }
      expect(unexpected).toEqual([]);
    });

    const deniedReads = matrix.principals.flatMap((p) => topicNames.filter((t) => !p.read.includes(t)).map((t) => [p.role, t] as const));
    test('no principal can consume a topic outside its read list', async () => {
      const unexpected: string[] = [];
      for (const [role, topic] of deniedReads) {
        const p = principalOf(role);
        const outcome = await attemptConsume(clientOf(p), topic, groupId(p.consumerGroupPrefix, 'deny'));
        if (outcome.kind === 'fetched') unexpected.push(`${role} fetched ${topic}`);
        else if (!protocolErrorsIn(outcome.error).types.includes(TOPIC_AUTHZ.type)) unexpected.push(`${role} <- ${topic}: ${describeError(outcome.error)}`);
      }
      expect(unexpected).toEqual([]);
    });
  });
});
