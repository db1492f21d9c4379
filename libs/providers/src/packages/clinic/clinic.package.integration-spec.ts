import type { HttpCallRecord } from '../../connectors/http-client';
import { executeTool } from '../../core/execute-tool';
import { opaqueRef } from '../../core/sanitize';
import { FIXTURE_DIGESTS, FIXTURE_LEAKS, leakyCluster, startClinicFixture, type RunningClinicFixture } from '../../../test/clinic-api-fixture';
import { createMariaDbSandbox, type MariaDbSandbox } from '../../../test/mariadb-fixture';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '../../../test/prometheus-fixture';
import { clinicBatchTool } from './clinic-batch.tool';
import type { ClinicPackageConfig } from './clinic.config';
import type { ClinicBatchOutput, ClinicQueryOutput } from './clinic-output.schema';
import { clinicPackage, clinicTarget } from './clinic.package';

const CLINIC_TOKEN = 'clinic-token-it-7a6b5c4d3e2f';
const CLOUD_CONFIG_TOKEN = 'cloudcfg-token-it-1f2e3d4c5b6a';
const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const ORG = 'org-acme';
const DEDICATED = 'cl-dedicated-7f3a';
const STARTER = 'cl-starter-91bc';

const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 60);
/** p99 of one TiDB rises from 40 ms to 90 ms at 10:38. */
const SERIES: FixtureSeries[] = [
  { metric: 'tidb_query_duration_p99_seconds', type: 'gauge', labels: { cluster_id: DEDICATED, instance: '10.0.3.17:10080' }, samples: minutes(60).map((t, i) => [t, i < 38 ? 0.04 : 0.09]) },
  { metric: 'tidb_query_duration_p99_seconds', type: 'gauge', labels: { cluster_id: DEDICATED, instance: '10.0.3.18:10080' }, samples: minutes(60).map((t) => [t, 0.041]) },
];

const utc = (iso: string) => iso.replace('T', ' ').replace('Z', '');

describe('Clinic package against real Prometheus, real MariaDB and a scripted Clinic API', () => {
  let prom: RunningPrometheus;
  let db: MariaDbSandbox;
  let clinic: RunningClinicFixture;
  let config: ClinicPackageConfig;
  const records: { queryId: string; record: HttpCallRecord }[] = [];

  beforeAll(async () => {
    [prom, db] = await Promise.all([startPrometheus(SERIES), createMariaDbSandbox()]);
    clinic = await startClinicFixture({
      token: CLINIC_TOKEN,
      cloudConfigToken: CLOUD_CONFIG_TOKEN,
      clusters: [leakyCluster(ORG, DEDICATED, 'dedicated'), leakyCluster(ORG, STARTER, 'starter')],
      metricsUpstream: prom.baseUrl,
    });
    config = {
      clinic: { baseUrl: clinic.baseUrl, token: CLINIC_TOKEN },
      cloudConfig: { baseUrl: clinic.cloudConfigUrl, token: CLOUD_CONFIG_TOKEN },
      sql: { user: db.readOnlyUser, password: db.readOnlyPassword, endpoint: { host: db.host, port: db.port, database: db.schema }, systemSchema: db.schema },
      retryDelaysMs: [5, 5],
    };
    const s = `\`${db.schema}\``;
    await db.admin(`INSERT INTO ${s}.orders (id, region, amount, note, created_at) VALUES ?`, [
      Array.from({ length: 30 }, (_, i) => [i + 1, i % 2 ? 'us-west-2' : 'eu-central-1', 10 + i, `note with alice@example.com ${i}`, new Date(Date.UTC(2026, 10, 20, 10, i))]),
    ]);
    // TiDB-shaped diagnostics: raw statements, connection ids and hosts are in the table, never in a result.
    const slow = (m: number, digest: string, time: number, succ: number) => [utc(new Date(Date.UTC(2026, 10, 20, 10, m)).toISOString()), digest, time, succ, 0, 4096 * (m + 1), 100 * m, 777001, '10.0.3.17', 'SELECT * FROM secret_orders WHERE email = "alice@example.com"'];
    await db.admin(`INSERT INTO ${s}.slow_query (\`Time\`, \`Digest\`, \`Query_time\`, \`Succ\`, \`Is_internal\`, \`Mem_max\`, \`Process_keys\`, \`Conn_ID\`, \`Host\`, \`Query\`) VALUES ?`, [
      [slow(5, FIXTURE_DIGESTS.hot, 2.5, 1), slow(38, FIXTURE_DIGESTS.hot, 4.5, 0), slow(39, FIXTURE_DIGESTS.hot, 3, 1), slow(40, FIXTURE_DIGESTS.warm, 1.2, 1), slow(75, FIXTURE_DIGESTS.warm, 9, 1)],
    ]);
    const summary = (begin: string, end: string, digest: string, type: string, exec: number, sumNs: number) => [begin, end, type, digest, 'select * from `secret_orders` where `email` = ?', FIXTURE_DIGESTS.plan, exec, sumNs, sumNs / 10, 2048, 1];
    await db.admin(`INSERT INTO ${s}.statements_summary VALUES ?`, [[summary('2026-11-20 10:30:00', '2026-11-20 11:00:00', FIXTURE_DIGESTS.hot, 'Select', 100, 5e9)]]);
    await db.admin(`INSERT INTO ${s}.statements_summary_history VALUES ?`, [
      [summary('2026-11-20 10:00:00', '2026-11-20 10:30:00', FIXTURE_DIGESTS.hot, 'Select', 50, 1e9), summary('2026-11-20 10:00:00', '2026-11-20 10:30:00', FIXTURE_DIGESTS.warm, 'Update', 10, 3e9), summary('2026-11-19 10:00:00', '2026-11-19 10:30:00', FIXTURE_DIGESTS.warm, 'Update', 999, 9e12)],
    ]);
  }, 90_000);
  afterAll(async () => {
    await Promise.allSettled([prom?.stop(), db?.drop(), clinic?.stop()]);
  });
  beforeEach(() => {
    clinic.reset();
    records.length = 0;
  });

  const run = async (clusterId: string, queries: unknown[], cfg: ClinicPackageConfig = config): Promise<ClinicBatchOutput> => {
    const result = await executeTool(clinicBatchTool(cfg), { org_id: ORG, cluster_id: clusterId, window: WINDOW, queries }, { now: NOW, onHttpRecord: (queryId, record) => records.push({ queryId, record }) });
    expect(result.text).toBe(JSON.stringify(result.details));
    if (!result.ok) throw new Error(result.text);
    return result.details;
  };
  const entry = <O extends ClinicQueryOutput['operation']>(out: ClinicBatchOutput, id: string, _operation?: O) => out.queries.find((q) => q.id === id) as Extract<ClinicQueryOutput, { operation: O }>;
  const expectNoLeak = (text: string) => {
    for (const leak of [...FIXTURE_LEAKS, 'secret_orders', 'alice@example.com', CLINIC_TOKEN, CLOUD_CONFIG_TOKEN, db.readOnlyPassword, prom.baseUrl.replace('http://', ''), clinic.baseUrl]) expect(text).not.toContain(leak);
  };

  it('reads Clinic metrics from a real Prometheus behind the Clinic metrics API, with the scope headers', async () => {
    const out = await run(DEDICATED, [
      { id: 'p99', operation: 'promql_range', promql: `tidb_query_duration_p99_seconds{cluster_id="${DEDICATED}"}`, step_seconds: 60 },
      { id: 'p99-max', operation: 'promql_instant', promql: 'max(max_over_time(tidb_query_duration_p99_seconds[1h]))' },
      { id: 'rejected', operation: 'promql_range', promql: 'tidb_query_duration_p99_seconds[5m]' },
    ]);
    const p99 = entry(out, 'p99', 'promql_range');
    expect(p99).toMatchObject({ status: 'complete', result: { result_type: 'matrix', series_count: 2 } });
    expect(p99.result?.series[0]).toMatchObject({ max: 0.09, min: 0.04, max_at: '2026-11-20T10:38:00.000Z' });
    // Instances are distinguishable without their addresses.
    expect(p99.result?.series[0].labels['instance']).toBe(opaqueRef('instance', '10.0.3.17:10080'));
    expect(entry(out, 'p99-max', 'promql_instant').result?.series[0].last).toBe(0.09);
    expect(entry(out, 'rejected')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/range vector/) });
    for (const hit of clinic.hits('metrics')) {
      expect(hit.headers).toMatchObject({ authorization: `Bearer ${CLINIC_TOKEN}`, 'x-clinic-org-id': ORG, 'x-clinic-cluster-id': DEDICATED });
      expect(hit.path).toBe(`/api/v1/orgs/${ORG}/clusters/${DEDICATED}/metrics/api/v1/${hit.path.endsWith('query') ? 'query' : 'query_range'}`);
    }
    expect(records.filter((r) => r.queryId === 'p99').map((r) => r.record.attempts[0].statusClass)).toEqual(['200']);
    expectNoLeak(JSON.stringify(out));
  });

  it('runs Agent-authored SQL read-only over the MySQL protocol and returns column statistics only', async () => {
    const out = await run(STARTER, [
      { id: 'by-region', operation: 'sql', sql: 'SELECT region, COUNT(*) AS orders, SUM(amount) AS total, MAX(created_at) AS latest, MAX(note) AS sample_note FROM orders GROUP BY region ORDER BY region' },
      { id: 'alias', operation: 'sql_query', query: 'SELECT @@session.tx_read_only AS read_only_flag' },
      { id: 'write-in-select', operation: 'sql', sql: 'SELECT aoc_write_probe() AS wrote' },
      { id: 'delete', operation: 'sql', sql: 'DELETE FROM orders' },
      { id: 'two', operation: 'sql', sql: 'SELECT 1; SELECT 2' },
    ]);
    const byRegion = entry(out, 'by-region', 'sql').result;
    expect(byRegion).toMatchObject({ statement: 'select', row_count: 2, truncated: false, read_only: true, statement_timeout: 'max_statement_time' });
    expect(byRegion?.columns.find((c) => c.column === 'region')?.top_values).toEqual([{ value: 'eu-central-1', count: 1 }, { value: 'us-west-2', count: 1 }]);
    expect(byRegion?.columns.find((c) => c.column === 'orders')).toMatchObject({ kind: 'number', sum: 30 });
    expect(byRegion?.columns.find((c) => c.column === 'latest')).toMatchObject({ kind: 'time', max: '2026-11-20T10:29:00.000Z' });
    expect(entry(out, 'alias', 'sql').result?.columns[0]).toMatchObject({ column: 'read_only_flag', min: 1, max: 1 });
    // Refused by the function allowlist before any network use; read-only-hostile.integration-spec.ts shows the session refusing it too.
    expect(entry(out, 'write-in-select')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/function aoc_write_probe\(\) is not allowed/) });
    expect(entry(out, 'delete')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/^queries\.3\.sql: only SELECT/) });
    expect(entry(out, 'two')).toMatchObject({ status: 'failed', detail_error: expect.stringMatching(/^queries\.4\.sql: exactly one statement/) });
    expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.schema}\`.orders`)).toEqual([{ n: 30 }]);
    expect(out.acquisition).toBe('partial');
    expectNoLeak(JSON.stringify(out));
  });

  it('stops a slow statement at its server-side timeout and caps rows', async () => {
    const sql = config.sql;
    if (!sql) throw new Error('SQL is configured in beforeAll');
    const capped: ClinicPackageConfig = { ...config, sql: { ...sql, limits: { statementTimeoutMs: 300, maxRows: 50 } } };
    const out = await run(
      STARTER,
      [
        { id: 'heavy', operation: 'sql', sql: 'SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b' },
        { id: 'many', operation: 'sql', sql: 'SELECT seq FROM seq_1_to_100000' },
      ],
      capped,
    );
    expect(entry(out, 'heavy')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.TIMEOUT' });
    expect(entry(out, 'many', 'sql').result).toMatchObject({ row_count: 50, truncated: true, truncated_by: 'rows' });
  });

  it('reads TopSQL and slow queries over SQL for a serverless tier, with digests as opaque references', async () => {
    const out = await run(STARTER, [
      { id: 'slow', operation: 'slow_query', min_query_time_seconds: 1 },
      { id: 'top', operation: 'top_sql', limit: 5 },
    ]);
    const slow = entry(out, 'slow', 'slow_query').result;
    expect(slow).toMatchObject({ transport: 'sql', total_slow_queries: 4, truncated: false });
    expect(slow?.groups).toEqual([
      {
        digest_ref: opaqueRef('digest', FIXTURE_DIGESTS.hot),
        statement_type: 'select',
        count: 3,
        failed_count: 1,
        internal_count: 0,
        total_query_time_s: 10,
        max_query_time_s: 4.5,
        avg_query_time_s: 3.333333,
        max_mem_bytes: 4096 * 40,
        max_process_keys: 3900,
        first_seen: '2026-11-20T10:05:00.000Z',
        last_seen: '2026-11-20T10:39:00.000Z',
      },
      expect.objectContaining({ digest_ref: opaqueRef('digest', FIXTURE_DIGESTS.warm), count: 1, total_query_time_s: 1.2 }),
    ]);
    const top = entry(out, 'top', 'top_sql').result;
    expect(top).toMatchObject({ transport: 'sql', order_by: 'total_latency' });
    expect(top?.entries).toEqual([
      { digest_ref: opaqueRef('digest', FIXTURE_DIGESTS.hot), plan_digest_ref: opaqueRef('plan_digest', FIXTURE_DIGESTS.plan), statement_type: 'select', exec_count: 150, cpu_time_ms: null, total_latency_ms: 6000, avg_latency_ms: 40, max_latency_ms: 500, max_mem_bytes: 2048, error_count: 2 },
      expect.objectContaining({ digest_ref: opaqueRef('digest', FIXTURE_DIGESTS.warm), statement_type: 'update', exec_count: 10, total_latency_ms: 3000 }),
    ]);
    // The HTTP transport was not used for this tier.
    expect(clinic.hits('slowqueries')).toHaveLength(0);
    expect(clinic.hits('topsql')).toHaveLength(0);
    expectNoLeak(JSON.stringify(out));
  });

  it('serves a whole planned batch through EvidencePackage across HTTP, Prometheus and SQL without leaking', async () => {
    const pkg = clinicPackage(config);
    const result = await pkg.runBatch(
      {
        ticketKey: 'SUP-4242',
        target: clinicTarget(ORG, STARTER),
        window: WINDOW,
        queries: [
          { id: 'meta', operation: 'cluster_metadata', expression: '' },
          { id: 'p99', operation: 'promql_range', expression: 'max(tidb_query_duration_p99_seconds)', stepSeconds: 60 },
          { id: 'orders', operation: 'sql', expression: 'SELECT region, COUNT(*) AS n FROM orders GROUP BY region' },
          { id: 'slow', operation: 'slow_query', expression: '{"limit": 3}' },
          { id: 'top', operation: 'top_sql', expression: '' },
          { id: 'logs', operation: 'logs', expression: '{"component": "tidb", "detail": "events"}' },
          { id: 'acts', operation: 'activities', expression: '{}' },
          { id: 'comps', operation: 'components', expression: '' },
          { id: 'cfg', operation: 'configuration', expression: '{"selectors": [{"component": "tidb_variable", "key": "tidb_mem_quota_query"}]}' },
        ],
      },
      { now: NOW },
    );
    if (!result.ok) throw new Error(result.text);
    expect(result.details.queries.map((q) => [q.id, q.status])).toEqual([
      ['meta', 'complete'],
      ['p99', 'complete'],
      ['orders', 'complete'],
      ['slow', 'complete'],
      ['top', 'complete'],
      ['logs', 'complete'],
      ['acts', 'complete'],
      ['comps', 'complete'],
      ['cfg', 'complete'],
    ]);
    expectNoLeak(result.text);
    expect(result.text).not.toMatch(/SELECT|DELETE|conn=|"(sql|query|message|raw)":/);
  });
});
