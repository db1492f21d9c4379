import { createServiceDataSource, migrateSchema } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { AUTH_SCHEMA, ApiTokenEntity, SessionEntity } from './auth.entities';
import { AuthInit1765000000000 } from './migrations/1765000000000-auth-init.migration';

/** The credential store as the hosting code sees it: add its entities to a role's data source. */
export const AUTH_STORE = {
  schema: AUTH_SCHEMA,
  entities: [ApiTokenEntity, SessionEntity],
  migrations: [AuthInit1765000000000],
} as const;

// Several roles may start at once against one database: one migrates, the others wait.
const MIGRATION_LOCK = 7_240_001;

/** Creates or updates the credential store's schema; safe to call from every role at boot. */
export async function migrateAuthStore(url: string): Promise<string[]> {
  const ds = createAuthDataSource(url, 1);
  await ds.initialize();
  try {
    await ds.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      return await migrateSchema(ds, AUTH_SCHEMA);
    } finally {
      await ds.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await ds.destroy();
  }
}

/** A data source of the credential store alone (the `aoc token` commands, migration checks). */
export function createAuthDataSource(url: string, poolSize = 2): DataSource {
  return createServiceDataSource({ url, schema: AUTH_SCHEMA, entities: [...AUTH_STORE.entities], migrations: [...AUTH_STORE.migrations], poolSize, applicationName: 'aoc-auth' });
}
