import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { executeTool } from '../../core/execute-tool';
import { opaqueRef } from '../../core/sanitize';
import { postgresStorageStateStore, storageStateDdl } from '../../connectors/storage-state-postgres';
import type { StorageStateStore } from '../../connectors/storage-state-store';
import { startGrafanaProxy, type RunningGrafanaProxy } from '../../../test/dashboard-grafana-proxy';
import { startTidbDashboard, type RunningTidbDashboard } from '../../../test/dashboard-tidb-fixture';
import { startPrometheus, type RunningPrometheus } from '../../../test/prometheus-fixture';
import { basic, WETECH_TEST_CREDENTIALS as CREDS } from '../../../test/wetech-fakes';
import { COOL_TIDB, EXPENSIVE_DIGEST, EXPENSIVE_SQL, HOT_TIDB, INCIDENT_DASHBOARD, INCIDENT_SERIES } from '../../../test/wetech-scenario';
import { wetechPackage, type WetechPackage, type WetechPackageConfig, type WetechStorageStateEvent } from './wetech.package';

const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const TOP_WINDOW = { from: '2026-11-20T10:38:00Z', to: '2026-11-20T10:53:00Z' };

/**
 * End to end on real peers: Prometheus behind a Grafana-like datasource proxy, a TiDB-Dashboard-like
 * site driven by system Chromium, and the browser state in a private schema of the real Postgres.
 * The inventory's hosts are mapped to 127.0.0.1 by configuration.
 */
describe('wetech package end to end (Prometheus, Grafana proxy, Chromium on dashboard pages, Postgres state)', () => {
  let prom: RunningPrometheus;
  let proxy: RunningGrafanaProxy;
  let dash: RunningTidbDashboard;
  /** The SaaS region's dashboard host: another origin, so its browser state is its own. */
  let saasDash: RunningTidbDashboard;
  let pool: Pool;
  let store: StorageStateStore;
  let events: WetechStorageStateEvent[];
  const schema = `aoc_wetech_${randomBytes(4).toString('hex')}`;
  const stateKey = randomBytes(32);
  const refKey = randomBytes(32).toString('base64url');

  const configFor = (overrides: Partial<WetechPackageConfig> = {}): WetechPackageConfig => ({
    credentials: CREDS,
    instanceRefKey: refKey,
    storageState: store,
    resolveOrigin: (host) => (host.startsWith('grafana.') ? proxy.origin : host === 'dashboard.ap-saas01.wetech.example' ? saasDash.origin : dash.origin),
    onStorageState: (e) => events.push(e),
    limits: { retryDelaysMs: [10, 10] },
    ...overrides,
  });

  beforeAll(async () => {
    prom = await startPrometheus(INCIDENT_SERIES);
    proxy = await startGrafanaProxy({
      'prom-wt-prod-sg-01': { authorization: basic(CREDS['asia-production']?.grafana.username ?? '', CREDS['asia-production']?.grafana.password ?? ''), upstream: prom.baseUrl },
      'prom-saas01-core': { authorization: basic(CREDS.default.grafana.username, CREDS.default.grafana.password), upstream: prom.baseUrl },
    });
    dash = await startTidbDashboard(INCIDENT_DASHBOARD);
    saasDash = await startTidbDashboard(INCIDENT_DASHBOARD);
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(storageStateDdl(schema));
    store = postgresStorageStateStore({ db: pool, schema, key: 'wetech/auth/storage-state', sealKey: stateKey });
  }, 60_000);
  afterAll(async () => {
    await dash?.stop();
    await saasDash?.stop();
    await proxy?.stop();
    await prom?.stop();
    await pool?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool?.end();
  });
  beforeEach(() => {
    events = [];
  });

  const run = (p: WetechPackage, input: unknown) => executeTool(p.tool, input, { now: NOW });
  const batch = (queries: unknown[], extra: Record<string, unknown> = {}) => ({ ticketKey: 'APID-29213', region: 'ap-southeast-1', cluster: 'wt-prod-sg-01', window: WINDOW, queries, ...extra });

  it('finds the hot TiDB by metric, reads its TopSQL, Statements and Slow Query, signs in once and stores the state', async () => {
    const pkg = wetechPackage(configFor());
    const result = await run(
      pkg,
      batch([
        { id: 'cpu', operation: 'promql_range', promql: 'rate(tidb_server_cpu_seconds_total[2m])', stepSeconds: 60 },
        { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 0 }, window: TOP_WINDOW, limit: 3 },
        { id: 'statements', operation: 'statements', limit: 2 },
        { id: 'slow', operation: 'slow_query', limit: 5 },
      ]),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.text).toBe(JSON.stringify(result.details));
    const [cpu, top, statements, slow] = result.details.queries;
    expect(cpu).toMatchObject({ status: 'complete', seriesCount: 2 });
    expect(cpu.series?.[0].max).toBeCloseTo(50 / 60, 2);
    const expensive = opaqueRef('digest', EXPENSIVE_DIGEST);
    expect(top).toMatchObject({ status: 'complete', totalRows: 2, rows: [{ digestRef: expensive, cpuTimeMs: 1_650_000, execPerSec: 4.2, avgLatencyMs: 1900, planCount: 2 }, { cpuTimeMs: 12_000 }] });
    expect(statements).toMatchObject({ status: 'complete', totalRows: 3, omittedRows: 1, rows: [{ digestRef: expensive, totalLatencyMs: 28_500_000 }, { execCount: 900_000 }] });
    expect(slow).toMatchObject({ status: 'complete', executions: 3, rows: [{ digestRef: expensive, count: 2, maxQueryTimeMs: 8200, firstAt: '2026-11-20T10:38:05.000Z' }, { maxQueryTimeMs: 1200 }] });
    for (const leak of [EXPENSIVE_SQL, 'SELECT', 'UPDATE', 'shop_app', '"shop"', EXPENSIVE_DIGEST, '10.20.', dash.origin, proxy.origin, 'wetech.example', ...Object.values(CREDS).flatMap((p) => Object.values(p).map((l) => l.password))]) {
      expect(result.text).not.toContain(leak);
    }
    // The dashboard saw the decrypted instance and the inventory's dashboard cluster name; the caller never did.
    expect(dash.apiCalls.find((c) => c.path === 'topsql/summary')?.params).toMatchObject({ instance: HOT_TIDB, cluster: 'wt-prod-sg-01', from: String(Date.parse(TOP_WINDOW.from) / 1000) });
    expect(proxy.requests.every((r) => r.uid === 'prom-wt-prod-sg-01' && r.authorized && r.path === '/api/v1/query_range')).toBe(true);
    expect(dash.logins()).toBe(1);
    expect(events).toEqual([
      { kind: 'read', revision: 0, hadState: false },
      { kind: 'written', revision: 1, logins: 1 },
    ]);
    const stored = await store.read();
    expect(stored.state?.origins.find((o) => o.origin === dash.origin)?.localStorage.map((l) => l.name)).toEqual(['dashboard_auth_token']);
  }, 120_000);

  it('reuses the stored state on the next execution (no sign-in), and signs in again once the session expired', async () => {
    const pkg = wetechPackage(configFor());
    const before = dash.logins();
    const again = await run(pkg, batch([{ id: 'statements', operation: 'statements' }]));
    expect(again.ok && again.details.queries[0].status).toBe('complete');
    expect(dash.logins()).toBe(before);
    expect(events.at(-1)).toEqual({ kind: 'written', revision: 2, logins: 0 });

    const tokenBefore = (await store.read()).state?.origins[0].localStorage[0].value;
    dash.expireSessions();
    const refreshed = await run(pkg, batch([{ id: 'slow', operation: 'slow_query' }]));
    expect(refreshed.ok && refreshed.details.queries[0].status).toBe('complete');
    expect(dash.logins()).toBe(before + 1);
    expect(events.at(-1)).toEqual({ kind: 'written', revision: 3, logins: 1 });
    expect((await store.read()).state?.origins[0].localStorage[0].value).not.toBe(tokenBefore);
  }, 120_000);

  it('two concurrent executions on the same stored state: one write wins, the other gets the typed conflict; both keep their evidence', async () => {
    const { revision } = await store.read();
    dash.setApiDelay(1500);
    try {
      const a = wetechPackage(configFor());
      const b = wetechPackage(configFor());
      const input = batch([{ id: 'statements', operation: 'statements' }]);
      const results = await Promise.all([run(a, input), run(b, input)]);
      expect(results.map((r) => r.ok && r.details.queries[0].status)).toEqual(['complete', 'complete']);
    } finally {
      dash.setApiDelay(0);
    }
    const reads = events.filter((e) => e.kind === 'read');
    expect(reads).toEqual([
      { kind: 'read', revision, hadState: true },
      { kind: 'read', revision, hadState: true },
    ]);
    const outcomes = events.filter((e) => e.kind !== 'read');
    expect(outcomes).toEqual(expect.arrayContaining([{ kind: 'written', revision: revision + 1, logins: 0 }, { kind: 'conflict', expectedRevision: revision, actualRevision: revision + 1, logins: 0 }]));
    expect(outcomes).toHaveLength(2);
    expect((await store.read()).revision).toBe(revision + 1);
  }, 120_000);

  it("passes the dashboard's own rejection through, credential- and address-redacted", async () => {
    const pkg = wetechPackage(configFor());
    const first = await run(pkg, batch([{ id: 'cpu', operation: 'promql_range', promql: 'rate(tidb_server_cpu_seconds_total[2m])' }]));
    const coolRef = (first.ok && first.details.queries[0].series?.[1].instanceRefs?.['instance']) || '';
    const result = await run(pkg, batch([{ id: 'top', operation: 'top_sql', instanceRef: coolRef, window: TOP_WINDOW }]));
    expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringContaining('is not a TiDB instance of this cluster') });
    expect(result.text).not.toContain(COOL_TIDB.split(':')[0]);
    expect(dash.apiCalls.at(-1)?.params['instance']).toBe(COOL_TIDB);
  }, 120_000);

  it("uses the SaaS region's own dashboard login; a wrong one is an auth failure that names no secret", async () => {
    const saas = wetechPackage(configFor());
    const ok = await run(saas, batch([{ id: 'st', operation: 'statements' }], { region: 'ap-saas01', cluster: 'wt-saas01-core' }));
    expect(ok.ok && ok.details.queries[0].status).toBe('complete');

    expect(saasDash.logins()).toBe(1);
    const wrongPassword = 'dashboard-saas01-WRONG-9';
    const failedBefore = saasDash.failedLogins();
    const wrong = wetechPackage(configFor({ storageState: postgresStorageStateStore({ db: pool, schema, key: 'wetech/other-installation', sealKey: stateKey }), credentials: { ...CREDS, 'asia-saas01': { dashboard: { username: 'dash-saas01', password: wrongPassword } } } }));
    const result = await run(wrong, batch([{ id: 'cpu', operation: 'promql_range', promql: 'up' }, { id: 'st', operation: 'statements' }], { region: 'ap-saas01', cluster: 'wt-saas01-core' }));
    expect(result.ok && result.details.queries.map((q) => [q.status, q.error_code ?? null])).toEqual([
      ['empty', null],
      ['failed', 'PROVIDER.AUTH_FAILED'],
    ]);
    expect(result.ok && result.details.queries[1].detail_error).toMatch(/invalid username or password/);
    expect(result.text).not.toContain(wrongPassword);
    expect(saasDash.failedLogins()).toBe(failedBefore + 1);
  }, 120_000);
});
