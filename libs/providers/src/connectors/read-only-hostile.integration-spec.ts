import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createConnection, type Connection } from 'mysql2/promise';
import { ProviderError } from '../core/provider-error';
import { createMariaDbSandbox, type MariaDbSandbox } from '../../test/mariadb-fixture';
import { hostileMySql, hostilePg } from '../../test/hostile-queries';
import { startRefusingProxy, type RefusingProxy } from '../../test/mysql-refusing-proxy';
import { startTrapServer, type TrapServer } from '../../test/pg-fixture';
import { DEFAULT_READ_ONLY_SQL_LIMITS, runReadOnlySql, type MySqlEndpoint } from './mysql-connector';
import { prepareSession } from './mysql-session';
import { queryPostgresStats } from './postgres-connector';

const caught = async (p: Promise<unknown>): Promise<ProviderError> => {
  const error = await p.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
};

/** The issue's bypasses and their relatives, each refused before any network use. */
const ISSUE_BYPASSES: readonly string[] = [
  'SELECT 1 /*!50000 , SLEEP(10) */',
  "SELECT 1 /*! INTO OUTFILE '/tmp/x' */",
  'SELECT * FROM orders /*! FOR UPDATE */',
  "SELECT wait_for_executed_gtid_set('x', 1)",
  'SELECT 1 /*M!100000 , SLEEP(10) */',
  'SELECT aoc_write_probe() AS wrote',
  'SELECT * FROM orders LOCK IN SHARE MODE',
  'SELECT @x := 1',
];

describe('read-only that holds, against a real MariaDB', () => {
  let db: MariaDbSandbox;
  const suffix = randomBytes(4).toString('hex');
  const selectOnly = { user: `aoc_sel_${suffix}`, password: `sel-${randomBytes(12).toString('hex')}` };
  const writer = { user: `aoc_wr_${suffix}`, password: `wr-${randomBytes(12).toString('hex')}` };
  const endpointOf = (account: { user: string; password: string }, port = db.port): MySqlEndpoint => ({ host: db.host, port, database: db.schema, ...account });

  beforeAll(async () => {
    db = await createMariaDbSandbox();
    await db.admin(`CREATE TABLE \`${db.schema}\`.aoc_control (id INT)`);
    await db.admin(`INSERT INTO \`${db.schema}\`.orders (id, region) VALUES (1, 'eu'), (2, 'us')`);
    for (const account of [selectOnly, writer]) await db.admin(`CREATE USER ?@'%' IDENTIFIED BY ?`, [account.user, account.password]);
    await db.admin(`GRANT SELECT ON \`${db.schema}\`.* TO ?@'%'`, [selectOnly.user]);
    await db.admin(`GRANT SELECT, INSERT ON \`${db.schema}\`.* TO ?@'%'`, [writer.user]);
    await db.admin(`GRANT EXECUTE ON FUNCTION \`${db.schema}\`.aoc_write_probe TO ?@'%'`, [writer.user]);
  }, 60_000);
  afterAll(async () => {
    for (const account of [selectOnly, writer]) await db?.admin(`DROP USER IF EXISTS ?@'%'`, [account.user]);
    await db?.drop();
  });

  describe('refused statements never reach a server', () => {
    let trap: TrapServer;
    beforeAll(async () => {
      trap = await startTrapServer();
    });
    afterAll(async () => trap.close());

    it('the issue bypasses and generated hostile MySQL/TiDB statements are refused without a connection', async () => {
      const generated = Object.values(hostileMySql).flatMap((family) => fc.sample(family, { numRuns: 40, seed: 18 }));
      for (const sql of [...ISSUE_BYPASSES, ...generated]) {
        const error = await caught(runReadOnlySql(endpointOf(selectOnly, trap.port), sql, { field: 'queries.0.sql' }));
        expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
        expect(error.detail).toMatch(/^queries\.0\.sql: /);
      }
      expect(trap.connections()).toBe(0);
    });

    it('generated hostile PostgreSQL statements are refused without a connection', async () => {
      const generated = Object.values(hostilePg).flatMap((family) => fc.sample(family, { numRuns: 40, seed: 18 }));
      for (const sql of generated) {
        const error = await caught(queryPostgresStats({ host: '127.0.0.1', port: trap.port, database: 'postgres', user: 'aoc', password: 'x' }, sql));
        expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
      }
      expect(trap.connections()).toBe(0);
    });
  });

  describe('the read-only session holds for an account that could write', () => {
    let raw: Connection;
    beforeEach(async () => {
      raw = await createConnection({ ...endpointOf(writer), multipleStatements: false });
    });
    afterEach(async () => raw.end());

    it('without the session setup the account writes (the control)', async () => {
      await raw.query('INSERT INTO aoc_control (id) VALUES (1)');
      expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.schema}\`.aoc_control`)).toEqual([{ n: 1 }]);
      await db.admin(`DELETE FROM \`${db.schema}\`.aoc_control`);
    });

    it('after prepareSession an INSERT and a writing function both fail on the server', async () => {
      expect(await prepareSession(raw, DEFAULT_READ_ONLY_SQL_LIMITS)).toMatchObject({ readOnlySession: true, readOnlyGuard: 'session' });
      await expect(raw.query('INSERT INTO aoc_control (id) VALUES (2)')).rejects.toMatchObject({ errno: 1792 });
      await expect(raw.query('SELECT aoc_write_probe()')).rejects.toMatchObject({ errno: 1792 });
      expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.schema}\`.aoc_control`)).toEqual([{ n: 0 }]);
      expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.schema}\`.orders WHERE id = 999999`)).toEqual([{ n: 0 }]);
    });

    it('the connector reads through that session and says so', async () => {
      // (MariaDB shows @@tx_read_only as 0 inside a statement that reads an InnoDB table, so the flag is read alone.)
      expect((await runReadOnlySql(endpointOf(writer), 'SELECT @@session.tx_read_only AS ro')).rows).toEqual([[1]]);
      const result = await runReadOnlySql(endpointOf(writer), 'SELECT COUNT(*) AS n FROM orders');
      expect(result).toMatchObject({ rows: [[2]], readOnlySession: true, readOnlyGuard: 'session' });
    });
  });

  describe('a server whose session cannot be made read-only (TiDB-like)', () => {
    let proxy: RefusingProxy;
    beforeAll(async () => {
      proxy = await startRefusingProxy({ host: db.host, port: db.port }, (sql) =>
        /^SET SESSION TRANSACTION READ ONLY$/i.test(sql) ? { errno: 1235, sqlState: '42000', message: 'function READ ONLY has only noop implementation in tidb now' } : null,
      );
    });
    afterAll(async () => proxy.close());

    const SQL = 'SELECT region, COUNT(*) AS n FROM orders GROUP BY region ORDER BY region';

    it('is refused without an attestation, and the statement never reaches it', async () => {
      const error = await caught(runReadOnlySql(endpointOf(selectOnly, proxy.port), SQL));
      expect(error.code).toBe('PROVIDER.TARGET_REJECTED');
      expect(error.detail).toMatch(/refused SET SESSION TRANSACTION READ ONLY \(error 1235\).*attestedSelectOnlyAccount: true/);
      expect(proxy.seen()).toContain('SET SESSION TRANSACTION READ ONLY');
      expect(proxy.forwarded()).not.toContain(SQL);
    });

    it('runs for an attested account whose grants are SELECT only', async () => {
      const result = await runReadOnlySql({ ...endpointOf(selectOnly, proxy.port), attestedSelectOnlyAccount: true }, SQL);
      expect(result).toMatchObject({ rows: [['eu', 1], ['us', 1]], readOnlySession: false, readOnlyGuard: 'attested_account' });
      expect(proxy.forwarded()).toContain('SHOW GRANTS');
      expect(proxy.forwarded()).toContain(SQL);
    });

    it.each([
      ['a writing account', () => writer, /the account attested as SELECT-only is not: the account holds INSERT/],
      ['an account that may run a writing function', () => ({ user: db.readOnlyUser, password: db.readOnlyPassword }), /the account holds EXECUTE/],
    ])('is refused for %s attested as SELECT-only, before the statement runs', async (_name, account, why) => {
      const marker = `SELECT COUNT(*) AS marker_${randomBytes(3).toString('hex')} FROM orders`;
      const error = await caught(runReadOnlySql({ ...endpointOf(account(), proxy.port), attestedSelectOnlyAccount: true }, marker));
      expect(error.code).toBe('PROVIDER.TARGET_REJECTED');
      expect(error.detail).toMatch(why);
      expect(error.detail).not.toMatch(/PASSWORD|\*[0-9A-F]{40}/);
      expect(proxy.forwarded()).not.toContain(marker);
    });
  });
});
