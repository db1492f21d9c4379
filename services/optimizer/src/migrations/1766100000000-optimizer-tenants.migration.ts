import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An answer version belongs to the tenant run.published names (null: no configured tenant owns its
 * ticket); a Focus records the tenants of every ticket it gathered ('' for an unowned one), so a
 * principal confined to one tenant sees only the Focuses built from that tenant's tickets alone.
 * Rows from before tenants existed belong to the single tenant `default`.
 */
export class OptimizerTenants1766100000000 implements MigrationInterface {
  name = 'OptimizerTenants1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."answer_versions" ADD COLUMN "tenant" text DEFAULT 'default'`);
    await q.query(`CREATE INDEX "answer_versions_tenant" ON "optimizer"."answer_versions" ("tenant", "ticket_key")`);
    await q.query(`ALTER TABLE "optimizer"."focuses" ADD COLUMN "tenants" text[] NOT NULL DEFAULT '{default}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."focuses" DROP COLUMN "tenants"`);
    await q.query(`DROP INDEX "optimizer"."answer_versions_tenant"`);
    await q.query(`ALTER TABLE "optimizer"."answer_versions" DROP COLUMN "tenant"`);
  }
}
