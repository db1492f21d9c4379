import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ReporterInit1764400000000 implements MigrationInterface {
  name = 'ReporterInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('reporter')) await q.query(ddl);
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
    for (const ddl of dropBusTablesDdl('reporter')) await q.query(ddl);
  }
}
