import { randomUUID } from 'node:crypto';
import { AssignerProtocol, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import type { OutgoingMessage, RawMessage } from '../transport';

export interface KafkaInspectorOptions {
  brokers: string[];
  /** An operator's principal (the admin): it reads any topic and joins throw-away groups. */
  sasl?: { username: string; password: string };
  clientId?: string;
  /** Prefix of the throw-away consumer groups that read topics (deleted after each read). */
  readerGroupPrefix?: string;
}

export interface PartitionEnd {
  partition: number;
  /** First offset the partition still holds. */
  low: number;
  /** Offset the next message will get. */
  high: number;
}

/**
 * Operator access to Kafka for tools (dead letters, the chaos suite): read topics from their start
 * up to their end as of the call, produce records to an exact partition, and look at consumer
 * groups. kafkajs stays in this folder; nothing here is on a role's message path.
 */
export class KafkaInspector {
  private readonly kafka: Kafka;
  private admin: Admin | null = null;
  private producer: Producer | null = null;

  constructor(private readonly options: KafkaInspectorOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'aoc-inspector',
      brokers: options.brokers,
      sasl: options.sasl ? { mechanism: 'plain', ...options.sasl } : undefined,
      ssl: false,
      connectionTimeout: 5000,
      requestTimeout: 15000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 3000 },
      logLevel: logLevel.NOTHING,
    });
  }

  private async adminClient(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }

  async disconnect(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
    this.producer = null;
    this.admin = null;
  }

  async listTopics(): Promise<string[]> {
    return (await (await this.adminClient()).listTopics()).sort();
  }

  /**
   * Commits each partition's end as the group's offset, so the group skips what the topics already
   * hold. The group must have no live member (Kafka refuses otherwise).
   */
  async skipToEnd(groupId: string, topics: readonly string[]): Promise<void> {
    const admin = await this.adminClient();
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(topic);
      await admin.setOffsets({ groupId, topic, partitions: ends.map((o) => ({ partition: o.partition, offset: o.high })) });
    }
  }

  async partitionEnds(topic: string): Promise<PartitionEnd[]> {
    const offsets = await (await this.adminClient()).fetchTopicOffsets(topic);
    return offsets.map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) })).sort((a, b) => a.partition - b.partition);
  }

  /**
   * Every record the topics hold, from each partition's start to its end as of this call (records
   * produced meanwhile may or may not be included), in partition/offset order per topic. Reads
   * through a throw-away consumer group, deleted afterwards.
   */
  async readTopics(topics: readonly string[], timeoutMs = 60_000): Promise<RawMessage[]> {
    const pending = new Map<string, number>(); // `${topic}/${partition}` -> last offset to read
    for (const topic of topics) {
      for (const end of await this.partitionEnds(topic)) if (end.high > end.low) pending.set(`${topic}/${end.partition}`, end.high - 1);
    }
    if (pending.size === 0) return [];
    const wanted = [...new Set([...pending.keys()].map((k) => k.slice(0, k.lastIndexOf('/'))))];
    const groupId = `${this.options.readerGroupPrefix ?? 'aoc.inspect'}.${randomUUID()}`;
    const consumer = this.kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    const messages: RawMessage[] = [];
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    try {
      await consumer.connect();
      for (const topic of wanted) await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          const key = `${topic}/${partition}`;
          const last = pending.get(key);
          if (last === undefined) return;
          const offset = Number(message.offset);
          if (offset <= last) {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(message.headers ?? {})) {
              const first = Array.isArray(v) ? v[0] : v;
              if (first !== undefined) headers[k] = first.toString();
            }
            messages.push({ topic, partition, offset: message.offset, key: message.key ? message.key.toString() : null, value: message.value ?? Buffer.alloc(0), headers });
          }
          if (offset >= last) {
            pending.delete(key);
            if (pending.size === 0) finish();
          }
        },
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`reading ${wanted.join(', ')} did not reach the end within ${timeoutMs} ms (${pending.size} partitions left)`)), timeoutMs);
      });
      try {
        await Promise.race([done, timeout]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await (await this.adminClient()).deleteGroups([groupId]).catch(() => undefined);
    }
    const order = new Map(wanted.map((t, i) => [t, i]));
    return messages.sort((a, b) => (order.get(a.topic) ?? 0) - (order.get(b.topic) ?? 0) || a.partition - b.partition || Number(a.offset) - Number(b.offset));
  }

  /** Produces records (acks from all replicas); a record with a partition goes exactly there. */
  async send(topic: string, messages: readonly (OutgoingMessage & { partition?: number })[]): Promise<void> {
    if (!this.producer) {
      const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1 });
      await producer.connect();
      this.producer = producer;
    }
    await this.producer.send({ topic, acks: -1, messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers, ...(m.partition === undefined ? {} : { partition: m.partition }) })) });
  }

  /** Members currently in each group (0 for a group that is empty or unknown). */
  async groupMembers(groupIds: readonly string[]): Promise<Record<string, number>> {
    const described = await (await this.adminClient()).describeGroups([...groupIds]);
    const out: Record<string, number> = {};
    for (const id of groupIds) out[id] = 0;
    for (const g of described.groups) out[g.groupId] = g.state === 'Dead' ? 0 : g.members.length;
    return out;
  }

  /**
   * The groups that have a member whose client id is one of `clientIds` (a role's transport uses
   * its principal name, `aoc-<role>`), with the topics assigned to those members.
   */
  async groupsOfClients(clientIds: readonly string[]): Promise<{ groupId: string; clientIds: string[]; topics: string[] }[]> {
    const admin = await this.adminClient();
    const { groups } = await admin.listGroups();
    if (groups.length === 0) return [];
    const described = await admin.describeGroups(groups.map((g) => g.groupId));
    const wanted = new Set(clientIds);
    const out: { groupId: string; clientIds: string[]; topics: string[] }[] = [];
    for (const g of described.groups) {
      const members = g.members.filter((m) => wanted.has(m.clientId));
      if (members.length === 0) continue;
      const topics = new Set<string>();
      for (const m of members) {
        const decoded = m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
        for (const topic of Object.keys(decoded?.assignment ?? {})) topics.add(topic);
      }
      out.push({ groupId: g.groupId, clientIds: [...new Set(members.map((m) => m.clientId))], topics: [...topics].sort() });
    }
    return out.sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  /** Messages behind the group's committed offsets on each topic (a partition it never committed counts from its start). */
  async groupLag(groupId: string, topics: readonly string[]): Promise<Record<string, number>> {
    const admin = await this.adminClient();
    const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
    const out: Record<string, number> = {};
    for (const t of committed) {
      const ends = new Map((await this.partitionEnds(t.topic)).map((e) => [e.partition, e]));
      let lag = 0;
      for (const p of t.partitions) {
        const end = ends.get(p.partition);
        if (!end) continue;
        const at = Number(p.offset) < 0 ? end.low : Math.max(Number(p.offset), end.low);
        lag += Math.max(0, end.high - at);
      }
      out[t.topic] = lag;
    }
    return out;
  }
}
