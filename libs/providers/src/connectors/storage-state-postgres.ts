import { AocError } from '@aoc/errors';
import { openJson, sealJson, SealedBoxError } from '../core/sealed-box';
import { BrowserStorageState, StorageStateConflictError, type StorageStateSnapshot, type StorageStateStore } from './storage-state-store';

/** The part of a pg `Pool`/`Client` (or any compatible driver) the store uses. */
export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
export const STORAGE_STATE_TABLE = 'provider_browser_state';

function schemaName(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new AocError('PROVIDER.CONFIG_INVALID', `schema "${schema}" is not a plain lower-case SQL identifier`);
  return `"${schema}"`;
}

/**
 * DDL of the browser state table. The Provider Executor owns the migration that runs it; the
 * state itself is sealed (AES-256-GCM) because it carries live session credentials.
 */
export function storageStateDdl(schema: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${schemaName(schema)}.${STORAGE_STATE_TABLE} (`,
    '  state_key text PRIMARY KEY,',
    '  revision bigint NOT NULL CHECK (revision > 0),',
    '  sealed_state text NOT NULL,',
    '  updated_at timestamptz NOT NULL DEFAULT now()',
    ');',
  ].join('\n');
}

export interface PostgresStorageStateOptions {
  db: SqlQueryable;
  schema: string;
  /** One row per key, e.g. `wetech/auth/storage-state`. */
  key: string;
  /** 32-byte key sealing the state at rest. */
  sealKey: Buffer;
}

/** Compare-and-set store on one Postgres row: an UPDATE guarded by the revision read earlier. */
export function postgresStorageStateStore(options: PostgresStorageStateOptions): StorageStateStore {
  const table = `${schemaName(options.schema)}.${STORAGE_STATE_TABLE}`;
  const purpose = `aoc:storage-state:${options.key}`;
  const currentRevision = async (): Promise<number> => {
    const res = await options.db.query(`SELECT revision FROM ${table} WHERE state_key = $1`, [options.key]);
    const row = res.rows[0] as { revision: string | number } | undefined;
    return row ? Number(row.revision) : 0;
  };
  return {
    read: async (): Promise<StorageStateSnapshot> => {
      const res = await options.db.query(`SELECT revision, sealed_state FROM ${table} WHERE state_key = $1`, [options.key]);
      const row = res.rows[0] as { revision: string | number; sealed_state: string } | undefined;
      if (!row) return { revision: 0, state: null };
      const revision = Number(row.revision);
      let opened: unknown;
      try {
        opened = openJson(options.sealKey, purpose, row.sealed_state);
      } catch (error) {
        // Sealed under another key or damaged: start from no state; the next write replaces the row.
        if (error instanceof SealedBoxError) return { revision, state: null, discarded: 'unreadable' };
        throw error;
      }
      const state = BrowserStorageState.safeParse(opened);
      if (!state.success) return { revision, state: null, discarded: 'unreadable' };
      return { revision, state: state.data };
    },
    write: async (expectedRevision: number, state: BrowserStorageState): Promise<number> => {
      const sealed = sealJson(options.sealKey, purpose, BrowserStorageState.parse(state));
      const res =
        expectedRevision === 0
          ? await options.db.query(`INSERT INTO ${table} (state_key, revision, sealed_state) VALUES ($1, 1, $2) ON CONFLICT (state_key) DO NOTHING RETURNING revision`, [options.key, sealed])
          : await options.db.query(`UPDATE ${table} SET revision = revision + 1, sealed_state = $3, updated_at = now() WHERE state_key = $1 AND revision = $2 RETURNING revision`, [options.key, expectedRevision, sealed]);
      const row = res.rows[0] as { revision: string | number } | undefined;
      if (!row) throw new StorageStateConflictError(expectedRevision, await currentRevision());
      return Number(row.revision);
    },
  };
}
