import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Recent Focus optimizer's state: answer versions and the latest timeline it has seen (to
 * bind /ao and digest the sources), problem-signal refs with their consumption, rejected
 * groupings, Focuses, and the append-only checkpoint log every step resumes from.
 */
export class OptimizerFocus1765300000000 implements MigrationInterface {
  name = 'OptimizerFocus1765300000000';

  async up(q: QueryRunner): Promise<void> {
    // The coarse per-run rows are replaced by refs with their source version.
    await q.query(`DROP TABLE "optimizer"."problem_signals"`);
    await q.query(`CREATE TABLE "optimizer"."answer_versions" (
      "run_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "answer_fingerprint" text NOT NULL,
      "cutoff" timestamptz,
      "published_at" timestamptz NOT NULL,
      "decision" text NOT NULL,
      "requested_context" jsonb NOT NULL DEFAULT '[]'::jsonb,
      "leading_family" text,
      "verdict" text,
      "verdict_revision" integer NOT NULL DEFAULT 0,
      "ai_gap_count" integer NOT NULL DEFAULT 0
    )`);
    await q.query(`CREATE INDEX "answer_versions_ticket" ON "optimizer"."answer_versions" ("ticket_key", "published_at")`);
    await q.query(`CREATE TABLE "optimizer"."ticket_timelines" (
      "ticket_key" text PRIMARY KEY,
      "revision" bigint NOT NULL,
      "comments" jsonb NOT NULL,
      "bindings" jsonb NOT NULL DEFAULT '[]'::jsonb,
      "observed_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE "optimizer"."signal_refs" (
      "ref" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "kind" text NOT NULL,
      "signature" text NOT NULL,
      "statement" text NOT NULL,
      "source" jsonb NOT NULL,
      "coverage" text,
      "evaluation_id" text,
      "feedback_comment_id" text,
      "state" text NOT NULL DEFAULT 'open' CHECK ("state" IN ('open', 'consumed', 'suppressed')),
      "focus_id" text,
      "first_seen_at" timestamptz NOT NULL DEFAULT now(),
      "last_seen_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX "signal_refs_open" ON "optimizer"."signal_refs" ("state", "signature")`);
    await q.query(`CREATE TABLE "optimizer"."focus_rejections" (
      "grouping_digest" text PRIMARY KEY,
      "signature" text NOT NULL,
      "outcome" text NOT NULL,
      "reason" text NOT NULL,
      "candidate" jsonb NOT NULL,
      "baseline" jsonb,
      "rejected_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE "optimizer"."focuses" (
      "focus_id" text PRIMARY KEY,
      "focus_digest" text NOT NULL,
      "status" text NOT NULL,
      "signature" text NOT NULL,
      "candidate" jsonb NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    // At most one active Focus, whichever replica creates it.
    await q.query(`CREATE UNIQUE INDEX "focuses_one_active" ON "optimizer"."focuses" ((true)) WHERE "status" = 'active'`);
    await q.query(`CREATE TABLE "optimizer"."checkpoints" (
      "focus_id" text NOT NULL REFERENCES "optimizer"."focuses" ("focus_id"),
      "seq" integer NOT NULL,
      "kind" text NOT NULL,
      "focus_digest" text NOT NULL,
      "base_version" text NOT NULL,
      "attempt" integer NOT NULL,
      "candidate_digest" text,
      "payload" jsonb NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("focus_id", "seq")
    )`);
    await q.query(`CREATE TABLE "optimizer"."leases" ("name" text PRIMARY KEY, "owner" text NOT NULL, "until" timestamptz NOT NULL)`);
    // A finished step is written once: a resumed run that repeats it finds it instead.
    await q.query(`CREATE UNIQUE INDEX "checkpoints_step" ON "optimizer"."checkpoints" ("focus_id", "kind", "attempt", "base_version", coalesce("candidate_digest", ''))`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['leases', 'checkpoints', 'focuses', 'focus_rejections', 'signal_refs', 'ticket_timelines', 'answer_versions']) await q.query(`DROP TABLE "optimizer"."${t}"`);
    await q.query(`CREATE TABLE "optimizer"."problem_signals" ("signal_id" text PRIMARY KEY, "run_id" text NOT NULL, "ticket_key" text NOT NULL, "kind" text NOT NULL, "detail" text NOT NULL, "created_at" timestamptz NOT NULL DEFAULT now())`);
  }
}
