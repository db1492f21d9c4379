import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The frozen request of a run, so a run whose routing never happened can still be answered at its deadline. */
export class RouterRunRequest1764800000000 implements MigrationInterface {
  name = 'RouterRunRequest1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "router"."runs" ADD "request" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "router"."runs" DROP COLUMN "request"`);
  }
}
