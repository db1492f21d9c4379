import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read models for the daily/weekly reports, provider health and answer versions: execution
 * details, provider query/HTTP/5xx events, ticket timelines, raw and bound /ao feedback, and a
 * per-run projection (anchor, latest evaluation of the answer version, quality). Rows recorded
 * before this migration are back-filled only from facts already stored; nothing is guessed.
 */
export class ReporterReadModels1764500000000 implements MigrationInterface {
  name = 'ReporterReadModels1764500000000';

  async up(q: QueryRunner): Promise<void> {
    // published_runs: the publication mode (earlier rows came from the router's default, read).
    await q.query(`ALTER TABLE "reporter"."published_runs" ADD COLUMN "mode" text NOT NULL DEFAULT 'read'`);
    await q.query(`ALTER TABLE "reporter"."published_runs" ALTER COLUMN "mode" DROP DEFAULT`);
    await q.query(`ALTER TABLE "reporter"."published_runs" ADD COLUMN "cutoff" timestamptz`);
    await q.query(`CREATE INDEX "reporter_runs_published_idx" ON "reporter"."published_runs" ("published_at", "run_id")`);
    await q.query(`CREATE INDEX "reporter_runs_ticket_idx" ON "reporter"."published_runs" ("ticket_key", "published_at")`);

    // run_executions: what the runtime signal and provider health need.
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "ticket_key" text`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "recorded_at" timestamptz`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "response_engine" text`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "evidence_capability" text`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "evidence_providers" text[] NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ALTER COLUMN "evidence_providers" DROP DEFAULT`);
    await q.query(`ALTER TABLE "reporter"."run_executions" ADD COLUMN "payload_digest" text`);
    await q.query(
      `UPDATE "reporter"."run_executions" x SET "ticket_key" = r."ticket_key" FROM "reporter"."published_runs" r WHERE r."run_id" = x."run_id"`,
    );

    // evaluations: the answer version judged.
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "ticket_key" text`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "answer_fingerprint" text`);
    await q.query(`ALTER TABLE "reporter"."evaluations" ADD COLUMN "judge_engine" text`);
    await q.query(
      `UPDATE "reporter"."evaluations" e SET "ticket_key" = r."ticket_key", "answer_fingerprint" = r."answer_fingerprint" FROM "reporter"."published_runs" r WHERE r."run_id" = e."run_id"`,
    );
    await q.query(`CREATE INDEX "reporter_evaluations_version_idx" ON "reporter"."evaluations" ("ticket_key", "answer_fingerprint", "judged_at")`);
    await q.query(`CREATE INDEX "reporter_evaluations_run_idx" ON "reporter"."evaluations" ("run_id", "judged_at")`);

    await q.query(`CREATE TABLE "reporter"."ticket_timelines" (
      "ticket_key" text PRIMARY KEY,
      "revision" bigint NOT NULL,
      "observed_at" timestamptz NOT NULL,
      "content_digest" text NOT NULL
    )`);
    await q.query(`CREATE TABLE "reporter"."timeline_comments" (
      "ticket_key" text NOT NULL,
      "comment_id" text NOT NULL,
      "position" integer NOT NULL,
      "author_role" text NOT NULL,
      "visibility" text NOT NULL,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL,
      "body" text NOT NULL,
      "visible_to_ai" boolean NOT NULL,
      "is_feedback" boolean NOT NULL,
      PRIMARY KEY ("ticket_key", "comment_id")
    )`);
    await q.query(`CREATE INDEX "reporter_comments_ticket_idx" ON "reporter"."timeline_comments" ("ticket_key", "created_at")`);

    await q.query(`CREATE TABLE "reporter"."feedback_comment_versions" (
      "ticket_key" text NOT NULL,
      "comment_id" text NOT NULL,
      "content_digest" text NOT NULL,
      "author_role" text NOT NULL,
      "visibility" text NOT NULL,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL,
      "body" text NOT NULL,
      "visible_to_ai" boolean NOT NULL,
      "action" text NOT NULL,
      "reason" text NOT NULL,
      PRIMARY KEY ("ticket_key", "comment_id", "content_digest")
    )`);
    await q.query(`CREATE TABLE "reporter"."feedback_bindings" (
      "ticket_key" text NOT NULL,
      "comment_id" text NOT NULL,
      "run_id" text NOT NULL,
      "answer_fingerprint" text NOT NULL,
      "action" text NOT NULL,
      "reason" text NOT NULL,
      "comment_created_at" timestamptz NOT NULL,
      "comment_updated_at" timestamptz NOT NULL,
      "author_role" text NOT NULL,
      "visibility" text NOT NULL,
      PRIMARY KEY ("ticket_key", "comment_id")
    )`);
    await q.query(`CREATE INDEX "reporter_bindings_run_idx" ON "reporter"."feedback_bindings" ("run_id")`);

    await q.query(`CREATE TABLE "reporter"."answer_projections" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "published_at" timestamptz NOT NULL,
      "counted" boolean NOT NULL,
      "anchor_kind" text NOT NULL,
      "anchor_at" timestamptz,
      "human_reply_at" timestamptz,
      "evaluation_id" text,
      "verdict" text,
      "quality_score" smallint,
      "quality_source" text NOT NULL,
      "judge_review_requested" boolean NOT NULL,
      "has_feedback" boolean NOT NULL
    )`);
    await q.query(`CREATE INDEX "reporter_projections_ticket_idx" ON "reporter"."answer_projections" ("ticket_key")`);
    // The runs a report counts (trigger initial|bot_assignment) by publication time: every report
    // starts with a range scan of this partial index.
    await q.query(
      `CREATE INDEX "reporter_projections_counted_idx" ON "reporter"."answer_projections" ("published_at") INCLUDE ("run_id", "ticket_key") WHERE "counted"`,
    );
    await q.query(`CREATE TABLE "reporter"."answer_feedback" (
      "run_id" text NOT NULL,
      "comment_id" text NOT NULL,
      "ticket_key" text NOT NULL,
      "action" text NOT NULL,
      "inherited" boolean NOT NULL,
      PRIMARY KEY ("run_id", "comment_id")
    )`);

    await q.query(`CREATE TABLE "reporter"."provider_query_events" (
      "run_id" text NOT NULL,
      "scenario_id" text NOT NULL,
      "query_id" text NOT NULL,
      "ticket_key" text NOT NULL,
      "provider" text NOT NULL,
      "outcome" text NOT NULL,
      "supplemental" boolean NOT NULL,
      "at" timestamptz NOT NULL,
      "day" date NOT NULL,
      "counted" boolean NOT NULL,
      PRIMARY KEY ("run_id", "scenario_id", "query_id")
    )`);
    // Provider facts carry whether their run is counted (initial|bot_assignment), so provider
    // health is an index-only scan of the period's days, without a join to the runs.
    await q.query(
      `CREATE INDEX "reporter_query_events_day_idx" ON "reporter"."provider_query_events" ("day", "provider") INCLUDE ("outcome", "supplemental") WHERE "counted"`,
    );
    await q.query(`CREATE TABLE "reporter"."provider_http_attempts" (
      "run_id" text NOT NULL,
      "ordinal" integer NOT NULL,
      "ticket_key" text NOT NULL,
      "scenario_id" text NOT NULL,
      "query_id" text NOT NULL,
      "provider" text NOT NULL,
      "status_class" text NOT NULL,
      "at" timestamptz NOT NULL,
      "day" date NOT NULL,
      "counted" boolean NOT NULL,
      PRIMARY KEY ("run_id", "ordinal")
    )`);
    await q.query(
      `CREATE INDEX "reporter_http_attempts_day_idx" ON "reporter"."provider_http_attempts" ("day", "provider") INCLUDE ("status_class") WHERE "counted"`,
    );
    await q.query(`CREATE TABLE "reporter"."provider_system_events" (
      "run_id" text NOT NULL,
      "ordinal" integer NOT NULL,
      "ticket_key" text NOT NULL,
      "scenario_id" text NOT NULL,
      "query_id" text NOT NULL,
      "provider" text NOT NULL,
      "status_sequence" integer[] NOT NULL,
      "result" text NOT NULL,
      "upstream_error" text NOT NULL,
      "request_id" text,
      "at" timestamptz NOT NULL,
      "day" date NOT NULL,
      "counted" boolean NOT NULL,
      PRIMARY KEY ("run_id", "ordinal")
    )`);
    await q.query(`CREATE INDEX "reporter_system_events_day_idx" ON "reporter"."provider_system_events" ("day") WHERE "counted"`);

    // Projections for runs recorded earlier: no feedback was consumed before, so the latest
    // verdict of the answer version decides (the same mapping as expectedQualityScore).
    await q.query(`INSERT INTO "reporter"."answer_projections"
      ("run_id", "ticket_key", "published_at", "counted", "anchor_kind", "anchor_at", "human_reply_at", "evaluation_id", "verdict", "quality_score",
       "quality_source", "judge_review_requested", "has_feedback")
      SELECT r."run_id", r."ticket_key", r."published_at", r."trigger" IN ('initial', 'bot_assignment'),
             CASE WHEN r."trigger" = 'replay' AND r."mode" = 'read' THEN 'none' ELSE 'internal_comment' END,
             CASE WHEN r."trigger" = 'replay' AND r."mode" = 'read' THEN NULL ELSE r."published_at" END,
             NULL, e."evaluation_id", e."verdict",
             CASE WHEN e."verdict" IS NULL OR e."verdict" = 'not_compared' THEN NULL WHEN e."verdict" = 'human_better' THEN 0 ELSE 1 END,
             CASE WHEN e."verdict" IS NULL THEN 'none' ELSE 'judge' END,
             false, false
        FROM "reporter"."published_runs" r
        LEFT JOIN LATERAL (
          SELECT v."evaluation_id", v."verdict" FROM "reporter"."evaluations" v
           WHERE v."ticket_key" = r."ticket_key" AND v."answer_fingerprint" = r."answer_fingerprint"
           ORDER BY v."judged_at" DESC, v."evaluation_id" DESC LIMIT 1
        ) e ON true`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'provider_system_events',
      'provider_http_attempts',
      'provider_query_events',
      'answer_feedback',
      'answer_projections',
      'feedback_bindings',
      'feedback_comment_versions',
      'timeline_comments',
      'ticket_timelines',
    ]) {
      await q.query(`DROP TABLE "reporter"."${table}"`);
    }
    await q.query(`DROP INDEX "reporter"."reporter_evaluations_run_idx"`);
    await q.query(`DROP INDEX "reporter"."reporter_evaluations_version_idx"`);
    for (const column of ['judge_engine', 'answer_fingerprint', 'ticket_key']) await q.query(`ALTER TABLE "reporter"."evaluations" DROP COLUMN "${column}"`);
    for (const column of ['payload_digest', 'evidence_providers', 'evidence_capability', 'response_engine', 'recorded_at', 'ticket_key']) {
      await q.query(`ALTER TABLE "reporter"."run_executions" DROP COLUMN "${column}"`);
    }
    await q.query(`DROP INDEX "reporter"."reporter_runs_ticket_idx"`);
    await q.query(`DROP INDEX "reporter"."reporter_runs_published_idx"`);
    await q.query(`ALTER TABLE "reporter"."published_runs" DROP COLUMN "cutoff"`);
    await q.query(`ALTER TABLE "reporter"."published_runs" DROP COLUMN "mode"`);
  }
}
