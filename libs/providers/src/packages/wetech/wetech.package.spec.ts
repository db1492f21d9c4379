import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { z } from 'zod';
import { executeTool } from '../../core/execute-tool';
import type { DashboardViewRequest, DashboardViewResult } from '../../connectors/dashboard-tidb-connector';
import { memoryStorageStateStore, type StorageStateStore } from '../../connectors/storage-state-store';
import { matrixBody, startGrafanaProxy, type RunningGrafanaProxy, type UpstreamAnswer } from '../../../test/dashboard-grafana-proxy';
import { basic, fakeDashboard, pageRow, WETECH_TEST_CREDENTIALS as CREDS } from '../../../test/wetech-fakes';
import { WETECH_HOST_ALLOWLIST, WETECH_TARGETS } from './wetech-inventory.generated';
import { isApidTicketKey } from './wetech-target';
import { wetechBatchSpec, wetechPackage, type WetechPackage, type WetechPackageConfig, type WetechStorageStateEvent } from './wetech.package';

const KEY = randomBytes(32).toString('base64url');
const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const TOP_WINDOW = { from: '2026-11-20T10:35:00Z', to: '2026-11-20T10:50:00Z' };
const T0 = Date.parse(WINDOW.from) / 1000;
const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b1'.repeat(32);
const SECRET_SQL = "SELECT card_number FROM customers WHERE email = 'ceo@example.com'";

const tidb = (instance: string, peak: number) => ({ metric: { job: 'tidb', instance }, values: [[T0, '1'], [T0 + 60, String(peak)]] as [number, string][] });
const tikv = (instance: string) => ({ metric: { job: 'tikv', instance }, values: [[T0, '1']] as [number, string][] });

let promAnswer: (form: URLSearchParams) => UpstreamAnswer | Promise<UpstreamAnswer> = () => ({ status: 200, body: matrixBody([]) });
let viewAnswer: (view: DashboardViewRequest) => DashboardViewResult | Promise<DashboardViewResult> = () => ({ rows: [], totalRows: 0 });

/** What a dashboard page shows, SQL text and addresses included; the package must keep none of it. */
function pageRows(view: DashboardViewRequest): DashboardViewResult {
  if (view.view === 'top_sql') {
    return {
      rows: [
        pageRow(DIGEST_A, { sql_text: SECRET_SQL, cpu_time_ms: 91234.5, exec_count_per_sec: 12.5, avg_latency_ms: 80, plan_count: 2 }),
        pageRow(DIGEST_B, { sql_text: 'UPDATE t SET x = 1', cpu_time_ms: 1200, exec_count_per_sec: 3, avg_latency_ms: 4, plan_count: 1 }),
      ],
      totalRows: 2,
    };
  }
  if (view.view === 'statements') {
    return {
      rows: [
        pageRow(DIGEST_B, { sql_text: 'UPDATE t SET x = 1', schema_name: 'billing', exec_count: 900, avg_latency_ms: 2, max_latency_ms: 9, sum_latency_ms: 1800, avg_mem_bytes: 1024, plan_count: 1 }),
        pageRow(DIGEST_A, { sql_text: SECRET_SQL, schema_name: 'crm', exec_count: 40, avg_latency_ms: 900, max_latency_ms: 4000, sum_latency_ms: 36000, avg_mem_bytes: 5e6, plan_count: 3 }),
        pageRow('not-a-digest', { sql_text: 'SELECT 1', exec_count: 1 }),
      ],
      totalRows: 3,
    };
  }
  return {
    rows: [
      pageRow(DIGEST_A, { query: SECRET_SQL, instance: '10.0.3.18:4000', user: 'app', db: 'crm', timestamp: T0 + 2300, query_time_ms: 4100, mem_max_bytes: 7e6 }),
      pageRow(DIGEST_A, { query: SECRET_SQL, instance: '10.0.3.18:4000', user: 'app', db: 'crm', timestamp: T0 + 2400, query_time_ms: 3900, mem_max_bytes: 6e6 }),
      pageRow(DIGEST_B, { query: 'UPDATE t SET x = 1', instance: '10.0.3.17:4000', user: 'app', db: 'crm', timestamp: T0 + 2500, query_time_ms: 1500, mem_max_bytes: 1e5 }),
    ],
    totalRows: 3,
  };
}

describe('wetech package (scripted Grafana, scripted dashboard, in-memory state)', () => {
  let proxy: RunningGrafanaProxy;
  let dashboard: ReturnType<typeof fakeDashboard>;
  let store: ReturnType<typeof memoryStorageStateStore>;
  let events: WetechStorageStateEvent[];
  let pkg: WetechPackage;

  const configFor = (overrides: Partial<WetechPackageConfig> = {}): WetechPackageConfig => ({
    credentials: CREDS,
    instanceRefKey: KEY,
    storageState: store,
    resolveOrigin: (host) => (host.startsWith('grafana.') ? proxy.origin : 'http://127.0.0.1:9'),
    dashboard: dashboard.factory,
    onStorageState: (e) => events.push(e),
    limits: { retryDelaysMs: [1, 1] },
    ...overrides,
  });

  beforeAll(async () => {
    const upstream = (form: URLSearchParams) => promAnswer(form);
    proxy = await startGrafanaProxy({
      'prom-wt-prod-sg-01': { authorization: basic('oncall-ro', 'grafana-asia-prod-pw-2'), upstream },
      'prom-saas01-core': { authorization: basic('oncall-ro', 'grafana-default-pw-1'), upstream },
      'prom-wt-prod-us-01': { authorization: basic('oncall-ro', 'grafana-default-pw-1'), upstream },
    });
  });
  afterAll(() => proxy.stop());
  beforeEach(() => {
    proxy.requests.length = 0;
    promAnswer = () => ({ status: 200, body: matrixBody([tidb('10.0.3.17:10080', 5), tidb('10.0.3.18:10080', 9), tikv('10.0.4.1:20180')]) });
    viewAnswer = pageRows;
    dashboard = fakeDashboard((v) => viewAnswer(v));
    store = memoryStorageStateStore();
    events = [];
    pkg = wetechPackage(configFor());
  });

  const run = (input: unknown, p: WetechPackage = pkg) => executeTool(p.tool, input, { now: NOW });
  const batch = (queries: unknown[], extra: Record<string, unknown> = {}) => ({ ticketKey: 'APID-29213', region: 'ap-southeast-1', cluster: 'wt-prod-sg-01', window: WINDOW, queries, ...extra });
  const promql = (id = 'cpu', extra: Record<string, unknown> = {}) => ({ id, operation: 'promql_range', promql: 'rate(tidb_server_cpu_seconds_total[1m])', ...extra });

  it('lists its generated inventory as redacted candidates: <region>/<cluster>, cluster and dashboard names as aliases, never a host', async () => {
    const listing = await pkg.listTargets?.();
    expect(listing).toMatchObject({ status: 'listed', truncated: false, failureCode: null });
    expect(listing?.targets).toHaveLength(WETECH_TARGETS.length);
    expect(listing?.targets.find((t) => t.target === 'ap-saas01/wt-saas01-core')).toEqual({ target: 'ap-saas01/wt-saas01-core', aliases: ['wt-saas01-core', 'saas01-core'] });
    expect(listing?.targets.find((t) => t.target === 'ap-southeast-1/wt-prod-sg-01')).toEqual({ target: 'ap-southeast-1/wt-prod-sg-01', aliases: ['wt-prod-sg-01'] });
    const text = JSON.stringify(listing);
    for (const host of WETECH_HOST_ALLOWLIST) expect(text).not.toContain(host);
    for (const t of WETECH_TARGETS) expect(text).not.toContain(t.datasourceUid);
    // Listing uses no network: no Grafana request, no dashboard login.
    expect(dashboard.sessions).toEqual([]);
    expect(proxy.requests).toHaveLength(0);
  });

  it('defines the APID ticket shape', () => {
    for (const key of ['APID-1', 'APID-29213', 'APID-123456789']) expect(isApidTicketKey(key)).toBe(true);
    for (const key of ['apid-1', 'APID-0', 'APID-012', 'APID-', 'APID-1x', 'SUP-29213', ' APID-1', 'APID-1 ', 'APID-1234567890', 'APID--1']) expect(isApidTicketKey(key)).toBe(false);
  });

  it('refuses a non-APID ticket and a pair outside the inventory before any network use', async () => {
    const badTicket = await run(batch([promql()], { ticketKey: 'SUP-29213' }));
    expect(badTicket.ok ? null : badTicket.details.detail_error).toMatch(/^ticketKey: must be an APID ticket key/);
    const crossed = await run(batch([promql()], { region: 'us-west-2', cluster: 'wt-prod-sg-01' }));
    expect(crossed.ok ? null : crossed.details).toMatchObject({ error_code: 'PROVIDER.TARGET_REJECTED', detail_error: expect.stringContaining('not in the Wetech inventory') });
    const unknown = await run(batch([promql()], { cluster: 'wt-prod-sg-77' }));
    expect(unknown.ok ? null : unknown.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
    expect(proxy.requests).toHaveLength(0);
  });

  it('accepts no URL, credential, datasource, profile or provider from the caller', async () => {
    expect(Object.keys(z.toJSONSchema(wetechBatchSpec.input).properties ?? {})).toEqual(['ticketKey', 'region', 'cluster', 'window', 'queries']);
    for (const extra of ['provider', 'url', 'credentialProfile', 'datasourceUid', 'password']) {
      const result = await run(batch([promql()], { [extra]: 'x' }));
      expect(result.ok ? null : result.details.detail_error).toContain(extra);
    }
  });

  it('caps every window at 6 hours and TopSQL at 15 minutes, before the browser starts', async () => {
    const six = { from: '2026-11-20T05:00:00Z', to: '2026-11-20T11:00:00Z' };
    expect((await run(batch([promql()], { window: six }))).ok).toBe(true);
    const over = await run(batch([promql()], { window: { from: '2026-11-20T04:59:59Z', to: '2026-11-20T11:00:00Z' } }));
    expect(over.ok ? null : over.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    const statementsOver = await run(batch([{ id: 's', operation: 'statements', window: { from: '2026-11-20T00:00:00Z', to: '2026-11-20T07:00:00Z' } }]));
    expect(statementsOver.ok ? null : statementsOver.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    const topOver = await run(batch([promql(), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 0 }, window: { from: '2026-11-20T10:30:00Z', to: '2026-11-20T10:45:01Z' } }]));
    expect(topOver.ok ? null : topOver.details).toMatchObject({ error_code: 'PROVIDER.WINDOW_INVALID', detail_error: expect.stringContaining('15 min') });
    const topDefault = await run(batch([promql(), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 0 } }]));
    expect(topDefault.ok ? null : topDefault.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    expect(dashboard.sessions).toHaveLength(0);
    expect(events).toHaveLength(0);
  });

  it('lets the target choose the credential profile', async () => {
    const cases: [string, string, string, string][] = [
      ['ap-southeast-1', 'wt-prod-sg-01', 'prom-wt-prod-sg-01', 'dashboard-default-pw-1'],
      ['ap-saas01', 'wt-saas01-core', 'prom-saas01-core', 'dashboard-saas01-pw-3'],
      ['us-west-2', 'wt-prod-us-01', 'prom-wt-prod-us-01', 'dashboard-default-pw-1'],
    ];
    for (const [region, cluster, uid, dashboardPassword] of cases) {
      const result = await run(batch([promql(), { id: 'st', operation: 'statements' }], { region, cluster }));
      expect(result.ok && result.details.queries.map((q) => q.status)).toEqual(['complete', 'complete']);
      expect(proxy.requests.at(-1)).toMatchObject({ uid, authorized: true, path: '/api/v1/query_range' });
      expect(dashboard.sessions.at(-1)?.request.login.password).toBe(dashboardPassword);
    }
    expect(dashboard.sessions.at(-1)?.request.cluster).toBe('wt-prod-us-01');
  });

  it('runs TopSQL on exactly one metric-selected TiDB instance: from a series of the same batch or from a returned reference', async () => {
    const result = await run(batch([promql(), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 0 }, window: TOP_WINDOW, limit: 1 }]));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [cpu, top] = result.details.queries;
    expect(dashboard.sessions[0].views[0]).toMatchObject({ view: 'top_sql', instance: '10.0.3.18:10080', fromMs: Date.parse(TOP_WINDOW.from), toMs: Date.parse(TOP_WINDOW.to) });
    expect(top).toMatchObject({ status: 'complete', totalRows: 2, omittedRows: 1, rows: [{ digestRef: expect.stringMatching(/^digest:[0-9a-f]{16}$/), cpuTimeMs: 91234.5, execPerSec: 12.5, avgLatencyMs: 80, planCount: 2 }] });
    expect(result.text).not.toMatch(/10\.0\.3\.1[78]|card_number|SELECT|UPDATE|a{64}/);

    const refOf = (i: number) => cpu.series?.[i].instanceRefs?.['instance'] ?? '';
    const again = await run(batch([{ id: 'top2', operation: 'top_sql', instanceRef: refOf(1), window: TOP_WINDOW }]));
    expect(again.ok && again.details.queries[0].status).toBe('complete');
    expect(dashboard.sessions[1].views[0].instance).toBe('10.0.3.17:10080');
  });

  it('refuses TopSQL without exactly one TiDB instance, naming the field', async () => {
    const first = await run(batch([promql()]));
    const tikvRef = (first.ok && first.details.queries[0].series?.find((s) => s.labels['job'] === 'tikv')?.instanceRefs?.['instance']) || '';
    const neither = await run(batch([{ id: 'top', operation: 'top_sql', window: TOP_WINDOW }]));
    expect(neither.ok ? null : neither.details.detail_error).toMatch(/^queries\.0\.instanceRef: give exactly one of instanceRef or instanceFrom/);
    const free = await run(batch([{ id: 'top', operation: 'top_sql', instance: '10.0.3.17:10080', window: TOP_WINDOW }]));
    expect(free.ok ? null : free.details.detail_error).toMatch(/Unrecognized key: "instance"/);
    const cases: [unknown[], RegExp][] = [
      [[{ id: 'top', operation: 'top_sql', instanceRef: tikvRef, window: TOP_WINDOW }], /^queries\.top: the reference selects a tikv instance; TopSQL needs a TiDB instance/],
      [[{ id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'later', series: 0 }, window: TOP_WINDOW }, promql('later')], /^queries\.top\.instanceFrom\.queryId: must name an earlier promql_range entry/],
      [[promql(), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 7 }, window: TOP_WINDOW }], /^queries\.top\.instanceFrom\.series: cpu returned 3 series/],
      [[promql(), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'cpu', series: 2 }, window: TOP_WINDOW }], /^queries\.top: the reference selects a tikv instance/],
    ];
    for (const [queries, why] of cases) {
      const result = await run(batch(queries));
      const top = result.ok ? result.details.queries.find((q) => q.id === 'top') : null;
      expect(top).toMatchObject({ status: 'failed', error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(why) });
    }
    // A reference of another target never opens here.
    const otherTarget = await run(batch([{ id: 'top', operation: 'top_sql', instanceRef: tikvRef, window: TOP_WINDOW }], { region: 'us-west-2', cluster: 'wt-prod-us-01' }));
    expect(otherTarget.ok && otherTarget.details.queries[0].detail_error).toMatch(/belongs to another target/);
    expect(dashboard.sessions.flatMap((s) => s.views)).toHaveLength(0);
  });

  it('compacts Statements and Slow Query to digest references and numbers', async () => {
    const result = await run(batch([{ id: 'st', operation: 'statements', orderBy: 'avg_latency' }, { id: 'slow', operation: 'slow_query' }]));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [st, slow] = result.details.queries;
    expect(st.rows?.[0]).toEqual({ digestRef: expect.stringMatching(/^digest:/), execCount: 40, avgLatencyMs: 900, maxLatencyMs: 4000, totalLatencyMs: 36000, avgMemBytes: 5e6, planCount: 3 });
    expect(st).toMatchObject({ totalRows: 3, omittedRows: 1 });
    expect(slow.rows?.[0]).toEqual({ digestRef: st.rows?.[0].digestRef, count: 2, maxQueryTimeMs: 4100, totalQueryTimeMs: 8000, maxMemBytes: 7e6, firstAt: '2026-11-20T10:38:20.000Z', lastAt: '2026-11-20T10:40:00.000Z' });
    expect(slow).toMatchObject({ executions: 3, totalRows: 2 });
    expect(result.text).not.toMatch(/card_number|customers|crm|billing|10\.0\.3\.|SELECT|UPDATE/);
    expect(dashboard.sessions).toHaveLength(1);
  });

  it('bounds the dashboard login by its outer auth limit', async () => {
    const hanging = wetechPackage(configFor({ dashboard: () => new Promise(() => undefined), authTimeoutMs: 100 }));
    const result = await run(batch([{ id: 'st', operation: 'statements' }]), hanging);
    expect(JSON.stringify(result.details)).toContain('PROVIDER.AUTH_TIMEOUT');
    expect(result.text).toContain('did not finish within 100 ms');
  });

  it('reads the browser state before and writes it back after every dashboard execution, and never opens a browser for PromQL alone', async () => {
    await run(batch([promql()]));
    expect(dashboard.sessions).toHaveLength(0);
    expect(store.snapshot().revision).toBe(0);

    await run(batch([{ id: 'st', operation: 'statements' }]));
    await run(batch([{ id: 'st', operation: 'statements' }, { id: 'slow', operation: 'slow_query' }]));
    expect(dashboard.sessions).toHaveLength(2);
    expect(dashboard.sessions[0].request.storageState).toBeNull();
    expect(dashboard.sessions[1].request.storageState?.origins[0].localStorage[0].value).toBe('token-1');
    expect(dashboard.sessions.every((s) => s.closed)).toBe(true);
    expect(events).toEqual([
      { kind: 'read', revision: 0, hadState: false },
      { kind: 'written', revision: 1, logins: 1 },
      { kind: 'read', revision: 1, hadState: true },
      { kind: 'written', revision: 2, logins: 0 },
    ]);
    expect(store.snapshot().state?.origins[0].localStorage[0].value).toBe('token-2');
  });

  it('two concurrent executions (two replicas) on one store: one writes, the other gets a typed conflict; both keep their evidence', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    viewAnswer = async (v) => {
      await gate;
      return pageRows(v);
    };
    const replicaA = wetechPackage(configFor());
    const replicaB = wetechPackage(configFor());
    const both = Promise.all([run(batch([{ id: 'st', operation: 'statements' }]), replicaA), run(batch([{ id: 'st', operation: 'statements' }]), replicaB)]);
    await new Promise((r) => setTimeout(r, 50));
    release();
    const results = await both;
    expect(results.map((r) => r.ok && r.details.queries[0].status)).toEqual(['complete', 'complete']);
    const outcomes = events.filter((e) => e.kind !== 'read');
    expect(outcomes).toEqual(expect.arrayContaining([{ kind: 'written', revision: 1, logins: 1 }, { kind: 'conflict', expectedRevision: 0, actualRevision: 1, logins: 1 }]));
    expect(outcomes).toHaveLength(2);
    expect(store.snapshot().revision).toBe(1);
  });

  it('runs serially within one package: concurrent executions never overlap and never conflict', async () => {
    let active = 0;
    let peak = 0;
    viewAnswer = async (v) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 15));
      active--;
      return pageRows(v);
    };
    const input = batch([{ id: 'st', operation: 'statements' }, { id: 'slow', operation: 'slow_query' }]);
    await Promise.all([run(input), run(input), pkg.runBatch({ ticketKey: 'APID-7', target: 'ap-southeast-1/wt-prod-sg-01', window: WINDOW, queries: [{ id: 'st', operation: 'statements', expression: '{}' }] }, { now: NOW })]);
    expect(peak).toBe(1);
    expect(events.filter((e) => e.kind === 'conflict')).toHaveLength(0);
    expect(store.snapshot().revision).toBe(3);
  });

  it('keeps going without the stored state when the store cannot be read, and says so', async () => {
    const broken: StorageStateStore = { read: async () => Promise.reject(new Error('connection refused')), write: async () => 1 };
    const p = wetechPackage(configFor({ storageState: broken }));
    const result = await run(batch([promql(), { id: 'st', operation: 'statements' }]), p);
    expect(result.ok && result.details.queries.map((q) => [q.status, q.error_code ?? null])).toEqual([
      ['complete', null],
      ['failed', 'PROVIDER.AUTH_FAILED'],
    ]);
  });

  it('drives planned batches: target region/cluster, PromQL text or JSON parameters, per-query refusals', async () => {
    const result = await pkg.runBatch(
      {
        ticketKey: 'APID-29213',
        target: 'ap-southeast-1/wt-prod-sg-01',
        window: WINDOW,
        queries: [
          { id: 'cpu', operation: 'promql_range', expression: 'rate(tidb_server_cpu_seconds_total[1m])' },
          { id: 'top', operation: 'top_sql', expression: JSON.stringify({ instanceFrom: { queryId: 'cpu', series: 0 }, limit: 5 }), window: TOP_WINDOW },
          { id: 'st', operation: 'statements', expression: JSON.stringify({ orderBy: 'exec_count' }), supplemental: true },
          { id: 'slow', operation: 'slow_query', expression: 'SELECT * FROM information_schema.slow_query' },
          { id: 'url', operation: 'statements', expression: JSON.stringify({ url: 'https://evil.example' }) },
          { id: 'sql', operation: 'sql', expression: 'select 1' },
          { id: 'win', operation: 'statements', expression: JSON.stringify({ window: WINDOW }) },
        ],
      },
      { now: NOW },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.text).toBe(JSON.stringify(result.details));
    expect(result.details.queries.map((q) => [q.id, q.status, q.supplemental])).toEqual([
      ['cpu', 'complete', false],
      ['top', 'complete', false],
      ['st', 'complete', true],
      ['slow', 'failed', false],
      ['url', 'failed', false],
      ['sql', 'failed', false],
      ['win', 'failed', false],
    ]);
    const details = Object.fromEntries(result.details.queries.map((q) => [q.id, q.detail_error]));
    expect(details['slow']).toMatch(/^queries\.slow\.expression: must be a JSON object of slow_query parameters/);
    expect(details['url']).toMatch(/^queries\.url\.expression: Unrecognized key: "url"/);
    expect(details['sql']).toMatch(/^queries\.sql\.operation: sql is not offered by the wetech package/);
    expect(details['win']).toMatch(/^queries\.win\.expression\.window: set it on the planned query/);
    const noTicket = await pkg.runBatch({ ticketKey: null, target: 'ap-southeast-1/wt-prod-sg-01', window: WINDOW, queries: [{ id: 'cpu', operation: 'promql_range', expression: 'up' }] }, { now: NOW });
    expect(noTicket.ok ? null : noTicket.details.detail_error).toMatch(/^ticketKey: /);
    const badTarget = await pkg.runBatch({ ticketKey: 'APID-1', target: 'wt-prod-sg-01', window: WINDOW, queries: [{ id: 'cpu', operation: 'promql_range', expression: 'up' }] }, { now: NOW });
    expect(badTarget.ok ? null : badTarget.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
  });

  it('refuses configuration that lacks a profile the inventory uses', () => {
    const { 'asia-saas02': _dropped, ...partial } = CREDS;
    expect(() => wetechPackage(configFor({ credentials: partial }))).toThrow(/asia-saas02 is used by the inventory but not configured/);
    expect(() => wetechPackage(configFor({ resolveOrigin: () => 'https://x.example/path' }))).toThrow(/plain http\(s\) origin/);
  });

  describe('properties', () => {
    const field = /^(\(input\)|[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*): \S/;
    let genuineRef = '';
    beforeAll(async () => {
      store = memoryStorageStateStore();
      dashboard = fakeDashboard((v) => pageRows(v));
      events = [];
      promAnswer = () => ({ status: 200, body: matrixBody([tidb('10.0.3.17:10080', 5), tidb('10.0.3.18:10080', 9), tikv('10.0.4.1:20180')]) });
      const first = await run(batch([promql()]), wetechPackage(configFor()));
      genuineRef = (first.ok && first.details.queries[0].series?.[0].instanceRefs?.['instance']) || '';
    });
    const windowArb = fc.oneof(
      { arbitrary: fc.constantFrom(WINDOW, TOP_WINDOW, { from: '2026-11-20T18:00:00+08:00', to: '2026-11-20T18:10:00+08:00' }), weight: 9 },
      { arbitrary: fc.constant({ from: '2026-11-20T11:00:00Z', to: '2026-11-20T10:00:00Z' }), weight: 1 },
    );
    const entry = fc.oneof(
      fc.record({ id: fc.constant(''), operation: fc.constant('promql_range'), promql: fc.constantFrom('up', 'rate(tidb_server_cpu_seconds_total[1m])', 'rate(', 'vector(1)'), instanceRef: fc.constantFrom('genuine', `wir1.${'A'.repeat(60)}`) }, { requiredKeys: ['id', 'operation', 'promql'] }),
      fc
        .tuple(
          fc.oneof(
            { arbitrary: fc.record({ instanceRef: fc.constantFrom('genuine', `wir1.${'B'.repeat(60)}`) }), weight: 4 },
            { arbitrary: fc.record({ instanceFrom: fc.record({ queryId: fc.constantFrom('q0', 'q1', 'q9'), series: fc.integer({ min: 0, max: 4 }) }) }), weight: 4 },
            { arbitrary: fc.record({ instanceRef: fc.constant('genuine'), instanceFrom: fc.record({ queryId: fc.constant('q0'), series: fc.constant(0) }) }, { requiredKeys: [] }), weight: 1 },
          ),
          fc.constantFrom(TOP_WINDOW, { from: '2026-11-20T18:40:00+08:00', to: '2026-11-20T18:50:00+08:00' }, { from: '2026-11-20T10:50:00Z', to: '2026-11-20T10:35:00Z' }, WINDOW),
          fc.oneof({ arbitrary: fc.integer({ min: 1, max: 20 }), weight: 9 }, { arbitrary: fc.integer({ min: -1, max: 30 }), weight: 1 }),
        )
        .map(([selector, window, limit]) => ({ id: '', operation: 'top_sql', ...selector, window, limit })),
      fc.record({ id: fc.constant(''), operation: fc.constant('statements'), orderBy: fc.constantFrom('total_latency', 'exec_count', 'avg_latency', 'avg_mem', 'total_latency', 'exec_count', 'avg_latency', 'avg_mem', 'sql_text'), limit: fc.integer({ min: 1, max: 20 }) }, { requiredKeys: ['id', 'operation'] }),
      fc.record({ id: fc.constant(''), operation: fc.constant('slow_query'), orderBy: fc.constantFrom('query_time', 'mem_max'), window: windowArb }, { requiredKeys: ['id', 'operation'] }),
    );
    const plausible = fc.record({
      ticketKey: fc.oneof({ arbitrary: fc.constant('APID-29213'), weight: 9 }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 }),
      pair: fc.oneof(
        { arbitrary: fc.constantFrom<[string, string]>(['ap-southeast-1', 'wt-prod-sg-01'], ['us-west-2', 'wt-prod-us-01'], ['ap-saas01', 'wt-saas01-core']), weight: 9 },
        { arbitrary: fc.constantFrom<[string, string]>(['us-west-2', 'wt-prod-sg-01'], ['eu-central-1', 'nope']), weight: 1 },
      ),
      window: windowArb,
      queries: fc.array(entry, { minLength: 1, maxLength: 6 }).map((qs) => qs.map((q, i) => ({ ...q, id: `q${i}` }))),
    }).map(({ pair: [region, cluster], ...rest }) => ({ ...rest, region, cluster }));
    const inputs = fc.oneof(
      { arbitrary: fc.anything(), weight: 1 },
      { arbitrary: plausible, weight: 3 },
      {
        arbitrary: fc.tuple(plausible, fc.constantFrom('ticketKey', 'region', 'cluster', 'window', 'queries', 'provider', 'credentials', 'first-query'), fc.anything()).map(([input, key, junk]) => {
          const broken: Record<string, unknown> = { ...input };
          if (key === 'first-query') broken['queries'] = [junk, ...input.queries.slice(1)];
          else broken[key] = junk;
          return broken;
        }),
        weight: 3,
      },
    );
    const withGenuine = (input: unknown): unknown => JSON.parse(JSON.stringify(input ?? null).split('"instanceRef":"genuine"').join(`"instanceRef":"${genuineRef}"`));

    it('never crashes on thousands of generated inputs; every refusal names its field', async () => {
      let succeeded = 0;
      let dashboardRuns = 0;
      await fc.assert(
        fc.asyncProperty(inputs, async (raw) => {
          const result = await run(raw === undefined ? raw : withGenuine(raw));
          expect(result.text).toBe(JSON.stringify(result.details));
          if (!result.ok) {
            expect(result.details.error_code).not.toBe('PROVIDER.INTERNAL');
            if (result.details.error_code === 'PROVIDER.INPUT_INVALID') expect(result.details.detail_error).toMatch(field);
            expect(result.details.detail_error.length).toBeGreaterThan(0);
            return;
          }
          succeeded++;
          if (result.details.queries.some((q) => q.operation !== 'promql_range' && q.status !== 'failed')) dashboardRuns++;
          for (const q of result.details.queries) if (q.status === 'failed' && q.error_code === 'PROVIDER.INPUT_INVALID') expect(q.detail_error).toMatch(field);
        }),
        { numRuns: 3000 },
      );
      expect(succeeded).toBeGreaterThan(300);
      expect(dashboardRuns).toBeGreaterThan(50);
    }, 180_000);

    it('sanitises outputs: no address, secret, SQL text or schema survives, whatever the providers return', async () => {
      const octet = fc.integer({ min: 1, max: 254 });
      const ip = fc.tuple(octet, octet, octet, octet).map((p) => p.join('.'));
      const words = fc.stringMatching(/^[a-z]{4,10}$/);
      await fc.assert(
        fc.asyncProperty(fc.array(ip, { minLength: 1, maxLength: 6 }), words, words, async (addresses, table, column) => {
          const sql = `SELECT ${column} FROM ${table}_secret WHERE id = 42`;
          promAnswer = () => ({ status: 200, body: matrixBody(addresses.map((a, i) => ({ metric: { job: 'tidb', instance: `${a}:10080`, detail: `seen at ${a} password=${CREDS.default.grafana.password}` }, values: [[T0, String(i)]] }))) });
          viewAnswer = () => ({
            rows: addresses.map((a, i) => pageRow(((i + 10) * 7919).toString(16).padStart(16, '0'), { sql_text: sql, query: sql, instance: `${a}:4000`, schema_name: `${table}_db`, exec_count: i, sum_latency_ms: i * 10, query_time_ms: i, timestamp: T0 + i })),
            totalRows: addresses.length,
          });
          const result = await run(batch([promql('q0'), { id: 'top', operation: 'top_sql', instanceFrom: { queryId: 'q0', series: 0 }, window: TOP_WINDOW }, { id: 'st', operation: 'statements' }, { id: 'slow', operation: 'slow_query' }]));
          expect(result.ok && result.details.queries.map((q) => q.status)).toEqual(['complete', 'complete', 'complete', 'complete']);
          for (const a of addresses) expect(result.text).not.toContain(a);
          for (const leak of [sql, `${table}_secret`, `${table}_db`, 'SELECT', KEY, ...Object.values(CREDS).flatMap((p) => Object.values(p).map((l) => l.password))]) expect(result.text).not.toContain(leak);
        }),
        { numRuns: 300 },
      );
    }, 180_000);
  });
});
