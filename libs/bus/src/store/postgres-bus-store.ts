import { quoteIdent } from '@aoc/persistence';
import type { DataSource, QueryRunner } from 'typeorm';
import { MAX_MESSAGE_BYTES } from '@aoc/contracts';
import { MessagesRejectedError, type OutgoingMessage } from '../transport/transport';
import type { BusRetention, BusStore, BusTransaction, SetAside } from './bus-store';

/** Header that marks an outbox row the broker refused on its own: kept for inspection, never sent again. */
export const SET_ASIDE_HEADER = 'aoc-outbox-set-aside';

/** Rows one pruning statement deletes at most. */
const PRUNE_SLICE = 5000;

/** One produce request carries at most this many bytes of messages (one bus message fits alone). */
const REQUEST_BYTES = MAX_MESSAGE_BYTES;

type Row = { id: string; topic: string; message_key: string | null; value: string; headers: Record<string, string> };

const sizeOf = (r: Row) => Buffer.byteLength(r.value, 'utf8') + Buffer.byteLength(r.message_key ?? '', 'utf8') + Buffer.byteLength(JSON.stringify(r.headers), 'utf8');

/** Consecutive rows of one topic, cut so that no request exceeds REQUEST_BYTES; the order is kept. */
export function produceRequests<T extends Row>(rows: readonly T[], maxBytes = REQUEST_BYTES, size: (r: T) => number = sizeOf): T[][] {
  const requests: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const r of rows) {
    const n = size(r);
    if (current.length > 0 && (r.topic !== current[0].topic || bytes + n > maxBytes)) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += n;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** DDL of the bus tables inside a service's own schema; used by each service's first migration. */
export function busTablesDdl(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}."bus_inbox" (
      "consumer_group" text NOT NULL,
      "message_id" text NOT NULL,
      "topic" text NOT NULL,
      "outcome" text NOT NULL,
      "processed_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("consumer_group", "message_id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."bus_outbox" (
      "id" bigserial PRIMARY KEY,
      "topic" text NOT NULL,
      "message_key" text,
      "value" text NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`,
    `CREATE INDEX IF NOT EXISTS "bus_outbox_pending_idx" ON ${s}."bus_outbox" ("id") WHERE "published_at" IS NULL`,
  ];
}

export function dropBusTablesDdl(schema: string): string[] {
  const s = quoteIdent(schema);
  return [`DROP TABLE IF EXISTS ${s}."bus_outbox"`, `DROP TABLE IF EXISTS ${s}."bus_inbox"`];
}

export class PostgresBusStore implements BusStore {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    readonly schema: string,
  ) {
    this.s = quoteIdent(schema);
  }

  async transaction<T>(work: (tx: BusTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => work({ manager }));
  }

  async claim(tx: BusTransaction, consumerGroup: string, messageId: string, topic: string, outcome: 'processed' | 'dead_lettered'): Promise<boolean> {
    const rows: unknown[] = await tx.manager.query(
      `INSERT INTO ${this.s}."bus_inbox" ("consumer_group", "message_id", "topic", "outcome") VALUES ($1, $2, $3, $4)
       ON CONFLICT ("consumer_group", "message_id") DO NOTHING RETURNING "message_id"`,
      [consumerGroup, messageId, topic, outcome],
    );
    return rows.length === 1;
  }

  async isProcessed(consumerGroup: string, messageId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${this.s}."bus_inbox" WHERE "consumer_group" = $1 AND "message_id" = $2`, [consumerGroup, messageId]);
    return rows.length > 0;
  }

  async wasDeadLettered(consumerGroup: string, messageId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${this.s}."bus_inbox" WHERE "consumer_group" = $1 AND "message_id" = $2 AND "outcome" = 'dead_lettered'`, [consumerGroup, messageId]);
    return rows.length > 0;
  }

  async appendOutbox(tx: BusTransaction, topic: string, message: OutgoingMessage): Promise<void> {
    await tx.manager.query(`INSERT INTO ${this.s}."bus_outbox" ("topic", "message_key", "value", "headers") VALUES ($1, $2, $3, $4)`, [
      topic,
      message.key,
      message.value,
      JSON.stringify(message.headers),
    ]);
  }

  /**
   * Sends up to `limit` unsent rows in id order and marks them sent. No transaction and no row lock
   * is open while the broker is called: the pass holds only a session advisory lock of this schema's
   * outbox, so one relay of the role sends at a time (replicas never interleave rows, which keeps
   * per-key order) and a crashed holder's session drops it. A relay that finds the lock taken
   * returns 0: the holder drains the outbox. A crash between send and mark resends (consumers dedupe).
   */
  async relay(send: (topic: string, messages: OutgoingMessage[]) => Promise<void>, limit = 200, onSetAside: (row: SetAside) => void = () => undefined): Promise<number> {
    const runner: QueryRunner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }]: { locked: boolean }[] = await runner.query(`SELECT pg_try_advisory_lock(hashtext($1)) AS "locked"`, [this.relayLockKey]);
      if (!locked) return 0;
      try {
        return await this.relayLocked(runner, send, limit, onSetAside);
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [this.relayLockKey]);
      }
    } finally {
      await runner.release();
    }
  }

  private get relayLockKey(): string {
    return `aoc-outbox-relay:${this.s}`;
  }

  private async relayLocked(runner: QueryRunner, send: (topic: string, messages: OutgoingMessage[]) => Promise<void>, limit: number, onSetAside: (row: SetAside) => void): Promise<number> {
    const rows: Row[] = await runner.query(
      `SELECT "id", "topic", "message_key", "value", "headers" FROM ${this.s}."bus_outbox" WHERE "published_at" IS NULL ORDER BY "id" LIMIT $1`,
      [limit],
    );
    if (rows.length === 0) return 0;
    // Consecutive rows of one topic go together, in requests the broker accepts, keeping the order.
    const setAside: { row: Row; reason: string }[] = [];
    for (const request of produceRequests(rows)) await this.sendOrSetAside(send, request, setAside);
    // One short transaction marks what was sent and what was set aside.
    await runner.startTransaction();
    try {
      await runner.query(`UPDATE ${this.s}."bus_outbox" SET "published_at" = now() WHERE "id" = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      for (const { row, reason } of setAside) {
        await runner.query(`UPDATE ${this.s}."bus_outbox" SET "headers" = "headers" || jsonb_build_object($2::text, $3::text) WHERE "id" = $1`, [row.id, SET_ASIDE_HEADER, reason]);
      }
      await runner.commitTransaction();
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
    for (const { row, reason } of setAside) onSetAside({ id: row.id, topic: row.topic, reason });
    return rows.length;
  }

  /**
   * A request the broker refuses for its records is sent again one row at a time; a row refused
   * on its own is set aside (marked, kept, never sent again), so it cannot jam the rows after it.
   * Any other failure (an outage) fails the relay, which retries everything later.
   */
  private async sendOrSetAside(send: (topic: string, messages: OutgoingMessage[]) => Promise<void>, request: Row[], setAside: { row: Row; reason: string }[]): Promise<void> {
    try {
      await send(request[0].topic, request.map((r) => ({ key: r.message_key, value: r.value, headers: r.headers })));
    } catch (error) {
      if (!(error instanceof MessagesRejectedError)) throw error;
      if (request.length === 1) {
        setAside.push({ row: request[0], reason: error.reason.slice(0, 500) });
        return;
      }
      for (const row of request) await this.sendOrSetAside(send, [row], setAside);
    }
  }

  /** Deletes in bounded slices, so a long backlog of history never holds a long lock. */
  async prune(retention: BusRetention, now: Date = new Date()): Promise<{ outbox: number; inbox: number }> {
    const before = (days: number) => new Date(now.getTime() - days * 86_400_000);
    const slice = async (sql: string, cutoff: Date): Promise<number> => {
      let total = 0;
      for (;;) {
        const rows: unknown[] = await this.dataSource.query(sql, [cutoff, PRUNE_SLICE]);
        total += rows.length;
        if (rows.length < PRUNE_SLICE) return total;
      }
    };
    const outbox =
      (await slice(
        `WITH gone AS (DELETE FROM ${this.s}."bus_outbox" WHERE "id" IN (SELECT "id" FROM ${this.s}."bus_outbox" WHERE "published_at" < $1 AND NOT "headers" ? '${SET_ASIDE_HEADER}' LIMIT $2) RETURNING "id") SELECT "id" FROM gone`,
        before(retention.outboxDays),
      )) +
      (await slice(
        `WITH gone AS (DELETE FROM ${this.s}."bus_outbox" WHERE "id" IN (SELECT "id" FROM ${this.s}."bus_outbox" WHERE "published_at" < $1 AND "headers" ? '${SET_ASIDE_HEADER}' LIMIT $2) RETURNING "id") SELECT "id" FROM gone`,
        before(retention.inboxDays),
      ));
    const inbox = await slice(
      `WITH gone AS (DELETE FROM ${this.s}."bus_inbox" WHERE ("consumer_group", "message_id") IN (SELECT "consumer_group", "message_id" FROM ${this.s}."bus_inbox" WHERE "processed_at" < $1 LIMIT $2) RETURNING "message_id") SELECT "message_id" FROM gone`,
      before(retention.inboxDays),
    );
    return { outbox, inbox };
  }

  async pendingOutboxCount(): Promise<number> {
    const rows: { n: string }[] = await this.dataSource.query(`SELECT count(*)::text AS n FROM ${this.s}."bus_outbox" WHERE "published_at" IS NULL`);
    return Number(rows[0]?.n ?? 0);
  }
}
