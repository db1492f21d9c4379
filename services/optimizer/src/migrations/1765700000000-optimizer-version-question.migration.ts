import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The question digest an answer version was given (its ticket's timeline at publication), so a later edit shows as a change. */
export class OptimizerVersionQuestion1765700000000 implements MigrationInterface {
  name = 'OptimizerVersionQuestion1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."answer_versions" ADD COLUMN "question_digest" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."answer_versions" DROP COLUMN "question_digest"`);
  }
}
