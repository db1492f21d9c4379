import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The timeline collector's watch list and cursor: answered tickets it re-reads for new comments. */
export class RouterTimelineWatch1765000000000 implements MigrationInterface {
  name = 'RouterTimelineWatch1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "router"."timeline_watch" (
      "ticket_key" text PRIMARY KEY,
      "last_answered_at" timestamptz NOT NULL,
      "visible_until" timestamptz NOT NULL,
      "revision" bigint NOT NULL,
      "digest" text,
      "status" text NOT NULL,
      "reason" text,
      "failures" int NOT NULL,
      "next_poll_at" timestamptz NOT NULL,
      "last_polled_at" timestamptz
    )`);
    await q.query(`CREATE INDEX "idx_router_timeline_watch_due" ON "router"."timeline_watch" ("status", "next_poll_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "router"."timeline_watch"`);
  }
}
