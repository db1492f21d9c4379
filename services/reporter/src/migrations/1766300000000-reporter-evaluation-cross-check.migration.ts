import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluations keep the model judge's cross-check of a decided verdict (evaluation.judged `crossCheck`); rows without one (no model judge, older rows) stay null. */
export class ReporterEvaluationCrossCheck1766300000000 implements MigrationInterface {
  name = 'ReporterEvaluationCrossCheck1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "cross_check_engine" text`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "cross_check_verdict" text`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "cross_check_agrees" boolean`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "cross_check_reason_code" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "cross_check_reason_code"`);
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "cross_check_agrees"`);
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "cross_check_verdict"`);
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "cross_check_engine"`);
  }
}
