import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OptimizerInit1764400000000 implements MigrationInterface {
  name = 'OptimizerInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The bus tables as they were when this migration was written (frozen: never the library's current DDL).
    await q.query(`CREATE SCHEMA IF NOT EXISTS "optimizer"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "optimizer"."bus_inbox" (
      "consumer_group" text NOT NULL,
      "message_id" text NOT NULL,
      "topic" text NOT NULL,
      "outcome" text NOT NULL,
      "processed_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("consumer_group", "message_id")
    )`);
    await q.query(`CREATE TABLE IF NOT EXISTS "optimizer"."bus_outbox" (
      "id" bigserial PRIMARY KEY,
      "topic" text NOT NULL,
      "message_key" text,
      "value" text NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS "bus_outbox_pending_idx" ON "optimizer"."bus_outbox" ("id") WHERE "published_at" IS NULL`);
    await q.query(`CREATE TABLE "optimizer"."problem_signals" (
      "signal_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "ticket_key" text NOT NULL,
      "kind" text NOT NULL,
      "detail" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "optimizer"."problem_signals"`);
    await q.query(`DROP TABLE IF EXISTS "optimizer"."bus_outbox"`);
    await q.query(`DROP TABLE IF EXISTS "optimizer"."bus_inbox"`);
  }
}
