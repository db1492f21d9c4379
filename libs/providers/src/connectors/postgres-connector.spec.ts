import { rejectionOf as caught, startTrapServer, type TrapServer } from '../../test/pg-fixture';
import { intervalSeconds, PostgresStatsEndpoint, postgresStatsSecrets, queryPostgresStats, statementKind, timestampIso } from './postgres-connector';

describe('Postgres statistics connector: values and configuration', () => {
  it.each([
    ['PT0S', 0],
    ['PT-1.5S', -1.5],
    ['PT9M1.912878S', 541.912878],
    ['P1DT2H', 93_600],
    ['P1Y2M-3DT4H5M6.5S', 365.25 * 86_400 + 60 * 86_400 - 3 * 86_400 + 4 * 3600 + 5 * 60 + 6.5],
    ['P2W', 14 * 86_400],
  ])('reads the ISO interval %s as %d seconds', (text, seconds) => {
    expect(intervalSeconds(text)).toBeCloseTo(seconds, 6);
  });

  it.each(['', 'P', 'PT', '1 day 02:00:00', 'P1H'])('does not guess at the interval %p', (text) => {
    expect(intervalSeconds(text)).toBeNull();
  });

  it.each([
    ['2026-12-01 09:11:45.047123+00', '2026-12-01T09:11:45.047Z'],
    ['2026-12-01 09:11:45+00', '2026-12-01T09:11:45.000Z'],
    ['2026-12-01 14:41:45.5+05:30', '2026-12-01T09:11:45.500Z'],
    ['2026-12-01 09:11:45', '2026-12-01T09:11:45.000Z'],
  ])('reads the timestamp %s as %s', (text, iso) => {
    expect(timestampIso(text)).toBe(iso);
  });

  it('leaves infinite and odd timestamps alone', () => {
    expect(timestampIso('infinity')).toBeNull();
    expect(timestampIso('2026-12-01T09:11:45Z')).toBeNull();
  });

  it.each([
    ['SELECT pg_sleep(2)', 'SELECT'],
    ['  (select 1)', 'SELECT'],
    ['/* app=web */ UPDATE accounts SET x = 1', 'UPDATE'],
    ['-- batch\nINSERT INTO t VALUES (1)', 'INSERT'],
    ['with x as (select 1) select * from x', 'WITH'],
    ['autovacuum: VACUUM public.t', 'OTHER'],
    ['', 'OTHER'],
  ])('shapes the statement %p as %s, never more', (text, kind) => {
    expect(statementKind(text)).toBe(kind);
  });

  it('lists the host, host:port and password as secrets', () => {
    expect(postgresStatsSecrets({ host: 'db.internal.example', port: 5432, password: 'pw-123456' })).toEqual(['pw-123456', 'db.internal.example:5432', 'db.internal.example']);
    expect(postgresStatsSecrets({ host: 'db', port: 5432, password: '' })).toEqual(['db:5432', 'db']);
  });

  it('validates the endpoint configuration strictly', () => {
    const ok = { host: 'db.example', port: 5432, database: 'app', user: 'monitor', password: 'pw', ssl: { rejectUnauthorized: true } };
    expect(PostgresStatsEndpoint.parse(ok)).toEqual(ok);
    expect(PostgresStatsEndpoint.safeParse({ ...ok, port: 70000 }).success).toBe(false);
    expect(PostgresStatsEndpoint.safeParse({ ...ok, connectionString: 'postgres://x' }).success).toBe(false);
    expect(PostgresStatsEndpoint.safeParse({ ...ok, ssl: { key: 'x' } }).success).toBe(false);
  });
});

describe('Postgres statistics connector: refusals before any network use', () => {
  let trap: TrapServer;
  beforeAll(async () => {
    trap = await startTrapServer();
  });
  afterAll(async () => trap.close());
  const endpoint = () => ({ host: '127.0.0.1', port: trap.port, database: 'app', user: 'monitor', password: 'very-secret-pw' });

  it('refuses an invalid endpoint without echoing its values', async () => {
    const error = await caught(queryPostgresStats({ ...endpoint(), port: -1 }, 'SELECT 1'));
    expect(error.code).toBe('PROVIDER.INPUT_INVALID');
    expect(error.detail).toMatch(/port/);
    expect(error.detail).not.toContain('very-secret-pw');
  });

  it('refuses statements and bad limits with typed errors', async () => {
    const error = await caught(queryPostgresStats(endpoint(), 'SELECT pg_sleep(5)', { field: 'queries.1.sql' }));
    expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
    expect(error.detail).toBe('queries.1.sql: function pg_sleep() is not allowed');
    expect((await caught(queryPostgresStats(endpoint(), 'SELECT 1', { maxRows: 0 }))).code).toBe('PROVIDER.INPUT_INVALID');
    expect((await caught(queryPostgresStats(endpoint(), 'SELECT 1', { timeoutMs: 1.5 }))).code).toBe('PROVIDER.INPUT_INVALID');
    const aborted = new AbortController();
    aborted.abort();
    expect((await caught(queryPostgresStats(endpoint(), 'SELECT 1', { signal: aborted.signal }))).code).toBe('PROVIDER.TIMEOUT');
    expect(trap.connections()).toBe(0);
  });
});

describe('Postgres statistics connector: connect timeout', () => {
  it('gives up on a server that never answers and says so without its address', async () => {
    const silent = await startTrapServer({ hold: true });
    try {
      const started = Date.now();
      const error = await caught(queryPostgresStats({ host: '127.0.0.1', port: silent.port, database: 'app', user: 'monitor', password: 'very-secret-pw', connectTimeoutMs: 300 }, 'SELECT 1'));
      expect(error.code).toBe('PROVIDER.TIMEOUT');
      expect(error.detail).toBe('connecting to PostgreSQL timed out after 300 ms');
      expect(Date.now() - started).toBeLessThan(3000);
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
  });
});
