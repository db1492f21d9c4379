import { createServer, type Server, type Socket } from 'node:net';
import { createMariaDbSandbox, type MariaDbSandbox } from '../../../test/mariadb-fixture';
import type { MySqlStatsEndpoint } from '../../connectors/mysql-connector';
import { prometheusEvidencePackage, type PrometheusTarget } from './prometheus.package';

const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const SECRET_LITERAL = 'hunter2-literal-9f3k';

describe('generic package sql on a MySQL/MariaDB target (real MariaDB)', () => {
  let db: MariaDbSandbox;
  let mysql: MySqlStatsEndpoint;
  let silent: Server;
  let silentPort: number;
  const held = new Set<Socket>();

  beforeAll(async () => {
    db = await createMariaDbSandbox();
    await db.admin(`GRANT PROCESS ON *.* TO ?@'%'`, [db.readOnlyUser]);
    await db.admin(`GRANT SELECT ON performance_schema.* TO ?@'%'`, [db.readOnlyUser]);
    mysql = { host: db.host, port: db.port, user: db.readOnlyUser, password: db.readOnlyPassword, connectTimeoutMs: 300 };
    // Accepts connections and never answers: a SQL endpoint that times out.
    silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as { port: number }).port;
  }, 60_000);
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => silent?.close(r));
    await db?.drop();
  });

  const run = async (endpoint: MySqlStatsEndpoint, queries: { id: string; expression: string }[]) => {
    const targets: PrometheusTarget[] = [{ name: 'maria-1', baseUrl: 'http://127.0.0.1:9', mysql: endpoint }];
    const pkg = prometheusEvidencePackage(targets);
    const result = await pkg.runBatch({ ticketKey: null, target: 'maria-1', window: WINDOW, queries: queries.map((q) => ({ ...q, operation: 'sql' as const })) });
    if (!result.ok) throw new Error(`batch failed: ${result.details.error_code}`);
    return Object.fromEntries(result.details.queries.map((q) => [q.id, q]));
  };

  it('offers sql for the MySQL target and answers statistics reads with digest references, never statement text or the secret literal', async () => {
    const admin = await db.connectReadOnly();
    // A session holding a statement with a literal in the processlist while the package reads it.
    const sleeper = admin.query(`SELECT SLEEP(2), '${SECRET_LITERAL}' AS note`).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    try {
      const out = await run(mysql, [
        { id: 'plist', expression: "SELECT COMMAND AS command, COALESCE(STATE, '') AS state, COUNT(*) AS sessions, MAX(TIME) AS longest_s FROM information_schema.PROCESSLIST GROUP BY COMMAND, STATE ORDER BY sessions DESC LIMIT 30" },
        { id: 'info', expression: 'SELECT ID AS id, INFO, HOST, USER FROM information_schema.PROCESSLIST' },
        { id: 'trx', expression: "SELECT COUNT(*) AS transactions, SUM(CASE WHEN trx_state = 'LOCK WAIT' THEN 1 ELSE 0 END) AS lock_waits FROM information_schema.INNODB_TRX" },
        { id: 'metrics', expression: "SELECT NAME AS name, `COUNT` AS value FROM information_schema.INNODB_METRICS WHERE NAME IN ('lock_deadlocks', 'lock_timeouts') ORDER BY NAME" },
        { id: 'settings', expression: 'SELECT @@GLOBAL.max_connections AS max_connections, @@GLOBAL.read_only AS read_only' },
        { id: 'digests', expression: 'SELECT DIGEST AS digest, DIGEST_TEXT, COUNT_STAR AS calls FROM performance_schema.events_statements_summary_by_digest ORDER BY SUM_TIMER_WAIT DESC LIMIT 10' },
        { id: 'write', expression: 'SELECT * FROM mysql.user' },
        { id: 'pg', expression: 'SELECT state, count(*) AS sessions FROM pg_stat_activity GROUP BY state' },
      ]);
      expect(out['plist']).toMatchObject({ status: 'complete', result: { operation: 'sql', dialect: 'mysql', relations: ['information_schema.processlist'], columns: ['command', 'state', 'sessions', 'longest_s'] } });
      expect(out['info']).toMatchObject({ status: 'complete', result: { columns: ['id', 'info_digest', 'info_kind', 'host', 'user'] } });
      const rows = (out['info'].result as { rows: unknown[][] }).rows;
      const sleeping = rows.find((r) => r[2] === 'SELECT');
      expect(sleeping?.[1]).toMatch(/^stmt:[0-9a-f]{16}$/);
      expect(rows.every((r) => r[3] === '[redacted]' && /^user:[0-9a-f]{16}$/.test(String(r[4])))).toBe(true);
      expect(out['trx']).toMatchObject({ status: 'complete', result: { columns: ['transactions', 'lock_waits'] } });
      expect(out['metrics']).toMatchObject({ status: 'complete', result: { rows: [['lock_deadlocks', 0], ['lock_timeouts', 0]] } });
      expect(out['settings']).toMatchObject({ status: 'complete', result: { columns: ['max_connections', 'read_only'], relations: [] } });
      // performance_schema is off on this server: the digest table answers empty, not an error.
      expect(out['digests']).toMatchObject({ status: 'empty', result: { columns: ['digest', 'digest_text_digest', 'digest_text_kind', 'calls'], rowCount: 0 } });
      expect(out['write']).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/^queries\.write\.sql: relation mysql\.user is not allowed/) });
      expect(out['pg']).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED' });
      const text = JSON.stringify(out);
      for (const leak of [SECRET_LITERAL, 'SLEEP(2)', db.readOnlyPassword, db.readOnlyUser]) expect(text).not.toContain(leak);
    } finally {
      await sleeper;
      await admin.end();
    }
    const pkg = prometheusEvidencePackage([{ name: 'maria-1', baseUrl: 'http://127.0.0.1:9', mysql }]);
    expect(await pkg.discoverMetrics?.({ target: 'maria-1', window: WINDOW })).toMatchObject({ operations: ['promql_range', 'promql_instant', 'sql'] });
  }, 30_000);

  it('reports a SQL endpoint that never answers as PROVIDER.TIMEOUT, without its address or password', async () => {
    const out = await run({ ...mysql, port: silentPort }, [{ id: 'trx', expression: 'SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX' }]);
    expect(out['trx']).toMatchObject({ status: 'failed', error_code: 'PROVIDER.TIMEOUT' });
    expect(JSON.stringify(out)).not.toMatch(new RegExp(`${silentPort}|${db.readOnlyPassword}`));
  }, 30_000);
});
