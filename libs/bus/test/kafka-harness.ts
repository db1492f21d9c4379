import { randomUUID } from 'node:crypto';
import { dlqTopicOf } from '@aoc/contracts';
import { createServiceDataSource } from '@aoc/persistence';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { KafkaTransport, type RawMessage } from '../src';
import { eventually, type BusHarness } from './bus-contract.suite';

export const kafkaBrokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
export const adminSasl = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };

export function requireDatabaseUrl(): string {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL must point at a real Postgres for integration tests (see README)');
  return url;
}

/** Real Kafka broker (admin principal) + real Postgres. */
export class KafkaHarness implements BusHarness {
  private readonly kafka = new Kafka({ clientId: 'aoc-test-harness', brokers: kafkaBrokers, sasl: { mechanism: 'plain', ...adminSasl }, logLevel: logLevel.NOTHING });
  private readonly collectors = new Map<string, { consumer: Consumer; messages: RawMessage[] }>();
  private readonly transports: KafkaTransport[] = [];
  private ds: DataSource | null = null;
  private sender: KafkaTransport | null = null;

  async setup(): Promise<void> {
    this.ds = createServiceDataSource({ url: requireDatabaseUrl(), schema: 'public', poolSize: 5 });
    await this.ds.initialize();
    this.sender = this.transport();
    await this.sender.connect();
  }

  async teardown(): Promise<void> {
    for (const c of this.collectors.values()) await c.consumer.disconnect();
    for (const t of this.transports) await t.disconnect();
    await this.ds?.destroy();
  }

  transport(): KafkaTransport {
    const t = new KafkaTransport({ clientId: `aoc-test-${randomUUID().slice(0, 6)}`, brokers: kafkaBrokers, sasl: adminSasl, redeliveryDelayMs: 20, sessionTimeoutMs: 6000 });
    this.transports.push(t);
    return t;
  }

  async rawSend(topic: string, messages: { key: string | null; value: string; headers: Record<string, string> }[]): Promise<void> {
    await (this.sender as KafkaTransport).send(topic, messages);
  }

  async readUntil(topic: string, done: (m: RawMessage[]) => boolean, timeoutMs = 30000): Promise<RawMessage[]> {
    let collector = this.collectors.get(topic);
    if (!collector) {
      const consumer = this.kafka.consumer({ groupId: `aoc.test-reader.${randomUUID()}` });
      const messages: RawMessage[] = [];
      collector = { consumer, messages };
      this.collectors.set(topic, collector);
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(Array.isArray(v) ? v[0] : v);
          messages.push({ topic, partition, offset: message.offset, key: message.key?.toString() ?? null, value: message.value ?? Buffer.alloc(0), headers });
        },
      });
    }
    const c = collector;
    return eventually(() => (done(c.messages) ? [...c.messages] : undefined), timeoutMs, `messages on ${topic}`);
  }

  async createTopics(topics: { name: string; partitions: number }[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: topics.flatMap((t) => [
          { topic: t.name, numPartitions: t.partitions, replicationFactor: 1 },
          { topic: dlqTopicOf(t.name), numPartitions: 1, replicationFactor: 1 },
        ]),
      });
    } finally {
      await admin.disconnect();
    }
  }

  dataSource(): DataSource {
    if (!this.ds) throw new Error('harness not set up');
    return this.ds;
  }
}
