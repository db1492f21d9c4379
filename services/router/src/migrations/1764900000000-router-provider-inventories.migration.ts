import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Provider inventories, for resolving the targets a ticket names; why a run got no target; the onset a ticket reports. */
export class RouterProviderInventories1764900000000 implements MigrationInterface {
  name = 'RouterProviderInventories1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "router"."provider_inventories" (
      "provider" text PRIMARY KEY,
      "status" text NOT NULL,
      "targets" jsonb NOT NULL,
      "truncated" boolean NOT NULL,
      "failure_code" text,
      "listed_at" timestamptz NOT NULL
    )`);
    await q.query(`ALTER TABLE "router"."runs" ADD "targeting" jsonb`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "reported_onset" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "router"."scenario_threads" DROP COLUMN "reported_onset"`);
    await q.query(`ALTER TABLE "router"."runs" DROP COLUMN "targeting"`);
    await q.query(`DROP TABLE "router"."provider_inventories"`);
  }
}
