import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each run, and its report row, belongs to the tenant run.published names (null: a ticket no
 * configured tenant owns, seen by admins only). Rows recorded before tenants existed belong to the
 * single tenant `default`. A tenant's report starts with a range scan of its own partial index.
 */
export class ReporterRunTenant1766100000000 implements MigrationInterface {
  name = 'ReporterRunTenant1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporter"."published_runs" ADD COLUMN "tenant" text DEFAULT 'default'`);
    await q.query(`ALTER TABLE "reporter"."answer_projections" ADD COLUMN "tenant" text DEFAULT 'default'`);
    await q.query(`CREATE INDEX "reporter_runs_tenant_idx" ON "reporter"."published_runs" ("tenant", "published_at", "run_id")`);
    await q.query(
      `CREATE INDEX "reporter_projections_tenant_counted_idx" ON "reporter"."answer_projections" ("tenant", "published_at") INCLUDE ("run_id", "ticket_key") WHERE "counted"`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "reporter"."reporter_projections_tenant_counted_idx"`);
    await q.query(`DROP INDEX "reporter"."reporter_runs_tenant_idx"`);
    await q.query(`ALTER TABLE "reporter"."answer_projections" DROP COLUMN "tenant"`);
    await q.query(`ALTER TABLE "reporter"."published_runs" DROP COLUMN "tenant"`);
  }
}
