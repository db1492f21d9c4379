import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Each evaluation keeps its revision and the human comments the Judge selected (older rows: revision 1, none). */
export class ReporterEvaluationRevisions1765200000000 implements MigrationInterface {
  name = 'ReporterEvaluationRevisions1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "revision" int NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "target_comment_ids" jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "target_comment_ids"`);
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "revision"`);
  }
}
