import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Executions keep the audit record of every provider tool call of the run (older rows: none). */
export class ReporterToolCalls1765100000000 implements MigrationInterface {
  name = 'ReporterToolCalls1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "tool_calls" jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."run_executions" DROP COLUMN "tool_calls"`);
  }
}
