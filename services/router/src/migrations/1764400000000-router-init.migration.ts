import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RouterInit1764400000000 implements MigrationInterface {
  name = 'RouterInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The bus tables as they were when this migration was written (frozen: never the library's current DDL).
    await q.query(`CREATE SCHEMA IF NOT EXISTS "router"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "router"."bus_inbox" (
      "consumer_group" text NOT NULL,
      "message_id" text NOT NULL,
      "topic" text NOT NULL,
      "outcome" text NOT NULL,
      "processed_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("consumer_group", "message_id")
    )`);
    await q.query(`CREATE TABLE IF NOT EXISTS "router"."bus_outbox" (
      "id" bigserial PRIMARY KEY,
      "topic" text NOT NULL,
      "message_key" text,
      "value" text NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS "bus_outbox_pending_idx" ON "router"."bus_outbox" ("id") WHERE "published_at" IS NULL`);
    await q.query(`CREATE TABLE "router"."runs" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "title" text NOT NULL,
      "mode" text NOT NULL,
      "trigger" text NOT NULL,
      "cutoff" timestamptz,
      "status" text NOT NULL,
      "scenario_count" int NOT NULL DEFAULT 0,
      "trace_id" text,
      "answer_fingerprint" text,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`);
    await q.query(`CREATE TABLE "router"."scenario_threads" (
      "run_id" text NOT NULL,
      "scenario_id" text NOT NULL,
      "scenario" text NOT NULL,
      "provider" text NOT NULL,
      "target" text,
      "hypothesis" text NOT NULL,
      "strongest_alternative" text NOT NULL,
      "question" text NOT NULL,
      "status" text NOT NULL,
      "evidence_status" text,
      "evidence_record" jsonb,
      "brief" jsonb,
      PRIMARY KEY ("run_id", "scenario_id")
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "router"."scenario_threads"`);
    await q.query(`DROP TABLE "router"."runs"`);
    await q.query(`DROP TABLE IF EXISTS "router"."bus_outbox"`);
    await q.query(`DROP TABLE IF EXISTS "router"."bus_inbox"`);
  }
}
