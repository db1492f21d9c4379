import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The real judge: frozen tickets per run, mode/trigger and the quality projection on answers,
 * raw feedback bindings and comment versions, evaluations with both position-ordered results,
 * and failed judgments. Existing rows are kept and backfilled where the data exists.
 */
export class JudgeEvaluation1764500000000 implements MigrationInterface {
  name = 'JudgeEvaluation1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "judge"."frozen_tickets" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "title" text NOT NULL,
      "description" text NOT NULL,
      "reporter_role" text NOT NULL,
      "ticket_created_at" timestamptz NOT NULL,
      "labels" jsonb NOT NULL,
      "customer_comments" jsonb NOT NULL,
      "mode" text NOT NULL,
      "trigger" text NOT NULL,
      "cutoff" timestamptz,
      "requested_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "idx_judge_frozen_tickets_ticket" ON "judge"."frozen_tickets" ("ticket_key")`);

    await q.query(`ALTER TABLE "judge"."answers"
      ADD COLUMN "mode" text NOT NULL DEFAULT 'read',
      ADD COLUMN "trigger" text NOT NULL DEFAULT 'initial',
      ADD COLUMN "latest_evaluation_id" text,
      ADD COLUMN "latest_verdict" text,
      ADD COLUMN "quality_score" smallint,
      ADD COLUMN "quality_source" text NOT NULL DEFAULT 'none',
      ADD COLUMN "judge_review_requested" boolean NOT NULL DEFAULT false`);
    // Answers judged by the skeleton keep their verdict as the current projection.
    await q.query(`UPDATE "judge"."answers" AS a
      SET "latest_evaluation_id" = e."evaluation_id",
          "latest_verdict" = e."verdict",
          "quality_score" = CASE e."verdict" WHEN 'human_better' THEN 0 WHEN 'not_compared' THEN NULL ELSE 1 END,
          "quality_source" = CASE e."verdict" WHEN 'not_compared' THEN 'none' ELSE 'judge' END
      FROM (SELECT DISTINCT ON ("run_id") "run_id", "evaluation_id", "verdict" FROM "judge"."evaluations" ORDER BY "run_id", "judged_at" DESC) AS e
      WHERE e."run_id" = a."run_id"`);
    await q.query(`ALTER TABLE "judge"."answers"
      ALTER COLUMN "mode" DROP DEFAULT,
      ALTER COLUMN "trigger" DROP DEFAULT,
      ALTER COLUMN "quality_source" DROP DEFAULT,
      ALTER COLUMN "judge_review_requested" DROP DEFAULT,
      DROP COLUMN "judged"`);
    await q.query(`CREATE INDEX "idx_judge_answers_ticket" ON "judge"."answers" ("ticket_key")`);

    await q.query(`CREATE TABLE "judge"."feedback_bindings" (
      "comment_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "run_id" text NOT NULL,
      "answer_fingerprint" text NOT NULL,
      "action" text NOT NULL,
      "reason" text NOT NULL,
      "comment_created_at" text NOT NULL,
      "comment_updated_at" text NOT NULL,
      "author_role" text NOT NULL,
      "visibility" text NOT NULL,
      "bound_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "idx_judge_feedback_bindings_ticket" ON "judge"."feedback_bindings" ("ticket_key")`);
    await q.query(`CREATE TABLE "judge"."feedback_comments" (
      "comment_id" text NOT NULL,
      "comment_updated_at" text NOT NULL,
      "ticket_key" text NOT NULL,
      "comment_created_at" text NOT NULL,
      "author_role" text NOT NULL,
      "visibility" text NOT NULL,
      "body" text NOT NULL,
      "recorded_at" timestamptz NOT NULL,
      PRIMARY KEY ("comment_id", "comment_updated_at")
    )`);

    await q.query(`ALTER TABLE "judge"."evaluations"
      ADD COLUMN "ticket_key" text NOT NULL DEFAULT '',
      ADD COLUMN "answer_fingerprint" text NOT NULL DEFAULT '',
      ADD COLUMN "verdict_reason" text NOT NULL DEFAULT '',
      ADD COLUMN "judge_engine" text NOT NULL DEFAULT 'builtin-rubric-v1',
      ADD COLUMN "judge_trigger" text NOT NULL DEFAULT 'human_answer',
      ADD COLUMN "orders_agree" boolean,
      ADD COLUMN "raw_results" jsonb NOT NULL DEFAULT '[]',
      ADD COLUMN "payload" jsonb,
      ADD COLUMN "quality_projection" jsonb`);
    await q.query(`UPDATE "judge"."evaluations" AS e SET "ticket_key" = a."ticket_key", "answer_fingerprint" = a."answer_fingerprint"
      FROM "judge"."answers" AS a WHERE a."run_id" = e."run_id"`);
    await q.query(`ALTER TABLE "judge"."evaluations"
      ALTER COLUMN "ticket_key" DROP DEFAULT,
      ALTER COLUMN "answer_fingerprint" DROP DEFAULT,
      ALTER COLUMN "verdict_reason" DROP DEFAULT,
      ALTER COLUMN "judge_engine" DROP DEFAULT,
      ALTER COLUMN "judge_trigger" DROP DEFAULT,
      ALTER COLUMN "raw_results" DROP DEFAULT`);
    await q.query(`CREATE INDEX "idx_judge_evaluations_run" ON "judge"."evaluations" ("run_id")`);

    await q.query(`CREATE TABLE "judge"."evaluation_failures" (
      "evaluation_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "ticket_key" text NOT NULL,
      "code" text NOT NULL,
      "message" text NOT NULL,
      "retryable" boolean NOT NULL,
      "blocking" boolean NOT NULL,
      "failures" integer NOT NULL,
      "failed_at" timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "judge"."evaluation_failures"`);
    await q.query(`DROP INDEX "judge"."idx_judge_evaluations_run"`);
    await q.query(`ALTER TABLE "judge"."evaluations"
      DROP COLUMN "ticket_key", DROP COLUMN "answer_fingerprint", DROP COLUMN "verdict_reason", DROP COLUMN "judge_engine",
      DROP COLUMN "judge_trigger", DROP COLUMN "orders_agree", DROP COLUMN "raw_results", DROP COLUMN "payload", DROP COLUMN "quality_projection"`);
    await q.query(`DROP TABLE "judge"."feedback_comments"`);
    await q.query(`DROP TABLE "judge"."feedback_bindings"`);
    await q.query(`DROP INDEX "judge"."idx_judge_answers_ticket"`);
    await q.query(`ALTER TABLE "judge"."answers" ADD COLUMN "judged" boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE "judge"."answers" SET "judged" = "latest_evaluation_id" IS NOT NULL`);
    await q.query(`ALTER TABLE "judge"."answers"
      DROP COLUMN "mode", DROP COLUMN "trigger", DROP COLUMN "latest_evaluation_id", DROP COLUMN "latest_verdict",
      DROP COLUMN "quality_score", DROP COLUMN "quality_source", DROP COLUMN "judge_review_requested"`);
    await q.query(`DROP TABLE "judge"."frozen_tickets"`);
  }
}
