import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Execution records that arrived before the `run.published` of their run (the topics are
 * independent): parked until the answer version is known, then turned into runtime signals.
 */
export class OptimizerParkedExecutions1765600000000 implements MigrationInterface {
  name = 'OptimizerParkedExecutions1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "optimizer"."parked_executions" ("run_id" text PRIMARY KEY, "ticket_key" text NOT NULL, "record" jsonb NOT NULL, "parked_at" timestamptz NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "optimizer"."parked_executions"`);
  }
}
