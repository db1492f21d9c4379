import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ProviderExecutorRecords1764500000000 implements MigrationInterface {
  name = 'ProviderExecutorRecords1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "provider_executor"."provider_query_attempts" (
      "id" bigserial PRIMARY KEY,
      "batch_id" text NOT NULL,
      "request_id" text NOT NULL,
      "run_id" text NOT NULL,
      "query_id" text NOT NULL,
      "expression_hash" text NOT NULL,
      "attempt" int NOT NULL,
      "outcome" text NOT NULL,
      "error_code" text,
      "detail_error" text,
      "folded" boolean NOT NULL,
      "at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "provider_query_attempts_request_idx" ON "provider_executor"."provider_query_attempts" ("request_id", "query_id")`);
    await q.query(`CREATE TABLE "provider_executor"."provider_query_events" (
      "batch_id" text NOT NULL,
      "query_id" text NOT NULL,
      "run_id" text NOT NULL,
      "provider" text NOT NULL,
      "outcome" text NOT NULL,
      "supplemental" boolean NOT NULL,
      "at" timestamptz NOT NULL,
      PRIMARY KEY ("batch_id", "query_id")
    )`);
    await q.query(`CREATE TABLE "provider_executor"."provider_http_attempts" (
      "id" bigserial PRIMARY KEY,
      "batch_id" text NOT NULL,
      "query_id" text NOT NULL,
      "provider" text NOT NULL,
      "status_class" text NOT NULL,
      "at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE "provider_executor"."provider_system_events" (
      "id" bigserial PRIMARY KEY,
      "batch_id" text NOT NULL,
      "query_id" text NOT NULL,
      "provider" text NOT NULL,
      "status_sequence" jsonb NOT NULL,
      "result" text NOT NULL,
      "upstream_error" text NOT NULL,
      "request_id" text,
      "at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE "provider_executor"."evidence_recordings" (
      "key" text PRIMARY KEY,
      "entry" jsonb NOT NULL,
      "recorded_at" timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['evidence_recordings', 'provider_system_events', 'provider_http_attempts', 'provider_query_events', 'provider_query_attempts']) {
      await q.query(`DROP TABLE "provider_executor"."${t}"`);
    }
  }
}
