import { storageStateDdl } from '@aoc/providers';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Browser storage state of the Wetech package, written back with revision compare-and-set. */
export class ProviderExecutorBrowserState1764600000000 implements MigrationInterface {
  name = 'ProviderExecutorBrowserState1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(storageStateDdl('provider_executor'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "provider_executor"."provider_browser_state"`);
  }
}
