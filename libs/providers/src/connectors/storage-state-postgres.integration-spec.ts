import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { postgresStorageStateStore, storageStateDdl, STORAGE_STATE_TABLE } from './storage-state-postgres';
import { StorageStateConflictError, type BrowserStorageState } from './storage-state-store';

const state = (token: string): BrowserStorageState => ({
  cookies: [{ name: 'sid', value: token, domain: 'dashboard.example', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' }],
  origins: [{ origin: 'https://dashboard.example', localStorage: [{ name: 'dashboard_auth_token', value: token }] }],
});

describe('Postgres storage state store (real Postgres, private schema)', () => {
  const schema = `aoc_state_${randomBytes(4).toString('hex')}`;
  const key = randomBytes(32);
  let pool: Pool;

  beforeAll(async () => {
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 6 });
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(storageStateDdl(schema));
    await pool.query(storageStateDdl(schema)); // idempotent
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  });

  const store = (stateKey = 'wetech/auth/storage-state', sealKey = key) => postgresStorageStateStore({ db: pool, schema, key: stateKey, sealKey });

  it('reads nothing at revision 0, then round-trips with increasing revisions', async () => {
    const s = store('round-trip');
    expect(await s.read()).toEqual({ revision: 0, state: null });
    expect(await s.write(0, state('t1'))).toBe(1);
    expect(await s.write(1, state('t2'))).toBe(2);
    expect(await s.read()).toEqual({ revision: 2, state: state('t2') });
  });

  it('keeps the state sealed at rest', async () => {
    await store('sealed').write(0, state('very-secret-session-token'));
    const raw = await pool.query(`SELECT sealed_state FROM ${schema}.${STORAGE_STATE_TABLE} WHERE state_key = 'sealed'`);
    expect(JSON.stringify(raw.rows)).not.toContain('very-secret-session-token');
  });

  it('lets exactly one of many concurrent writers win a revision; the others get a typed conflict', async () => {
    const s = store('race');
    await s.write(0, state('base'));
    const writers = Array.from({ length: 6 }, (_, i) => postgresStorageStateStore({ db: pool, schema, key: 'race', sealKey: key }).write(1, state(`w${i}`)).then((revision) => ({ revision }), (error: unknown) => ({ error })));
    const outcomes = await Promise.all(writers);
    const won = outcomes.filter((o): o is { revision: number } => 'revision' in o);
    const lost = outcomes.filter((o): o is { error: unknown } => 'error' in o);
    expect(won).toEqual([{ revision: 2 }]);
    expect(lost).toHaveLength(5);
    for (const l of lost) expect(l.error).toMatchObject({ code: 'PROVIDER.STORAGE_STATE_CONFLICT', expectedRevision: 1, actualRevision: 2 });
    expect(lost[0].error).toBeInstanceOf(StorageStateConflictError);
  });

  it('treats two first writers the same way', async () => {
    const outcomes = await Promise.allSettled([store('first').write(0, state('a')), store('first').write(0, state('b'))]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('discards a state sealed under another key and lets the next write replace it', async () => {
    await store('rotated', randomBytes(32)).write(0, state('old'));
    const snapshot = await store('rotated').read();
    expect(snapshot).toEqual({ revision: 1, state: null, discarded: 'unreadable' });
    expect(await store('rotated').write(snapshot.revision, state('new'))).toBe(2);
    expect((await store('rotated').read()).state).toEqual(state('new'));
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => storageStateDdl('x"; DROP TABLE y; --')).toThrow(/plain lower-case SQL identifier/);
  });
});
