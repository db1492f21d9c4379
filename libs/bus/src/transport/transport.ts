/** A message as a transport delivers it: bytes plus Kafka-style coordinates. */
export interface RawMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

export interface OutgoingMessage {
  key: string | null;
  value: string;
  headers: Record<string, string>;
}

export interface SubscriptionHandle {
  stop(): Promise<void>;
  /** Whether the consumer is a member of its group now (joined and not rebalancing, crashed or stopped): readiness. */
  joined(): boolean;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Resolves: the message is done (offset committed). Rejects: it is delivered again. */
  handle(message: RawMessage): Promise<void>;
}

/** How far one consumer group is behind on one partition it is assigned. */
export interface ConsumerLag {
  groupId: string;
  topic: string;
  partition: number;
  /** Messages after the last one handled, up to the newest offset (Kafka: as of the last fetch). */
  lag: number;
}

/**
 * What the bus needs from a broker. Two implementations: Kafka (kafkajs, kept behind this
 * interface) and the in-process broker with the same semantics.
 */
export interface Transport {
  readonly kind: 'memory' | 'kafka';
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<SubscriptionHandle>;
  /** Lag of this transport's consumers on their assigned partitions (metrics); optional. */
  consumerLag?(): ConsumerLag[];
}

/** Partition of a key, the same function for both transports (murmur-free, stable). */
export function partitionForKey(key: string | null, partitions: number, fallback: number): number {
  if (key === null) return fallback % partitions;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

/**
 * The broker refused the messages themselves (too large, an invalid record): sending the same
 * request again cannot succeed. Outages and timeouts are never this; they are retried.
 */
export class MessagesRejectedError extends Error {
  constructor(readonly reason: string) {
    super(`the broker refused the messages: ${reason}`);
    this.name = 'MessagesRejectedError';
  }
}
