import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EvidenceInit1764400000000 implements MigrationInterface {
  name = 'EvidenceInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('evidence')) await q.query(ddl);
    await q.query(`CREATE TABLE "evidence"."planned_batches" (
      "batch_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "scenario_id" text NOT NULL,
      "query_count" int NOT NULL,
      "planner_notes" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "evidence"."planned_batches"`);
    for (const ddl of dropBusTablesDdl('evidence')) await q.query(ddl);
  }
}
