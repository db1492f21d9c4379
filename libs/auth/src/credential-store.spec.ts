import { startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { createAuthDataSource, migrateAuthStore } from './auth-store';
import { SessionStore } from './session-store';
import { TokenStore } from './token-store';

/** Tokens and sessions in the credential store, on the embedded Postgres. */
describe('credential store', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  let now = new Date('2026-12-03T10:00:00Z');
  const clock = () => now;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    expect(await migrateAuthStore(pg.url)).toEqual(['AuthInit1765000000000']);
    expect(await migrateAuthStore(pg.url)).toEqual([]);
    ds = createAuthDataSource(pg.url, 1);
    await ds.initialize();
  }, 120000);

  afterAll(async () => {
    await ds.destroy();
    await pg.stop();
  });

  it('creates a token shown once, stores only its hash, and verifies it to its role and tenant', async () => {
    const store = new TokenStore(ds, clock);
    const { token, summary } = await store.create({ name: 'ci', role: 'support', tenant: 'acme', createdBy: 'test', expiresAt: new Date('2026-12-04T10:00:00Z') });
    const rows: { secret_hash: string }[] = await ds.query('SELECT * FROM "auth"."api_tokens"');
    // The secret is base64url, so it may itself hold '_': take it by position, not by splitting.
    expect(JSON.stringify(rows)).not.toContain(token.slice('aoc_'.length + 13));
    expect(await store.verify(token)).toEqual({ subject: `token:${summary.id}`, role: 'support', tenant: 'acme', credential: 'api_token' });
    expect((await store.list()).find((t) => t.id === summary.id)).toMatchObject({ role: 'support', tenant: 'acme', lastUsedAt: now.toISOString(), revokedAt: null });
    expect(JSON.stringify(await store.list())).not.toContain('secret');
  });

  it('refuses unknown, forged, revoked and expired tokens with the reason', async () => {
    const store = new TokenStore(ds, clock);
    const { token, summary } = await store.create({ name: 'short', role: 'viewer', tenant: 'acme', createdBy: 'test', expiresAt: new Date(now.getTime() + 3_600_000) });
    expect(await store.verify('aoc_000000000000_' + 'a'.repeat(43))).toBe('unknown');
    expect(await store.verify(`aoc_${summary.id}_${'b'.repeat(43)}`)).toBe('bad_secret');
    expect(await store.verify('not-a-token')).toBe('malformed');
    now = new Date(now.getTime() + 2 * 3_600_000);
    expect(await store.verify(token)).toBe('expired');
    const other = await store.create({ name: 'revoked', role: 'viewer', tenant: 'acme', createdBy: 'test' });
    expect(await store.revoke(other.summary.id)).toBe(true);
    expect(await store.revoke('ffffffffffff')).toBe(false);
    expect(await store.verify(other.token)).toBe('revoked');
  });

  it('lets only an admin token span every tenant', async () => {
    const store = new TokenStore(ds, clock);
    await expect(store.create({ name: 'x', role: 'operator', tenant: '*', createdBy: 'test' })).rejects.toThrow(/only an admin/);
    await expect(store.create({ name: 'x', role: 'admin', tenant: '*', createdBy: 'test' })).resolves.toBeDefined();
  });

  it('ends a session after its idle time, its absolute time, or sign-out', async () => {
    const sessions = new SessionStore(ds, { idleMs: 30 * 60_000, absoluteMs: 2 * 3_600_000 }, clock);
    const principal = { subject: 'token:abc', role: 'viewer' as const, tenant: 'acme', credential: 'session' as const };
    const a = await sessions.open(principal);
    expect(await sessions.resume(a.cookieValue)).toEqual({ principal, csrfToken: a.csrfToken });
    now = new Date(now.getTime() + 20 * 60_000);
    expect(await sessions.resume(a.cookieValue)).toMatchObject({ principal });
    now = new Date(now.getTime() + 31 * 60_000);
    expect(await sessions.resume(a.cookieValue)).toBe('idle');

    const b = await sessions.open(principal);
    for (let i = 0; i < 5; i++) {
      now = new Date(now.getTime() + 25 * 60_000);
      await sessions.resume(b.cookieValue);
    }
    expect(await sessions.resume(b.cookieValue)).toBe('expired');

    const c = await sessions.open(principal);
    await sessions.end(c.cookieValue);
    expect(await sessions.resume(c.cookieValue)).toBe('ended');
    expect(await sessions.resume('x'.repeat(43))).toBe('unknown');
  });
});
