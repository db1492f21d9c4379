import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrateRole } from './boot-role';
import type { ServiceDefinition } from './service-definition';

/**
 * Replicas of a role booting together on an empty schema (compose, a scaled Deployment without its
 * migration Job): on a real Postgres, both boots succeed and the migration runs once.
 */
const DATABASE = `aoc_migrate_${randomUUID().slice(0, 8)}`;

class SlowInit1700000000001 implements MigrationInterface {
  name = 'SlowInit1700000000001';
  async up(q: QueryRunner): Promise<void> {
    // Plain DDL that fails when run twice, slowed so that two boots overlap for certain.
    await q.query('SELECT pg_sleep(0.5)');
    await q.query('CREATE TABLE "judge"."probe" ("id" int PRIMARY KEY)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "judge"."probe"');
  }
}

@Module({})
class NoModule {}

const definition: ServiceDefinition = { role: 'judge', publishes: [], entities: [], migrations: [SlowInit1700000000001], module: () => ({ module: NoModule }) };

describe('migrateRole (real Postgres)', () => {
  let admin: Client;
  let url: string;

  beforeAll(async () => {
    const base = process.env['DATABASE_URL'];
    if (!base) throw new Error('DATABASE_URL is required (bash deploy/local/postgres-ensure.sh)');
    admin = new Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${DATABASE}"`);
    const u = new URL(base);
    u.pathname = `/${DATABASE}`;
    url = u.toString();
  });

  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin?.end();
  });

  it('two boots at once on an empty schema: both succeed and the migration runs once', async () => {
    const [a, b] = await Promise.all([migrateRole(definition, url), migrateRole(definition, url)]);
    expect([...a, ...b]).toEqual(['SlowInit1700000000001']);
    const check = new Client({ connectionString: url });
    await check.connect();
    try {
      const rows = await check.query('SELECT count(*)::int AS n FROM "judge"."typeorm_migrations"');
      expect(rows.rows[0]).toEqual({ n: 1 });
    } finally {
      await check.end();
    }
  });
});
