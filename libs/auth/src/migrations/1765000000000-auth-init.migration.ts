import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthInit1765000000000 implements MigrationInterface {
  name = 'AuthInit1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "auth"."api_tokens" (
      "token_id" text PRIMARY KEY,
      "secret_hash" text NOT NULL,
      "name" text NOT NULL,
      "role" text NOT NULL,
      "tenant" text NOT NULL,
      "created_by" text NOT NULL,
      "created_at" timestamptz NOT NULL,
      "expires_at" timestamptz,
      "revoked_at" timestamptz,
      "last_used_at" timestamptz
    )`);
    await q.query(`CREATE TABLE "auth"."sessions" (
      "id_hash" text PRIMARY KEY,
      "subject" text NOT NULL,
      "role" text NOT NULL,
      "tenant" text NOT NULL,
      "credential" text NOT NULL,
      "csrf_token" text NOT NULL,
      "created_at" timestamptz NOT NULL,
      "last_seen_at" timestamptz NOT NULL,
      "expires_at" timestamptz NOT NULL,
      "ended_at" timestamptz
    )`);
    await q.query(`CREATE INDEX "IDX_auth_sessions_last_seen_at" ON "auth"."sessions" ("last_seen_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."sessions"`);
    await q.query(`DROP TABLE "auth"."api_tokens"`);
  }
}
