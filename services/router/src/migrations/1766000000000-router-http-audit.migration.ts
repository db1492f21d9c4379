import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The HTTP audit trail of the role's API (who did what to which target, with what outcome). */
export class RouterHttpAudit1766000000000 implements MigrationInterface {
  name = 'RouterHttpAudit1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "router"."http_audit" (
      "id" bigserial PRIMARY KEY,
      "at" timestamptz NOT NULL,
      "subject" text NOT NULL,
      "tenant" text,
      "role" text,
      "action" text NOT NULL,
      "target" text NOT NULL,
      "status" int NOT NULL
    )`);
    await q.query(`CREATE INDEX "http_audit_at_idx" ON "router"."http_audit" ("at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "router"."http_audit"`);
  }
}
