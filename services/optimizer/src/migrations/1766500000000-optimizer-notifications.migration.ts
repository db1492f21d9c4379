import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notification outbox: one row per terminal optimiser result (a Focus in a final status, a
 * problem verified or ineffective, later a single-ticket job), keyed by an id derived from the
 * result, so one result is one row and one id however often it is written. The body is kept as
 * the exact bytes that are signed and sent; `status` is where its delivery stands (`pending`,
 * `delivered`, `gave_up` after the last attempt, `not_configured` when no webhook was). And the
 * history of each Focus's transitions (the path it took through the state machine).
 */
export class OptimizerNotifications1766500000000 implements MigrationInterface {
  name = 'OptimizerNotifications1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "optimizer"."notifications" (
      "notification_id" text PRIMARY KEY,
      "kind" text NOT NULL CHECK ("kind" IN ('focus.terminal', 'problem.decided', 'single_ticket.result')),
      "schema_version" integer NOT NULL,
      "subject" text NOT NULL,
      "tenants" text[] NOT NULL DEFAULT '{default}',
      "body" text NOT NULL,
      "status" text NOT NULL CHECK ("status" IN ('pending', 'delivered', 'gave_up', 'not_configured')),
      "attempts" integer NOT NULL DEFAULT 0,
      "next_attempt_at" timestamptz,
      "claimed_by" text,
      "last_attempt_at" timestamptz,
      "last_status_code" integer,
      "last_error" text,
      "created_at" timestamptz NOT NULL,
      "delivered_at" timestamptz,
      "updated_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "notifications_due" ON "optimizer"."notifications" ("next_attempt_at") WHERE "status" = 'pending'`);
    await q.query(`CREATE INDEX "notifications_subject" ON "optimizer"."notifications" ("subject")`);
    await q.query(`CREATE TABLE "optimizer"."focus_transitions" (
      "id" bigserial PRIMARY KEY,
      "focus_id" text NOT NULL,
      "from_status" text NOT NULL,
      "outcome" text NOT NULL,
      "to_status" text NOT NULL,
      "reason" text,
      "at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "focus_transitions_focus" ON "optimizer"."focus_transitions" ("focus_id", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "optimizer"."focus_transitions"`);
    await q.query(`DROP TABLE "optimizer"."notifications"`);
  }
}
