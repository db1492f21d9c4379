import { busTablesDdl, dropBusTablesDdl } from '@aoc/bus';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ProviderExecutorInit1764400000000 implements MigrationInterface {
  name = 'ProviderExecutorInit1764400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const ddl of busTablesDdl('provider_executor')) await q.query(ddl);
    await q.query(`CREATE TABLE "provider_executor"."batch_executions" (
      "batch_id" text PRIMARY KEY,
      "run_id" text NOT NULL,
      "scenario_id" text NOT NULL,
      "provider" text NOT NULL,
      "status" text NOT NULL,
      "query_count" int NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "provider_executor"."batch_executions"`);
    for (const ddl of dropBusTablesDdl('provider_executor')) await q.query(ddl);
  }
}
