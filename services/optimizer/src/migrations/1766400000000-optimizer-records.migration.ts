import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Optimisation records and the status of each problem they name: one record per accepted
 * candidate (versioned JSON, written once, keyed by its id), one status row per (record, ref),
 * moved only through the problem-status machine. Answer versions keep the data version the run
 * read when run.published carries it (null otherwise): answers carrying a record's data version
 * mean it is deployed.
 */
export class OptimizerRecords1766400000000 implements MigrationInterface {
  name = 'OptimizerRecords1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."answer_versions" ADD COLUMN "data_version" text`);
    await q.query(`CREATE INDEX "answer_versions_data_version" ON "optimizer"."answer_versions" ("data_version") WHERE "data_version" IS NOT NULL`);
    await q.query(`CREATE TABLE "optimizer"."optimization_records" (
      "record_id" text PRIMARY KEY,
      "schema_version" integer NOT NULL,
      "focus_id" text NOT NULL,
      "attempt" integer NOT NULL,
      "candidate_digest" text NOT NULL,
      "base_version" text NOT NULL,
      "data_version" text NOT NULL,
      "signature" text NOT NULL,
      "tenants" text[] NOT NULL DEFAULT '{default}',
      "record" jsonb NOT NULL,
      "created_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "optimization_records_data_version" ON "optimizer"."optimization_records" ("data_version")`);
    await q.query(`CREATE TABLE "optimizer"."problem_statuses" (
      "record_id" text NOT NULL REFERENCES "optimizer"."optimization_records" ("record_id"),
      "ref" text NOT NULL,
      "ticket_key" text NOT NULL,
      "signature" text NOT NULL,
      "status" text NOT NULL CHECK ("status" IN ('candidate', 'optimized_unverified', 'optimized_verified', 'ineffective')),
      "reason" text NOT NULL,
      "verification" jsonb,
      "recorded_at" timestamptz NOT NULL,
      "deployed_at" timestamptz,
      "decided_at" timestamptz,
      "updated_at" timestamptz NOT NULL,
      PRIMARY KEY ("record_id", "ref")
    )`);
    await q.query(`CREATE INDEX "problem_statuses_ref" ON "optimizer"."problem_statuses" ("ref")`);
    await q.query(`CREATE INDEX "problem_statuses_problem" ON "optimizer"."problem_statuses" ("ticket_key", "signature")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "optimizer"."problem_statuses"`);
    await q.query(`DROP TABLE "optimizer"."optimization_records"`);
    await q.query(`DROP INDEX "optimizer"."answer_versions_data_version"`);
    await q.query(`ALTER TABLE "optimizer"."answer_versions" DROP COLUMN "data_version"`);
  }
}
