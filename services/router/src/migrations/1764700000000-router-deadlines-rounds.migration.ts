import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Deadlines per run and per scenario thread, evidence rounds of a thread, and write-back state. */
export class RouterDeadlinesRounds1764700000000 implements MigrationInterface {
  name = 'RouterDeadlinesRounds1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "router"."runs" ADD "deadline_at" timestamptz`);
    await q.query(`ALTER TABLE "router"."runs" ADD "decision" text`);
    await q.query(`ALTER TABLE "router"."runs" ADD "write_back" jsonb`);
    await q.query(`ALTER TABLE "router"."runs" ADD "answer" jsonb`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "round" int NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "rounds" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "deadline_at" timestamptz`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "stop_condition" text`);
    await q.query(`ALTER TABLE "router"."scenario_threads" ADD "window" jsonb`);
    await q.query(`CREATE INDEX "scenario_threads_open_deadline" ON "router"."scenario_threads" ("deadline_at") WHERE "status" <> 'concluded'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "router"."scenario_threads_open_deadline"`);
    for (const column of ['window', 'stop_condition', 'deadline_at', 'rounds', 'round']) await q.query(`ALTER TABLE "router"."scenario_threads" DROP COLUMN "${column}"`);
    for (const column of ['answer', 'write_back', 'decision', 'deadline_at']) await q.query(`ALTER TABLE "router"."runs" DROP COLUMN "${column}"`);
  }
}
