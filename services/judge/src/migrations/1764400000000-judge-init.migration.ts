import type { MigrationInterface, QueryRunner } from 'typeorm';

export class JudgeInit1764400000000 implements MigrationInterface {
  name = 'JudgeInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The bus tables as they were when this migration was written (frozen: never the library's current DDL).
    await q.query(`CREATE SCHEMA IF NOT EXISTS "judge"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "judge"."bus_inbox" (
      "consumer_group" text NOT NULL,
      "message_id" text NOT NULL,
      "topic" text NOT NULL,
      "outcome" text NOT NULL,
      "processed_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("consumer_group", "message_id")
    )`);
    await q.query(`CREATE TABLE IF NOT EXISTS "judge"."bus_outbox" (
      "id" bigserial PRIMARY KEY,
      "topic" text NOT NULL,
      "message_key" text,
      "value" text NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS "bus_outbox_pending_idx" ON "judge"."bus_outbox" ("id") WHERE "published_at" IS NULL`);
    await q.query(`CREATE TABLE "judge"."answers" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "answer_fingerprint" text NOT NULL,
      "published_at" timestamptz NOT NULL,
      "cutoff" timestamptz,
      "customer_reply" text NOT NULL,
      "internal_handoff" text NOT NULL,
      "decision" text NOT NULL,
      "judged" boolean NOT NULL DEFAULT false
    )`);
    await q.query(`CREATE TABLE "judge"."timelines" (
      "ticket_key" text PRIMARY KEY,
      "revision" bigint NOT NULL,
      "comments" jsonb NOT NULL
    )`);
    await q.query(`CREATE TABLE "judge"."evaluations" (
      "evaluation_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "verdict" text NOT NULL,
      "judged_at" timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "judge"."evaluations"`);
    await q.query(`DROP TABLE "judge"."timelines"`);
    await q.query(`DROP TABLE "judge"."answers"`);
    await q.query(`DROP TABLE IF EXISTS "judge"."bus_outbox"`);
    await q.query(`DROP TABLE IF EXISTS "judge"."bus_inbox"`);
  }
}
