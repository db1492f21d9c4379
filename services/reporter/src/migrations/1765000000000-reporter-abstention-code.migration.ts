import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluations keep the Judge's abstention code (why a verdict is not_compared); older rows stay null. */
export class ReporterAbstentionCode1765000000000 implements MigrationInterface {
  name = 'ReporterAbstentionCode1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "abstention_code" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "abstention_code"`);
  }
}
