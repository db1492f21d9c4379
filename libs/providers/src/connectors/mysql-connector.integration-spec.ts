import { createServer, type Server } from 'node:net';
import { ProviderError } from '../core/provider-error';
import { createMariaDbSandbox, type MariaDbSandbox } from '../../test/mariadb-fixture';
import { summariseColumns } from './mysql-column-stats';
import { runReadOnlySql, type MySqlEndpoint } from './mysql-connector';

const caught = async (p: Promise<unknown>): Promise<ProviderError> => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a rejection');
};

describe('read-only SQL connector against a real MariaDB', () => {
  let db: MariaDbSandbox;
  let endpoint: MySqlEndpoint;

  beforeAll(async () => {
    db = await createMariaDbSandbox();
    endpoint = { host: db.host, port: db.port, user: db.readOnlyUser, password: db.readOnlyPassword, database: db.schema };
    const rows = Array.from({ length: 40 }, (_, i) => [i + 1, i % 3 === 0 ? 'us-west-2' : 'eu-central-1', (i + 1) * 1.5, `customer note ${i} with SELECT words`, new Date(Date.UTC(2026, 10, 20, 10, i))]);
    await db.admin(`INSERT INTO \`${db.schema}\`.orders (id, region, amount, note, created_at) VALUES ?`, [rows]);
  }, 60_000);
  afterAll(async () => db?.drop());

  it('streams a SELECT into compact column statistics', async () => {
    const result = await runReadOnlySql(endpoint, 'SELECT region, amount, note, created_at FROM orders ORDER BY id');
    expect(result).toMatchObject({ statement: 'select', truncated: false, readOnlySession: true, statementTimeout: 'max_statement_time' });
    expect(result.rows).toHaveLength(40);
    const stats = summariseColumns(result.columns, result.rows);
    expect(stats.find((c) => c.column === 'amount')).toMatchObject({ kind: 'number', min: 1.5, max: 60, non_null: 40 });
    expect(stats.find((c) => c.column === 'region')?.top_values).toEqual([
      { value: 'eu-central-1', count: 26 },
      { value: 'us-west-2', count: 14 },
    ]);
    expect(stats.find((c) => c.column === 'created_at')).toMatchObject({ kind: 'time', min: '2026-11-20T10:00:00.000Z', max: '2026-11-20T10:39:00.000Z' });
    // Free text is counted, never shown.
    expect(JSON.stringify(stats)).not.toContain('customer note');
  });

  it('caps rows and bytes while streaming', async () => {
    const byRows = await runReadOnlySql(endpoint, 'SELECT seq FROM seq_1_to_100000', { limits: { maxRows: 25 } });
    expect(byRows).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(byRows.rows).toHaveLength(25);
    const byBytes = await runReadOnlySql(endpoint, "SELECT REPEAT('x', 1000) AS filler FROM seq_1_to_1000", { limits: { maxBytes: 10_000 } });
    expect(byBytes).toMatchObject({ truncated: true, truncatedBy: 'bytes' });
    expect(byBytes.rows.length).toBeLessThan(11);
  });

  it('runs with a read-only session; a writing function is not even sent (function allowlist)', async () => {
    const flag = await runReadOnlySql(endpoint, 'SELECT @@session.tx_read_only AS ro');
    expect(flag.rows).toEqual([[1]]);
    // That the session itself refuses such a write is shown in read-only-hostile.integration-spec.ts.
    const error = await caught(runReadOnlySql(endpoint, 'SELECT aoc_write_probe() AS wrote'));
    expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
    expect(error.detail).toMatch(/function aoc_write_probe\(\) is not allowed/);
    expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.schema}\`.orders WHERE id = 999999`)).toEqual([{ n: 0 }]);
  });

  it('the account itself is read-only too (defence in depth)', async () => {
    const raw = await db.connectReadOnly();
    try {
      await expect(raw.query('INSERT INTO orders (id) VALUES (123456)')).rejects.toMatchObject({ errno: 1142 });
    } finally {
      await raw.end();
    }
  });

  it('rejects writes, multi-statements and locking reads before any network use', async () => {
    let connections = 0;
    const trap: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    const port = (trap.address() as { port: number }).port;
    const trapEndpoint = { ...endpoint, port };
    try {
      for (const [sql, why] of [
        ['DELETE FROM orders', /DELETE/],
        ['SELECT 1; DROP TABLE orders', /exactly one statement/],
        ['INSERT INTO orders (id) VALUES (1)', /INSERT/],
        ['SELECT * FROM orders FOR UPDATE', /locking read/],
        ["SELECT * FROM orders INTO OUTFILE '/tmp/x'", /INTO/],
        ['SELECT SLEEP(10)', /sleep/],
        ['SELECT 1 /*!50000 , SLEEP(10) */', /executable comments/],
        ['SELECT * FROM orders /*! FOR UPDATE */', /executable comments/],
        ["SELECT wait_for_executed_gtid_set('x', 1)", /function wait_for_executed_gtid_set\(\) is not allowed/],
      ] as const) {
        const error = await caught(runReadOnlySql(trapEndpoint, sql, { field: 'queries.0.sql' }));
        expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
        expect(error.detail).toMatch(/^queries\.0\.sql: /);
        expect(error.detail).toMatch(why);
      }
      expect(connections).toBe(0);
    } finally {
      await new Promise((r) => trap.close(r));
    }
  });

  it('stops a statement at the server-side timeout', async () => {
    const error = await caught(runReadOnlySql(endpoint, 'SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b', { limits: { statementTimeoutMs: 300 } }));
    expect(error.code).toBe('PROVIDER.TIMEOUT');
    expect(error.detail).toMatch(/max_statement_time/);
  });

  // The server keeps the abandoned statement until its own timeout, so keep that short here.
  it('cancels on the abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await caught(runReadOnlySql(endpoint, 'SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b', { signal: controller.signal, limits: { statementTimeoutMs: 1500 } }));
    expect(error.code).toBe('PROVIDER.TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports a server error without echoing the statement or the password', async () => {
    const error = await caught(runReadOnlySql(endpoint, 'SELECT no_such_column FROM orders'));
    expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
    expect(error.detail).toMatch(/no_such_column/);
    const denied = await caught(runReadOnlySql({ ...endpoint, password: 'wrong-password-123' }, 'SELECT 1'));
    expect(denied.code).toBe('PROVIDER.AUTH_FAILED');
    expect(denied.detail).not.toContain('wrong-password-123');
    expect(denied.detail).not.toContain('127.0.0.1');
  });
});
