import type { EntityManager } from 'typeorm';
import type { OutgoingMessage } from '../transport/transport';

/** An outbox row the broker refused on its own: kept with its reason, never sent again. */
export interface SetAside {
  id: string;
  topic: string;
  reason: string;
}

export interface OutboxRow extends OutgoingMessage {
  id: string;
  topic: string;
}

/** A unit of work: the service's own writes plus the bus's inbox claim and outbox rows. */
export interface BusTransaction {
  /** TypeORM manager bound to this transaction; services write their state through it. */
  readonly manager: EntityManager;
}

/**
 * Persistence the bus needs. `claim` and `appendOutbox` run inside the same database transaction
 * as the handler's own writes, so a state change and the messages it causes commit together.
 */
export interface BusStore {
  readonly schema: string;
  transaction<T>(work: (tx: BusTransaction) => Promise<T>): Promise<T>;
  /** True when the message was not processed by this group before (and now is claimed). */
  claim(tx: BusTransaction, consumerGroup: string, messageId: string, topic: string, outcome: 'processed' | 'dead_lettered'): Promise<boolean>;
  /** Outside any transaction: has this group already processed the message? */
  isProcessed(consumerGroup: string, messageId: string): Promise<boolean>;
  /** Outside any transaction: did this group dead-letter the message (a replayed dead letter may then be handled again)? */
  wasDeadLettered(consumerGroup: string, messageId: string): Promise<boolean>;
  appendOutbox(tx: BusTransaction, topic: string, message: OutgoingMessage): Promise<void>;
  /**
   * Sends pending outbox rows in insertion order through `send`, in requests of bounded size,
   * marking them published; a row the broker refuses on its own is set aside and reported.
   */
  relay(send: (topic: string, messages: OutgoingMessage[]) => Promise<void>, limit?: number, onSetAside?: (row: SetAside) => void): Promise<number>;
  pendingOutboxCount(): Promise<number>;
  /** Deletes what the retention no longer needs (never a row still to be sent); returns the rows deleted. */
  prune(retention: BusRetention, now?: Date): Promise<{ outbox: number; inbox: number }>;
}

/**
 * How long the bus keeps its bookkeeping. Sent outbox rows are history only; inbox rows
 * de-duplicate redeliveries, so they are kept longer than a topic keeps its messages (Kafka's
 * default is 7 days); rows set aside are kept as long, for inspection.
 */
export interface BusRetention {
  outboxDays: number;
  inboxDays: number;
}

export const DEFAULT_BUS_RETENTION: BusRetention = { outboxDays: 7, inboxDays: 30 };
