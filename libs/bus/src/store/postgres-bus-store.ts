import { quoteIdent } from '@aoc/persistence';
import type { DataSource, QueryRunner } from 'typeorm';
import type { OutgoingMessage } from '../transport/transport';
import type { BusStore, BusTransaction } from './bus-store';

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

  async appendOutbox(tx: BusTransaction, topic: string, message: OutgoingMessage): Promise<void> {
    await tx.manager.query(`INSERT INTO ${this.s}."bus_outbox" ("topic", "message_key", "value", "headers") VALUES ($1, $2, $3, $4)`, [
      topic,
      message.key,
      message.value,
      JSON.stringify(message.headers),
    ]);
  }

  async relay(send: (topic: string, messages: OutgoingMessage[]) => Promise<void>, limit = 200): Promise<number> {
    const runner: QueryRunner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // SKIP LOCKED: replicas of a role share one outbox without sending a row twice.
      const rows: { id: string; topic: string; message_key: string | null; value: string; headers: Record<string, string> }[] = await runner.query(
        `SELECT "id", "topic", "message_key", "value", "headers" FROM ${this.s}."bus_outbox"
         WHERE "published_at" IS NULL ORDER BY "id" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      // Send consecutive rows of the same topic together, keeping the overall order.
      let i = 0;
      while (i < rows.length) {
        let j = i;
        while (j < rows.length && rows[j].topic === rows[i].topic) j++;
        await send(
          rows[i].topic,
          rows.slice(i, j).map((r) => ({ key: r.message_key, value: r.value, headers: r.headers })),
        );
        i = j;
      }
      await runner.query(`UPDATE ${this.s}."bus_outbox" SET "published_at" = now() WHERE "id" = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      await runner.commitTransaction();
      return rows.length;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  async pendingOutboxCount(): Promise<number> {
    const rows: { n: string }[] = await this.dataSource.query(`SELECT count(*)::text AS n FROM ${this.s}."bus_outbox" WHERE "published_at" IS NULL`);
    return Number(rows[0]?.n ?? 0);
  }
}
