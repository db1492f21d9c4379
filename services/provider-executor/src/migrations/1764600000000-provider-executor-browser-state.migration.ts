import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Browser storage state of the Wetech package, written back with revision compare-and-set. */
export class ProviderExecutorBrowserState1764600000000 implements MigrationInterface {
  name = 'ProviderExecutorBrowserState1764600000000';

  async up(q: QueryRunner): Promise<void> {
    // Frozen: the table as it was when this migration was written, never the library's current DDL.
    await q.query(`CREATE TABLE IF NOT EXISTS "provider_executor".provider_browser_state (
  state_key text PRIMARY KEY,
  revision bigint NOT NULL CHECK (revision > 0),
  sealed_state text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "provider_executor"."provider_browser_state"`);
  }
}
