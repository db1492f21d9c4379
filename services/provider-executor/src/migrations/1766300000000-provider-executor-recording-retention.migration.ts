import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Recordings are kept by default now: each notes its run and size (for the caps) and is found by age (for retention). */
export class ProviderExecutorRecordingRetention1766300000000 implements MigrationInterface {
  name = 'ProviderExecutorRecordingRetention1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "provider_executor"."evidence_recordings" ADD "run_id" text`);
    await q.query(`ALTER TABLE "provider_executor"."evidence_recordings" ADD "bytes" integer NOT NULL DEFAULT 0`);
    // Rows recorded before this migration count towards the total cap by their stored size.
    await q.query(`UPDATE "provider_executor"."evidence_recordings" SET "bytes" = octet_length("entry"::text)`);
    await q.query(`CREATE INDEX "evidence_recordings_recorded_at_idx" ON "provider_executor"."evidence_recordings" ("recorded_at")`);
    await q.query(`CREATE INDEX "evidence_recordings_run_idx" ON "provider_executor"."evidence_recordings" ("run_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "provider_executor"."evidence_recordings_run_idx"`);
    await q.query(`DROP INDEX "provider_executor"."evidence_recordings_recorded_at_idx"`);
    await q.query(`ALTER TABLE "provider_executor"."evidence_recordings" DROP COLUMN "bytes"`);
    await q.query(`ALTER TABLE "provider_executor"."evidence_recordings" DROP COLUMN "run_id"`);
  }
}
