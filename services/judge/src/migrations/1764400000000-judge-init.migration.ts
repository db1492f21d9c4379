import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class JudgeInit1764400000000 implements MigrationInterface {
  name = 'JudgeInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('judge')) await q.query(ddl);
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
    for (const ddl of dropBusTablesDdl('judge')) await q.query(ddl);
  }
}
