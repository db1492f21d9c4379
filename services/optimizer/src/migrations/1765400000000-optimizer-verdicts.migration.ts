import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Verdicts apart from answer versions: an evaluation may arrive before the `run.published` of its
 * run (the topics are independent), and its verdict must not be lost for control selection.
 */
export class OptimizerVerdicts1765400000000 implements MigrationInterface {
  name = 'OptimizerVerdicts1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "optimizer"."verdicts" (
      "run_id" text PRIMARY KEY,
      "verdict" text NOT NULL,
      "revision" integer NOT NULL,
      "ai_gap_count" integer NOT NULL
    )`);
    await q.query(`INSERT INTO "optimizer"."verdicts" ("run_id", "verdict", "revision", "ai_gap_count") SELECT "run_id", "verdict", "verdict_revision", "ai_gap_count" FROM "optimizer"."answer_versions" WHERE "verdict" IS NOT NULL`);
    for (const c of ['verdict', 'verdict_revision', 'ai_gap_count']) await q.query(`ALTER TABLE "optimizer"."answer_versions" DROP COLUMN "${c}"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."answer_versions" ADD COLUMN "verdict" text, ADD COLUMN "verdict_revision" integer NOT NULL DEFAULT 0, ADD COLUMN "ai_gap_count" integer NOT NULL DEFAULT 0`);
    await q.query(`UPDATE "optimizer"."answer_versions" a SET "verdict" = v."verdict", "verdict_revision" = v."revision", "ai_gap_count" = v."ai_gap_count" FROM "optimizer"."verdicts" v WHERE v."run_id" = a."run_id"`);
    await q.query(`DROP TABLE "optimizer"."verdicts"`);
  }
}
