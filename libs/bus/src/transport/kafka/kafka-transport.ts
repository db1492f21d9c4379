import { Kafka, logLevel, type Consumer, type Producer, type SASLOptions, type LogEntry } from 'kafkajs';
import { MessagesRejectedError, type ConsumerLag, type OutgoingMessage, type SubscribeOptions, type SubscriptionHandle, type Transport } from '../transport';
import { kafkaStartFromDefault, type KafkaStartFrom } from './kafka-start-from';

export interface KafkaTransportOptions {
  clientId: string;
  brokers: string[];
  sasl?: { username: string; password: string };
  /** Partitions of one subscription processed concurrently (ordering stays per partition). */
  partitionsConsumedConcurrently?: number;
  /** Delay before a message whose handler failed is tried again. */
  redeliveryDelayMs?: number;
  sessionTimeoutMs?: number;
  /** How often a handler that is still working tells the group it is alive (kafkajs beats only between messages otherwise). */
  heartbeatWhileHandlingMs?: number;
  /**
   * Where a consumer group without a committed offset starts on a partition: `earliest` (every
   * message the topic still holds) or `latest` (only messages produced after it joined). A group
   * with committed offsets always resumes from them. Defaults to the process setting
   * (`AOC_KAFKA_START_FROM`, see kafka-start-from.ts), itself `earliest`.
   */
  startFrom?: KafkaStartFrom;
  log?: (level: 'error' | 'warn' | 'info' | 'debug', message: string) => void;
}

/** Protocol errors by which a broker refuses the records themselves; anything else may pass on a retry. */
const RECORD_REJECTIONS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE', 'INVALID_REQUIRED_ACKS']);

/** The rejection among an error and the errors kafkajs wrapped in it, if any. */
function recordRejection(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const e = error as { type?: unknown; retriable?: unknown; originalError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.type === 'string' && RECORD_REJECTIONS.has(e.type) && e.retriable !== true) return e.type;
  for (const inner of [e.originalError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = recordRejection(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Where one consumer stands on one partition: the next offset to handle and the partition's end as of the last fetch. */
interface PartitionPosition {
  topic: string;
  partition: number;
  next: number;
  highWatermark: number;
}

function headerValue(v: Buffer | string | (Buffer | string)[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

/**
 * Kafka transport. kafkajs stays inside this file: the rest of the platform sees only the
 * Transport interface, so the client library can be replaced without touching services.
 */
export class KafkaTransport implements Transport {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private producer: Producer | null = null;
  private readonly consumers = new Set<Consumer>();
  /** Per subscription: its group and its position on each partition it fetched from (consumer lag). */
  private readonly positions = new Map<Consumer, { groupId: string; partitions: Map<string, PartitionPosition> }>();

  constructor(private readonly options: KafkaTransportOptions) {
    const sasl: SASLOptions | undefined = options.sasl
      ? { mechanism: 'plain', username: options.sasl.username, password: options.sasl.password }
      : undefined;
    const log = options.log;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      sasl,
      ssl: false,
      connectionTimeout: 5000,
      requestTimeout: 15000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ level, log: entry }: LogEntry) => {
          if (!log) return;
          const lvl = level === logLevel.ERROR ? 'error' : level === logLevel.WARN ? 'warn' : 'info';
          // kafkajs log entries can carry broker addresses; keep only the message text.
          log(lvl, `kafka: ${entry.message}`);
        },
    });
  }

  async connect(): Promise<void> {
    if (this.producer) return;
    const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1 });
    await producer.connect();
    this.producer = producer;
  }

  async disconnect(): Promise<void> {
    for (const c of [...this.consumers]) {
      await c.disconnect().catch(() => undefined);
      this.consumers.delete(c);
      this.positions.delete(c);
    }
    if (this.producer) {
      await this.producer.disconnect().catch(() => undefined);
      this.producer = null;
    }
  }

  async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (!this.producer) await this.connect();
    try {
      await (this.producer as Producer).send({
        topic,
        acks: -1,
        messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
      });
    } catch (error) {
      const rejected = recordRejection(error);
      throw rejected ? new MessagesRejectedError(rejected) : error;
    }
  }

  consumerLag(): ConsumerLag[] {
    const out: ConsumerLag[] = [];
    for (const { groupId, partitions } of this.positions.values()) {
      for (const p of partitions.values()) out.push({ groupId, topic: p.topic, partition: p.partition, lag: Math.max(0, p.highWatermark - p.next) });
    }
    return out;
  }

  async subscribe(options: SubscribeOptions): Promise<SubscriptionHandle> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: this.options.sessionTimeoutMs ?? 10000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 20000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5000 },
    });
    let stopping = false;
    // Membership for readiness: joined after a group join, out while rebalancing, crashed or stopped.
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
    for (const out of [consumer.events.REBALANCING, consumer.events.CRASH, consumer.events.STOP, consumer.events.DISCONNECT]) consumer.on(out, () => (joined = false));
    // Lag (metrics): each fetched batch tells the partition's end; each handled message moves the position.
    const positions = new Map<string, PartitionPosition>();
    this.positions.set(consumer, { groupId: options.groupId, partitions: positions });
    const position = (topic: string, partition: number) => positions.get(`${topic}/${partition}`);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const [key, p] of positions) if (!(payload.memberAssignment[p.topic] ?? []).includes(p.partition)) positions.delete(key);
    });
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      const end = Number(payload.highWatermark);
      const first = payload.firstOffset === null || payload.firstOffset === undefined ? end : Number(payload.firstOffset);
      positions.set(`${payload.topic}/${payload.partition}`, { topic: payload.topic, partition: payload.partition, next: first, highWatermark: end });
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const p = position(payload.topic, payload.partition);
      if (p && payload.lastOffset !== null && payload.lastOffset !== undefined) p.next = Math.max(p.next, Number(payload.lastOffset) + 1);
    });
    const beatEvery = this.options.heartbeatWhileHandlingMs ?? 3000;
    await consumer.connect();
    const fromBeginning = (this.options.startFrom ?? kafkaStartFromDefault()) === 'earliest';
    for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning });
    const delay = this.options.redeliveryDelayMs ?? 200;
    await consumer.run({
      autoCommit: true,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) {
          const value = headerValue(v);
          if (value !== undefined) headers[k] = value;
        }
        // Retry the same message in place until it is handled; throwing would make kafkajs
        // restart the consumer. On shutdown we give up without committing: redelivered later.
        for (;;) {
          // A provider batch or a model call may outlast the session timeout: keep the membership
          // alive while the handler works, so the group does not rebalance and redo the work.
          const beating = setInterval(() => void heartbeat().catch(() => undefined), beatEvery);
          try {
            await options.handle({
              topic,
              partition,
              offset: message.offset,
              key: message.key ? message.key.toString() : null,
              value: message.value ?? Buffer.alloc(0),
              headers,
            });
            const p = position(topic, partition);
            if (p) p.next = Math.max(p.next, Number(message.offset) + 1);
            return;
          } catch (error) {
            if (stopping) throw error;
            await new Promise((resolve) => setTimeout(resolve, delay));
            await heartbeat().catch(() => undefined);
          } finally {
            clearInterval(beating);
          }
        }
      },
    });
    this.consumers.add(consumer);
    return {
      stop: async () => {
        stopping = true;
        await consumer.disconnect().catch(() => undefined);
        this.consumers.delete(consumer);
        this.positions.delete(consumer);
      },
      joined: () => joined,
    };
  }
}
