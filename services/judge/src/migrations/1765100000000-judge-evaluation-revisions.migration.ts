import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evaluations of one answer version are numbered (revision 1, 2, ...): a later human answer
 * re-judges it. A judgment whose selected human answer and verdict equal the latest published one
 * is kept (published = false) but not published again. Older rows: revision 1, published.
 */
export class JudgeEvaluationRevisions1765100000000 implements MigrationInterface {
  name = 'JudgeEvaluationRevisions1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "revision" int NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "published" boolean NOT NULL DEFAULT true`);
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "outcome_digest" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "outcome_digest"`);
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "published"`);
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "revision"`);
  }
}
