import { BrowserStorageState, memoryStorageStateStore, StorageStateConflictError } from './storage-state-store';

const state = (token: string): BrowserStorageState => ({ cookies: [], origins: [{ origin: 'https://dashboard.example', localStorage: [{ name: 'dashboard_auth_token', value: token }] }] });

describe('in-memory storage state store', () => {
  it('starts empty at revision 0 and bumps the revision on each write', async () => {
    const store = memoryStorageStateStore();
    expect(await store.read()).toEqual({ revision: 0, state: null });
    expect(await store.write(0, state('a'))).toBe(1);
    expect(await store.write(1, state('b'))).toBe(2);
    expect(await store.read()).toEqual({ revision: 2, state: state('b') });
  });

  it('refuses a write against a stale revision with a typed conflict', async () => {
    const store = memoryStorageStateStore();
    const [a, b] = await Promise.all([store.read(), store.read()]);
    await store.write(a.revision, state('a'));
    const conflict = await store.write(b.revision, state('b')).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(StorageStateConflictError);
    expect(conflict).toMatchObject({ code: 'PROVIDER.STORAGE_STATE_CONFLICT', expectedRevision: 0, actualRevision: 1 });
    expect((await store.read()).state).toEqual(state('a'));
  });

  it('hands out copies, so a caller cannot change the stored state in place', async () => {
    const store = memoryStorageStateStore();
    await store.write(0, state('a'));
    const read = await store.read();
    read.state?.origins[0].localStorage.push({ name: 'x', value: 'y' });
    expect((await store.read()).state).toEqual(state('a'));
  });

  it('refuses something that is not a storage state', async () => {
    const store = memoryStorageStateStore();
    await expect(store.write(0, { cookies: 'nope' } as unknown as BrowserStorageState)).rejects.toThrow();
    expect(BrowserStorageState.safeParse({ cookies: [], origins: [{ origin: 'o', localStorage: [{ name: 'n', value: 'v'.repeat(2_000_000) }] }] }).success).toBe(false);
  });
});
