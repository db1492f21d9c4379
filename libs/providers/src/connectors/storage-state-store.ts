import { AocError } from '@aoc/errors';
import { z } from 'zod';

/** Playwright's storage state (cookies and per-origin localStorage), bounded. */
export const BrowserStorageState = z
  .object({
    cookies: z
      .array(
        z.object({
          name: z.string().max(4096),
          value: z.string().max(16384),
          domain: z.string().max(256),
          path: z.string().max(1024),
          expires: z.number(),
          httpOnly: z.boolean(),
          secure: z.boolean(),
          sameSite: z.enum(['Strict', 'Lax', 'None']),
        }),
      )
      .max(500),
    origins: z
      .array(
        z.object({
          origin: z.string().max(512),
          localStorage: z.array(z.object({ name: z.string().max(4096), value: z.string().max(65536) })).max(500),
        }),
      )
      .max(100),
  })
  .refine((s) => Buffer.byteLength(JSON.stringify(s), 'utf8') <= 1024 * 1024, { message: 'storage state exceeds 1 MiB' });
export type BrowserStorageState = z.infer<typeof BrowserStorageState>;

export const EMPTY_STORAGE_STATE: BrowserStorageState = { cookies: [], origins: [] };

/** Revision 0 means nothing was ever written. */
export interface StorageStateSnapshot {
  revision: number;
  state: BrowserStorageState | null;
  /** Set when a stored state existed but could not be opened; the next write replaces it. */
  discarded?: 'unreadable';
}

/**
 * Where a package keeps its browser state between executions: read before, written back after,
 * with compare-and-set on the revision so two executions never silently overwrite each other.
 */
export interface StorageStateStore {
  read(): Promise<StorageStateSnapshot>;
  /** Writes when the stored revision is still `expectedRevision`; returns the new revision. */
  write(expectedRevision: number, state: BrowserStorageState): Promise<number>;
}

/** The stored revision moved on since it was read: another execution wrote first. */
export class StorageStateConflictError extends AocError {
  constructor(
    readonly expectedRevision: number,
    readonly actualRevision: number,
  ) {
    super('PROVIDER.STORAGE_STATE_CONFLICT', `storage state revision is ${actualRevision}, expected ${expectedRevision}: another execution wrote first`, {
      retryable: false,
      details: { expectedRevision, actualRevision },
    });
  }
}

/** In-process store, for the embedded deployment and tests. */
export function memoryStorageStateStore(initial: StorageStateSnapshot = { revision: 0, state: null }): StorageStateStore & { snapshot(): StorageStateSnapshot } {
  let current: StorageStateSnapshot = { revision: initial.revision, state: initial.state ? structuredClone(initial.state) : null };
  return {
    read: async () => ({ revision: current.revision, state: current.state ? structuredClone(current.state) : null }),
    write: async (expectedRevision, state) => {
      const checked = BrowserStorageState.parse(state);
      if (current.revision !== expectedRevision) throw new StorageStateConflictError(expectedRevision, current.revision);
      current = { revision: current.revision + 1, state: structuredClone(checked) };
      return current.revision;
    },
    snapshot: () => ({ revision: current.revision, state: current.state ? structuredClone(current.state) : null }),
  };
}
