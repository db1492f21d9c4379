import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The single-ticket lane. Jobs are keyed by a digest of ticket and trigger, so a redelivered
 * trigger is the same job; the partial unique index allows one unfinished job per ticket, so a
 * second trigger arriving at the same time joins it (recorded in `single_ticket_triggers`). Each
 * signal ref gets a sequence number: the optimizer-candidates feed pages by it, and a consumer's
 * cursor (`single_ticket_cursors`) is the last number it took.
 */
export class OptimizerSingleTicket1766700000000 implements MigrationInterface {
  name = 'OptimizerSingleTicket1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "optimizer"."signal_refs" ADD COLUMN "seq" bigserial`);
    await q.query(`CREATE UNIQUE INDEX "signal_refs_seq" ON "optimizer"."signal_refs" ("seq")`);
    await q.query(`CREATE TABLE "optimizer"."single_ticket_jobs" (
      "job_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "tenant" text,
      "trigger" jsonb NOT NULL,
      "status" text NOT NULL,
      "terminal" boolean NOT NULL DEFAULT false,
      "outcome" text,
      "reason" text NOT NULL,
      "investigation" jsonb,
      "repair" jsonb,
      "publication" jsonb,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL,
      "finished_at" timestamptz
    )`);
    await q.query(`CREATE UNIQUE INDEX "single_ticket_jobs_one_open" ON "optimizer"."single_ticket_jobs" ("ticket_key") WHERE NOT "terminal"`);
    await q.query(`CREATE INDEX "single_ticket_jobs_open" ON "optimizer"."single_ticket_jobs" ("created_at") WHERE NOT "terminal"`);
    await q.query(`CREATE TABLE "optimizer"."single_ticket_triggers" (
      "trigger_id" text PRIMARY KEY,
      "ticket_key" text NOT NULL,
      "job_id" text NOT NULL,
      "joined" boolean NOT NULL,
      "trigger" jsonb NOT NULL,
      "at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "single_ticket_triggers_job" ON "optimizer"."single_ticket_triggers" ("job_id")`);
    await q.query(`CREATE TABLE "optimizer"."single_ticket_cursors" (
      "consumer" text PRIMARY KEY,
      "cursor" bigint NOT NULL,
      "updated_at" timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "optimizer"."single_ticket_cursors"`);
    await q.query(`DROP TABLE "optimizer"."single_ticket_triggers"`);
    await q.query(`DROP TABLE "optimizer"."single_ticket_jobs"`);
    await q.query(`DROP INDEX "optimizer"."signal_refs_seq"`);
    await q.query(`ALTER TABLE "optimizer"."signal_refs" DROP COLUMN "seq"`);
  }
}
