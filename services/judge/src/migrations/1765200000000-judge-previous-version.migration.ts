import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A write-mode evaluation keeps the version it replaced: its run, fingerprint and latest /ao feedback comment. */
export class JudgePreviousVersion1765200000000 implements MigrationInterface {
  name = 'JudgePreviousVersion1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "previous_run_id" text`);
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "previous_fingerprint" text`);
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "previous_feedback_id" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "previous_feedback_id"`);
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "previous_fingerprint"`);
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "previous_run_id"`);
  }
}
