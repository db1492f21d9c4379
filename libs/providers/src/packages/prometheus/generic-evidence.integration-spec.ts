import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '../../../test/prometheus-fixture';
import { startLokiServer, type RunningLoki } from '../../../test/loki-server-fixture';
import { startTrapServer, type TrapServer } from '../../../test/pg-fixture';
import type { PostgresStatsEndpoint } from '../../connectors/postgres-connector';
import type { HttpCallRecord } from '../../connectors/http-client';
import type { EvidencePackage, QueryEvidence } from '../../core/evidence-package';
import { prometheusEvidencePackage, type PrometheusTarget } from './prometheus.package';

/**
 * One generic endpoint with everything: a real Prometheus holding the cloud-monitoring series of
 * two database instances (label `dbinstance_identifier`), the real local PostgreSQL as the
 * statistics source of one of them, and a Loki server with both instances' logs.
 */

// Three days back, whole hour: backfilled blocks stay clear of the live head block.
const T0 = Math.floor((Date.now() - 3 * 86_400_000) / 3_600_000) * 3600;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 60);
const WINDOW = { from: new Date(T0 * 1000).toISOString(), to: new Date((T0 + 3600) * 1000).toISOString() };
const at = (m: number) => new Date((T0 + m * 60) * 1000).toISOString();

const SERIES: FixtureSeries[] = ['orders-db', 'billing-db'].map((id, k) => ({
  metric: 'aws_rds_database_connections_average',
  type: 'gauge',
  labels: { dbinstance_identifier: id, region: 'eu-west-1' },
  samples: minutes(60).map((t, i) => [t, k === 0 && i >= 40 ? 480 : 40]),
}));

describe('generic package with metrics, PostgreSQL statistics and Loki on one endpoint (real Prometheus, real PostgreSQL)', () => {
  const table = `aoc_generic_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  let prom: RunningPrometheus;
  let loki: RunningLoki;
  let trap: TrapServer;
  let admin: Pool;
  let postgres: PostgresStatsEndpoint;
  let pkg: EvidencePackage;
  const records: { queryId: string; record: HttpCallRecord }[] = [];
  const texts: string[] = [];

  beforeAll(async () => {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: run bash deploy/local/postgres-ensure.sh');
    const parsed = new URL(url);
    postgres = { host: parsed.hostname, port: Number(parsed.port || 5432), user: decodeURIComponent(parsed.username), database: parsed.pathname.slice(1), password };
    admin = new Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, note text)`);
    await admin.query(`INSERT INTO ${table} VALUES (1, 'a')`);
    [prom, loki, trap] = await Promise.all([
      startPrometheus(SERIES),
      startLokiServer([
        {
          labels: { instance: 'orders-db', source: 'postgres' },
          entries: [
            { at: at(2), line: `${at(2)} UTC [101] LOG:  database system is ready to accept connections` },
            { at: at(41), line: `${at(41)} UTC [230] FATAL:  sorry, too many clients already` },
            { at: at(42), line: `${at(42)} UTC [231] FATAL:  remaining connection slots are reserved for non-replication superuser connections` },
            { at: at(43), line: `${at(43)} UTC [232] ERROR:  canceling statement due to statement timeout` },
            { at: at(43), line: `${at(43)} UTC [232] STATEMENT:  SELECT card_number FROM customers WHERE email = 'alice@example.com'` },
            { at: at(44), line: `${at(44)} UTC [233] LOG:  connection received: host=10.0.3.17 port=55555` },
          ],
        },
        { labels: { instance: 'billing-db', source: 'postgres' }, entries: [{ at: at(10), line: `${at(10)} UTC [9] ERROR:  billing only` }] },
      ]),
      startTrapServer(),
    ]);
    const endpoint: PrometheusTarget = {
      name: 'rds-eu',
      baseUrl: prom.baseUrl,
      targetLabel: 'dbinstance_identifier',
      postgres,
      postgresTarget: 'orders-db',
      loki: { baseUrl: loki.baseUrl, selectorLabel: 'instance' },
    };
    const trapped: PrometheusTarget = { name: 'trap-db', baseUrl: prom.baseUrl, postgres: { ...postgres, host: '127.0.0.1', port: trap.port, connectTimeoutMs: 500 } };
    pkg = prometheusEvidencePackage([endpoint, trapped]);
  }, 60_000);

  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${table}`);
    await admin?.end();
    await Promise.all([prom?.stop(), loki?.stop(), trap?.close()]);
    // Neither the password nor the statement text of another session ever left the package.
    for (const text of texts) {
      expect(text).not.toContain(password);
      expect(text).not.toContain('card_number');
      expect(text).not.toContain('10.0.3.17');
      expect(text).not.toContain(table);
    }
  });

  const runBatch = async (target: string, queries: { id: string; operation: 'promql_range' | 'promql_instant' | 'sql' | 'logs'; expression: string }[]) => {
    const result = await pkg.runBatch({ ticketKey: null, target, window: WINDOW, queries }, { onHttpRecord: (queryId, record) => records.push({ queryId, record }) });
    texts.push(result.text);
    if (!result.ok) throw new Error(`batch failed: ${result.text}`);
    return new Map<string, QueryEvidence>(result.details.queries.map((q) => [q.id, q]));
  };
  const resultOf = (e: QueryEvidence | undefined) => e?.result as Record<string, unknown>;
  const rowsOf = (e: QueryEvidence | undefined) => {
    const r = resultOf(e) as { columns: string[]; rows: unknown[][] };
    return r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i]])));
  };

  it('lists the inventory and a catalogue that offers sql and logs for the PostgreSQL target only', async () => {
    expect((await pkg.listTargets?.())?.targets.map((t) => t.target)).toEqual(expect.arrayContaining(['billing-db', 'orders-db', 'trap-db']));
    const orders = await pkg.discoverMetrics?.({ target: 'orders-db', window: WINDOW });
    expect(orders).toMatchObject({ status: 'listed', targetLabel: 'dbinstance_identifier', operations: ['promql_range', 'promql_instant', 'sql', 'logs'], logsLabel: 'instance' });
    expect(orders?.metrics.map((m) => m.name)).toEqual(['aws_rds_database_connections_average']);
    expect(await pkg.discoverMetrics?.({ target: 'billing-db', window: WINDOW })).toMatchObject({ operations: ['promql_range', 'promql_instant', 'logs'] });
  });

  it('runs one batch with all three operations: metrics, statistics at execution time (a real lock wait) and a log summary', async () => {
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    const waiter = new Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([holder.connect(), waiter.connect()]);
    holder.on('error', () => undefined);
    waiter.on('error', () => undefined);
    try {
      await holder.query('BEGIN');
      await holder.query(`UPDATE ${table} SET note = 'holder' WHERE id = 1`);
      const waiting = waiter.query(`UPDATE ${table} SET note = 'waiter' WHERE id = 1`).catch(() => undefined);
      const blocked = 'SELECT pid, state, wait_event_type, wait_event, cardinality(pg_blocking_pids(pid)) AS blocked_by, now() - query_start AS running_for, query FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0 ORDER BY running_for DESC LIMIT 20';
      const blockedNow = async () => (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0')).rows[0].n as number;
      for (let i = 0; i < 100 && (await blockedNow()) === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const out = await runBatch('orders-db', [
        { id: 'connections', operation: 'promql_range', expression: 'max(aws_rds_database_connections_average{dbinstance_identifier="orders-db"})' },
        { id: 'pg_connections', operation: 'sql', expression: "SELECT coalesce(state, 'unknown') AS state, count(*) AS sessions, max(now() - state_change) AS longest_in_state FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state ORDER BY sessions DESC" },
        { id: 'pg_blocked_sessions', operation: 'sql', expression: blocked },
        { id: 'pg_connection_limit', operation: 'sql', expression: "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections', 'superuser_reserved_connections') ORDER BY name" },
        { id: 'pg_write', operation: 'sql', expression: `UPDATE ${table} SET note = 'x'` },
        { id: 'log_errors', operation: 'logs', expression: '{instance="orders-db"} |~ "(?i)(error|fatal|ready to accept|statement)"' },
        { id: 'log_unbound', operation: 'logs', expression: '{source="postgres"} |= "ERROR"' },
      ]);
      await holder.query('ROLLBACK');
      await waiting;

      // Metrics: the real Prometheus, bound to the instance label.
      expect(out.get('connections')).toMatchObject({ status: 'complete' });
      expect(resultOf(out.get('connections'))).toMatchObject({ seriesCount: 1 });
      expect((resultOf(out.get('connections'))['series'] as { max: number }[])[0].max).toBe(480);

      // Statistics: the current state of the real server, with when it was read.
      const conn = out.get('pg_connections');
      expect(conn).toMatchObject({ status: 'complete', result: { operation: 'sql', relations: ['pg_stat_activity'], columns: ['state', 'sessions', 'longest_in_state'] } });
      expect(Date.parse(String(resultOf(conn)['readAt']))).toBeGreaterThan(Date.now() - 60_000);
      expect(rowsOf(conn).some((r) => r['state'] === 'active' && typeof r['sessions'] === 'number')).toBe(true);

      const lock = rowsOf(out.get('pg_blocked_sessions'));
      expect(lock.length).toBeGreaterThanOrEqual(1);
      expect(lock[0]).toMatchObject({ wait_event_type: 'Lock', blocked_by: 1, query_kind: 'UPDATE', query_digest: expect.stringMatching(/^digest:[0-9a-f]{16}$/) });

      expect(rowsOf(out.get('pg_connection_limit'))).toEqual([
        { name: 'max_connections', setting: expect.stringMatching(/^\d+$/), unit: null },
        { name: 'superuser_reserved_connections', setting: expect.stringMatching(/^\d+$/), unit: null },
      ]);

      // A write is refused before the server is asked.
      expect(out.get('pg_write')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringContaining('queries.pg_write.sql') });

      // Logs: counts by level and pattern, redacted samples, no statement text; the unbound query never reached Loki.
      const logs = resultOf(out.get('log_errors'));
      expect(logs).toMatchObject({ operation: 'logs', lines: 5, hitLimit: false, byLevel: expect.arrayContaining([{ level: 'fatal', count: 2 }, { level: 'error', count: 1 }]) });
      expect(logs['byPattern']).toEqual(
        expect.arrayContaining([expect.objectContaining({ pattern: 'connection_limit', count: 2, errors: 2 }), expect.objectContaining({ pattern: 'restart', count: 1 }), expect.objectContaining({ pattern: 'statement_timeout', count: 1 })]),
      );
      expect((logs['samples'] as unknown[]).length).toBeLessThanOrEqual(5);
      expect(JSON.stringify(logs)).not.toMatch(/card_number|alice|billing only/);
      expect(out.get('log_unbound')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringContaining('{instance="orders-db"}') });
      expect(loki.requests.map((r) => r.query)).toEqual(['{instance="orders-db"} |~ "(?i)(error|fatal|ready to accept|statement)"']);
      expect(records.filter((r) => r.queryId === 'log_errors')).toHaveLength(1);
    } finally {
      await Promise.all([holder.end().catch(() => undefined), waiter.end().catch(() => undefined)]);
    }
  });

  it('answers sql for an inventory target that is not the PostgreSQL server as not configured, and refuses a write before any connection', async () => {
    const billing = await runBatch('billing-db', [{ id: 'conn', operation: 'sql', expression: 'SELECT state, count(*) AS sessions FROM pg_stat_activity GROUP BY state' }]);
    expect(billing.get('conn')).toMatchObject({ status: 'empty', result: { operation: 'channel', channel: 'statements', availability: 'not_configured' } });
    const before = trap.connections();
    const trapped = await runBatch('trap-db', [
      { id: 'del', operation: 'sql', expression: 'DELETE FROM pg_stat_activity' },
      { id: 'cte', operation: 'sql', expression: `WITH gone AS (DELETE FROM ${table} RETURNING id) SELECT count(*) FROM gone` },
    ]);
    expect([...trapped.values()].map((e) => e.error_code)).toEqual(['PROVIDER.QUERY_REJECTED', 'PROVIDER.QUERY_REJECTED']);
    expect(trap.connections()).toBe(before);
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(1);
  });
});
