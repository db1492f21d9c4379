import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ticket's question digest (title and description) beside its comments: a Focus re-checks it,
 * so an edited description counts as a changed source. Null for revisions that did not carry it.
 */
export class OptimizerQuestionDigest1765500000000 implements MigrationInterface {
  name = 'OptimizerQuestionDigest1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."ticket_timelines" ADD COLUMN "question_digest" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."ticket_timelines" DROP COLUMN "question_digest"`);
  }
}
