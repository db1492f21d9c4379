import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every provider tool call's audit record, per run (executeTool's audit sink, now kept). */
export class ProviderExecutorToolCalls1765000000000 implements MigrationInterface {
  name = 'ProviderExecutorToolCalls1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "provider_executor"."tool_calls" (
      "call_id" text PRIMARY KEY,
      "batch_id" text NOT NULL,
      "run_id" text NOT NULL,
      "provider" text NOT NULL,
      "tool" text NOT NULL,
      "operations" jsonb NOT NULL,
      "target" text,
      "window_from" timestamptz,
      "window_to" timestamptz,
      "outcome" text NOT NULL,
      "error_code" text,
      "duration_ms" int NOT NULL,
      "output_bytes" int NOT NULL,
      "started_at" timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX "idx_provider_executor_tool_calls_run" ON "provider_executor"."tool_calls" ("run_id", "started_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "provider_executor"."tool_calls"`);
  }
}
