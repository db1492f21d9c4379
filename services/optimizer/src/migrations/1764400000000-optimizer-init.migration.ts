import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OptimizerInit1764400000000 implements MigrationInterface {
  name = 'OptimizerInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('optimizer')) await q.query(ddl);
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
    for (const ddl of dropBusTablesDdl('optimizer')) await q.query(ddl);
  }
}
