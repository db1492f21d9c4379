import { partitionForKey, type OutgoingMessage, type RawMessage } from '../transport';

interface StoredMessage {
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

interface Member {
  id: string;
  handle(message: RawMessage): Promise<void>;
}

interface PartitionWorker {
  running: boolean;
  wake: (() => void) | null;
}

interface Group {
  id: string;
  topics: Set<string>;
  members: Member[];
  /** next offset to deliver, per `${topic}/${partition}` */
  committed: Map<string, number>;
  /** owner member id per `${topic}/${partition}` */
  owners: Map<string, string>;
  workers: Map<string, PartitionWorker>;
}

export interface InMemoryBrokerOptions {
  defaultPartitions?: number;
  /** Largest accepted value, like Kafka's message.max.bytes. */
  maxMessageBytes?: number;
  /** Delay before a message whose handler failed is delivered again. */
  redeliveryDelayMs?: number;
}

export class BrokerError extends Error {
  constructor(
    readonly code: 'MESSAGE_TOO_LARGE' | 'UNKNOWN_TOPIC' | 'BROKER_CLOSED',
    message: string,
  ) {
    super(message);
    this.name = 'BrokerError';
  }
}

/**
 * A process-local broker with Kafka's delivery semantics: topics split into partitions by key,
 * ordered delivery per partition, consumer groups whose members share partitions (rebalanced
 * when members join or leave), committed offsets per group, and at-least-once redelivery when a
 * handler fails or its member leaves before committing.
 */
export class InMemoryBroker {
  private readonly topics = new Map<string, StoredMessage[][]>();
  private readonly groups = new Map<string, Group>();
  private readonly defaultPartitions: number;
  private readonly maxMessageBytes: number;
  private readonly redeliveryDelayMs: number;
  private memberSeq = 0;
  private closed = false;

  constructor(options: InMemoryBrokerOptions = {}) {
    this.defaultPartitions = options.defaultPartitions ?? 6;
    this.maxMessageBytes = options.maxMessageBytes ?? 1024 * 1024;
    this.redeliveryDelayMs = options.redeliveryDelayMs ?? 50;
  }

  createTopic(name: string, partitions = this.defaultPartitions): void {
    if (!this.topics.has(name)) this.topics.set(name, Array.from({ length: partitions }, () => []));
  }

  private partitionsOf(topic: string): StoredMessage[][] {
    let partitions = this.topics.get(topic);
    if (!partitions) {
      this.createTopic(topic);
      partitions = this.topics.get(topic) as StoredMessage[][];
    }
    return partitions;
  }

  /** Appends messages; never waits for consumers. */
  append(topic: string, messages: OutgoingMessage[]): void {
    if (this.closed) throw new BrokerError('BROKER_CLOSED', 'in-memory broker is closed');
    const partitions = this.partitionsOf(topic);
    // A refused request appends nothing, as a broker refuses a record batch whole.
    const values = messages.map((m) => Buffer.from(m.value, 'utf8'));
    const tooLarge = values.find((v) => v.length > this.maxMessageBytes);
    if (tooLarge) throw new BrokerError('MESSAGE_TOO_LARGE', `message of ${tooLarge.length} bytes exceeds ${this.maxMessageBytes} bytes on ${topic}`);
    let roundRobin = 0;
    messages.forEach((m, i) => {
      const p = partitionForKey(m.key, partitions.length, roundRobin++);
      partitions[p].push({ key: m.key, value: values[i], headers: { ...m.headers } });
    });
    for (const group of this.groups.values()) if (group.topics.has(topic)) this.wakeAll(group);
  }

  join(groupId: string, topics: string[], handle: Member['handle']): string {
    let group = this.groups.get(groupId);
    if (!group) {
      group = { id: groupId, topics: new Set(), members: [], committed: new Map(), owners: new Map(), workers: new Map() };
      this.groups.set(groupId, group);
    }
    for (const t of topics) {
      group.topics.add(t);
      this.partitionsOf(t);
    }
    const id = `${groupId}#${++this.memberSeq}`;
    group.members.push({ id, handle });
    this.rebalance(group);
    return id;
  }

  leave(groupId: string, memberId: string): void {
    const group = this.groups.get(groupId);
    if (!group) return;
    group.members = group.members.filter((m) => m.id !== memberId);
    this.rebalance(group);
  }

  /** Committed offset (next to deliver) of a group on one partition; for tests and lag. */
  committedOffset(groupId: string, topic: string, partition: number): number {
    return this.groups.get(groupId)?.committed.get(`${topic}/${partition}`) ?? 0;
  }

  /** Messages not yet handled by a group on each partition one member owns (metrics: consumer lag). */
  lagOf(groupId: string, memberId: string): { topic: string; partition: number; lag: number }[] {
    const group = this.groups.get(groupId);
    if (!group) return [];
    const out: { topic: string; partition: number; lag: number }[] = [];
    for (const [slot, owner] of group.owners) {
      if (owner !== memberId) continue;
      const cut = slot.lastIndexOf('/');
      const topic = slot.slice(0, cut);
      const partition = Number(slot.slice(cut + 1));
      const end = this.topics.get(topic)?.[partition]?.length ?? 0;
      out.push({ topic, partition, lag: Math.max(0, end - (group.committed.get(slot) ?? 0)) });
    }
    return out;
  }

  messages(topic: string): RawMessage[] {
    const out: RawMessage[] = [];
    (this.topics.get(topic) ?? []).forEach((log, partition) =>
      log.forEach((m, offset) => out.push({ topic, partition, offset: String(offset), key: m.key, value: m.value, headers: m.headers })),
    );
    return out;
  }

  close(): void {
    this.closed = true;
    for (const group of this.groups.values()) {
      group.members = [];
      for (const w of group.workers.values()) {
        w.running = false;
        w.wake?.();
      }
    }
  }

  private rebalance(group: Group): void {
    const slots: string[] = [];
    for (const t of [...group.topics].sort()) {
      const n = this.partitionsOf(t).length;
      for (let p = 0; p < n; p++) slots.push(`${t}/${p}`);
    }
    const members = [...group.members].sort((a, b) => a.id.localeCompare(b.id));
    group.owners.clear();
    slots.forEach((slot, i) => {
      if (members.length > 0) group.owners.set(slot, members[i % members.length].id);
    });
    for (const slot of slots) {
      if (!group.workers.has(slot)) {
        const worker: PartitionWorker = { running: true, wake: null };
        group.workers.set(slot, worker);
        void this.runWorker(group, slot, worker);
      }
    }
    this.wakeAll(group);
  }

  private wakeAll(group: Group): void {
    for (const w of group.workers.values()) {
      const wake = w.wake;
      w.wake = null;
      wake?.();
    }
  }

  private async runWorker(group: Group, slot: string, worker: PartitionWorker): Promise<void> {
    const [topic, partitionText] = [slot.slice(0, slot.lastIndexOf('/')), slot.slice(slot.lastIndexOf('/') + 1)];
    const partition = Number(partitionText);
    while (worker.running && !this.closed) {
      const log = this.partitionsOf(topic)[partition];
      const offset = group.committed.get(slot) ?? 0;
      const ownerId = group.owners.get(slot);
      const owner = group.members.find((m) => m.id === ownerId);
      if (offset >= log.length || !owner) {
        await new Promise<void>((resolve) => (worker.wake = resolve));
        continue;
      }
      const stored = log[offset];
      try {
        await owner.handle({ topic, partition, offset: String(offset), key: stored.key, value: stored.value, headers: { ...stored.headers } });
        group.committed.set(slot, Math.max(group.committed.get(slot) ?? 0, offset + 1));
      } catch {
        // Not committed: the same message is delivered again, to whichever member owns the partition then.
        await new Promise((resolve) => setTimeout(resolve, this.redeliveryDelayMs));
      }
    }
  }
}
