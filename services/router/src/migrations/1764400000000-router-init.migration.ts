import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RouterInit1764400000000 implements MigrationInterface {
  name = 'RouterInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('router')) await q.query(ddl);
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
    for (const ddl of dropBusTablesDdl('router')) await q.query(ddl);
  }
}
