import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ReporterInit1764400000000 implements MigrationInterface {
  name = 'ReporterInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The bus tables as they were when this migration was written (frozen: never the library's current DDL).
    await q.query(`CREATE SCHEMA IF NOT EXISTS "reporter"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "reporter"."bus_inbox" (
      "consumer_group" text NOT NULL,
      "message_id" text NOT NULL,
      "topic" text NOT NULL,
      "outcome" text NOT NULL,
      "processed_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("consumer_group", "message_id")
    )`);
    await q.query(`CREATE TABLE IF NOT EXISTS "reporter"."bus_outbox" (
      "id" bigserial PRIMARY KEY,
      "topic" text NOT NULL,
      "message_key" text,
      "value" text NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS "bus_outbox_pending_idx" ON "reporter"."bus_outbox" ("id") WHERE "published_at" IS NULL`);
    await q.query(`CREATE TABLE "reporter"."published_runs" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "trigger" text NOT NULL,
      "decision" text NOT NULL,
      "answer_fingerprint" text NOT NULL,
      "published_at" timestamptz NOT NULL,
      "customer_reply" text NOT NULL,
      "internal_handoff" text NOT NULL
    )`);
    await q.query(`CREATE TABLE "reporter"."run_executions" (
      "run_id" text PRIMARY KEY,
      "evidence_status" text NOT NULL,
      "response_status" text NOT NULL,
      "failure_codes" jsonb NOT NULL
    )`);
    await q.query(`CREATE TABLE "reporter"."evaluations" (
      "evaluation_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "verdict" text NOT NULL,
      "verdict_reason" text NOT NULL,
      "ai_gaps" jsonb NOT NULL,
      "judged_at" timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "reporter"."evaluations"`);
    await q.query(`DROP TABLE "reporter"."run_executions"`);
    await q.query(`DROP TABLE "reporter"."published_runs"`);
    await q.query(`DROP TABLE IF EXISTS "reporter"."bus_outbox"`);
    await q.query(`DROP TABLE IF EXISTS "reporter"."bus_inbox"`);
  }
}
