import { TokenStore, createAuthDataSource } from '@aoc/auth';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { expiryOf, parseTokenArgs, runTokenCommand } from './cli-token';

describe('aoc token', () => {
  let pg: EmbeddedPostgres;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
  }, 120000);

  afterAll(async () => {
    await pg.stop();
  });

  it('parses create, list and revoke and names a bad option', () => {
    const env = { DATABASE_URL: 'postgres://x@127.0.0.1:5432/db' };
    expect(parseTokenArgs(['create', '--role', 'support', '--tenant', 'acme', '--expires-in', '90d'], env)).toEqual({ action: 'create', database: env.DATABASE_URL, role: 'support', tenant: 'acme', name: 'cli', expiresIn: '90d' });
    expect(parseTokenArgs(['list', '--database', 'postgres://y@h/db'], env)).toEqual({ action: 'list', database: 'postgres://y@h/db' });
    expect(() => parseTokenArgs(['create', '--role', 'root', '--tenant', 'acme'], env)).toThrow(/--role/);
    expect(() => parseTokenArgs(['create', '--role', 'viewer', '--tenant', 'acme', '--expires-in', 'soon'], env)).toThrow(/--expires-in: a duration/);
    expect(() => parseTokenArgs(['revoke', 'nope'], env)).toThrow(/<id>: a token id/);
    expect(() => parseTokenArgs(['list'], {})).toThrow(/--database \(or DATABASE_URL\)/);
    expect(() => parseTokenArgs(['rotate'], env)).toThrow(/action \(create, list or revoke\)/);
    expect(expiryOf('12h', new Date('2026-12-03T00:00:00Z'))?.toISOString()).toBe('2026-12-03T12:00:00.000Z');
    expect(expiryOf(undefined, new Date())).toBeNull();
  });

  it('creates a token printed once, lists it without its secret, and revokes it', async () => {
    const created = await runTokenCommand(parseTokenArgs(['create', '--role', 'operator', '--tenant', 'acme', '--name', 'ci-bot', '--expires-in', '1d', '--database', pg.url]));
    const secret = created[1].replace('secret, shown once: ', '');
    expect(secret).toMatch(/^aoc_[0-9a-f]{12}_/);
    const id = secret.slice(4, 16);
    expect(created[0]).toMatch(new RegExp(`^token ${id} created \\(operator, tenant acme, expires `));
    const listed = await runTokenCommand(parseTokenArgs(['list', '--database', pg.url]));
    expect(listed.join('\n')).toContain(`${id}  operator tenant=acme  ci-bot`);
    expect(listed.join('\n')).not.toContain(secret.slice(17));
    const ds = createAuthDataSource(pg.url, 1);
    await ds.initialize();
    try {
      expect(await new TokenStore(ds).verify(secret)).toMatchObject({ role: 'operator', tenant: 'acme' });
      expect(await runTokenCommand(parseTokenArgs(['revoke', id, '--database', pg.url]))).toEqual([`token ${id} revoked`]);
      expect(await new TokenStore(ds).verify(secret)).toBe('revoked');
    } finally {
      await ds.destroy();
    }
    expect(await runTokenCommand(parseTokenArgs(['revoke', 'ffffffffffff', '--database', pg.url]))).toEqual(['no token ffffffffffff']);
  });
});
