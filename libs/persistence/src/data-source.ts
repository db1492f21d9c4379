import { DataSource, type EntitySchema, type MixedList } from 'typeorm';
import { quoteIdent } from './schema-name';

// TypeORM accepts entity classes and migration classes as constructor functions.
type Constructor = abstract new (...args: never[]) => object;

export interface ServiceDataSourceOptions {
  url: string;
  /** The schema this data source migrates; also holds its migrations table. */
  schema: string;
  entities?: MixedList<Constructor | string | EntitySchema>;
  migrations?: MixedList<Constructor | string>;
  /** 1 for the embedded store (single session); small pools for real Postgres. */
  poolSize?: number;
  applicationName?: string;
  /** Bounds on every connection (defaults: POOL_TIMEOUTS). */
  timeouts?: Partial<PoolTimeouts>;
}

export interface PoolTimeouts {
  /** A connection not established in this time fails, instead of hanging a handler. */
  connectMs: number;
  /** The server cancels a statement running longer (a report over 100k runs takes seconds). */
  statementMs: number;
  /** The server ends a session left idle inside a transaction this long (a crashed handler's locks go with it). */
  idleInTransactionMs: number;
}

export const POOL_TIMEOUTS: PoolTimeouts = { connectMs: 10_000, statementMs: 300_000, idleInTransactionMs: 120_000 };

export function createServiceDataSource(options: ServiceDataSourceOptions): DataSource {
  const timeouts = { ...POOL_TIMEOUTS, ...options.timeouts };
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities ?? [],
    migrations: options.migrations ?? [],
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    poolSize: options.poolSize ?? 5,
    applicationName: options.applicationName ?? `aoc-${options.schema}`,
    synchronize: false,
    logging: ['error'],
    // node-postgres pool and session settings: sent with each connection, so they hold for every query.
    extra: { connectionTimeoutMillis: timeouts.connectMs, statement_timeout: timeouts.statementMs, idle_in_transaction_session_timeout: timeouts.idleInTransactionMs },
  });
}

/** Creates the schema if needed, then runs its pending migrations. Returns the names it ran. */
export async function migrateSchema(dataSource: DataSource, schema: string): Promise<string[]> {
  await dataSource.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  const ran = await dataSource.runMigrations({ transaction: 'each' });
  return ran.map((m) => m.name);
}

/**
 * Lists what is out of date for a schema: migrations not yet run, and SQL that TypeORM would
 * still need to make the tables match the entities (a missing migration). Empty means clean.
 */
export async function pendingSchemaChanges(dataSource: DataSource, schema: string): Promise<{ migrations: string[]; drift: string[] }> {
  const rows: { name: string }[] = await dataSource.query(`SELECT name FROM ${quoteIdent(schema)}.typeorm_migrations`).catch(() => []);
  const executed = new Set(rows.map((r) => r.name));
  const migrations = dataSource.migrations.map((m) => m.name ?? m.constructor.name).filter((n) => !executed.has(n));
  const log = await dataSource.driver.createSchemaBuilder().log();
  return { migrations, drift: log.upQueries.map((q) => q.query) };
}
