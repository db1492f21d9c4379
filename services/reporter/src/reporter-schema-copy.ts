import { quoteIdent } from '@aoc/persistence';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { REPORTER_MIGRATIONS } from './reporter.definition';
import { ReporterTables } from './reporter.tables';

/**
 * Creates the reporter's tables in another schema by running the reporter's own migrations with
 * `"reporter"` rewritten to that schema: benches and integration suites work on a private copy
 * that is exactly what the migrations build, without touching the service's schema.
 */
export async function createReporterSchemaCopy(dataSource: DataSource, schema: string): Promise<ReporterTables> {
  const target = quoteIdent(schema);
  const runner = {
    query: (sql: string, parameters?: unknown[]) => dataSource.query(sql.replace(/"reporter"/g, target), parameters),
  } as unknown as QueryRunner;
  await dataSource.query(`DROP SCHEMA IF EXISTS ${target} CASCADE`);
  await dataSource.query(`CREATE SCHEMA ${target}`);
  for (const Migration of REPORTER_MIGRATIONS) {
    const migration: MigrationInterface = new Migration();
    await migration.up(runner);
  }
  return new ReporterTables(schema);
}

export async function dropReporterSchemaCopy(dataSource: DataSource, schema: string): Promise<void> {
  if (schema === 'reporter') throw new Error('refusing to drop the reporter service schema');
  await dataSource.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
}
