import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The answer's clarification request is part of what the Judge reads (older rows: none), and a
 * model judge's verdicts that the built-in judge decided differently are kept for calibration.
 */
export class JudgeCrossCheck1765000000000 implements MigrationInterface {
  name = 'JudgeCrossCheck1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."answers" ADD COLUMN "requested_context" jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`ALTER TABLE "judge"."evaluations" ADD COLUMN "abstention_code" text`);
    await q.query(
      `CREATE TABLE "judge"."judge_disagreements" (
        "evaluation_id" text PRIMARY KEY,
        "run_id" text NOT NULL,
        "ticket_key" text NOT NULL,
        "model_engine" text NOT NULL,
        "model_verdict" text NOT NULL,
        "builtin_verdict" text NOT NULL,
        "builtin_reason" text NOT NULL,
        "recorded_at" timestamptz NOT NULL
      )`,
    );
    await q.query(`CREATE INDEX "idx_judge_disagreements_recorded" ON "judge"."judge_disagreements" ("recorded_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "judge"."judge_disagreements"`);
    await q.query(`ALTER TABLE "judge"."evaluations" DROP COLUMN "abstention_code"`);
    await q.query(`ALTER TABLE "judge"."answers" DROP COLUMN "requested_context"`);
  }
}
