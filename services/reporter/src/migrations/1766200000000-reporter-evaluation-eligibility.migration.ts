import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluations keep the Judge's eligibility (why a version was or was not compared); older rows stay null and are read through `eligibilityOf`. */
export class ReporterEvaluationEligibility1766200000000 implements MigrationInterface {
  name = 'ReporterEvaluationEligibility1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "eligibility" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "eligibility"`);
  }
}
