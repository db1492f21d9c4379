import fc from 'fast-check';
import type { HttpCallRecord } from '../../connectors/http-client';
import { executeTool, type ExecuteOptions } from '../../core/execute-tool';
import type { AuditRecord } from '../../core/tool-spec';
import { FIXTURE_LEAKS, leakyCluster, startClinicFixture, type RunningClinicFixture } from '../../../test/clinic-api-fixture';
import { CLINIC_BOOTSTRAP_RECORD_ID, clinicBatchTool } from './clinic-batch.tool';
import type { ClinicPackageConfig } from './clinic.config';
import type { ClinicBatchOutput, ClinicQueryOutput } from './clinic-output.schema';
import { clinicPackage, clinicTarget, listClinicTargets, parseClinicTarget } from './clinic.package';

const CLINIC_TOKEN = 'clinic-token-5f0c1d2e3a4b';
const CLOUD_CONFIG_TOKEN = 'cloudcfg-token-9e8d7c6b5a4f';
const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const ORG = 'org-acme';
const DEDICATED = 'cl-dedicated-1';
const SERVERLESS = 'cl-starter-1';
const FOREIGN = 'cl-foreign-1';

type Entry = ClinicQueryOutput;

describe('Clinic evidence package over a scripted Clinic API', () => {
  let fixture: RunningClinicFixture;
  let config: ClinicPackageConfig;
  let records: { queryId: string; record: HttpCallRecord }[] = [];
  let audits: AuditRecord[] = [];

  beforeAll(async () => {
    fixture = await startClinicFixture({
      token: CLINIC_TOKEN,
      cloudConfigToken: CLOUD_CONFIG_TOKEN,
      clusters: [leakyCluster(ORG, DEDICATED, 'dedicated'), leakyCluster(ORG, SERVERLESS, 'starter'), leakyCluster('org-other', FOREIGN, 'dedicated')],
    });
    config = { clinic: { baseUrl: fixture.baseUrl, token: CLINIC_TOKEN }, cloudConfig: { baseUrl: fixture.cloudConfigUrl, token: CLOUD_CONFIG_TOKEN }, retryDelaysMs: [5, 5] };
  });
  afterAll(async () => fixture?.stop());
  beforeEach(() => {
    fixture.reset();
    records = [];
    audits = [];
  });

  const options = (): ExecuteOptions => ({ now: NOW, audit: (a) => audits.push(a), onHttpRecord: (queryId, record) => records.push({ queryId, record }) });
  const run = (input: unknown, cfg: ClinicPackageConfig = config) => executeTool(clinicBatchTool(cfg), input, options());
  const batch = (queries: unknown[], extra: Record<string, unknown> = {}) => ({ org_id: ORG, cluster_id: DEDICATED, window: WINDOW, queries, ...extra });
  const ok = async (input: unknown, cfg?: ClinicPackageConfig): Promise<ClinicBatchOutput> => {
    const result = await run(input, cfg);
    expect(result.text).toBe(JSON.stringify(result.details));
    if (!result.ok) throw new Error(`expected success, got ${result.text}`);
    return result.details;
  };
  const entry = <O extends Entry['operation']>(out: ClinicBatchOutput, id: string, _operation?: O): Extract<Entry, { operation: O }> => {
    const found = out.queries.find((q) => q.id === id);
    if (!found) throw new Error(`no entry ${id}`);
    return found as Extract<Entry, { operation: O }>;
  };
  const expectNoLeak = (text: string) => {
    for (const leak of [...FIXTURE_LEAKS, CLINIC_TOKEN, CLOUD_CONFIG_TOKEN, fixture.baseUrl, fixture.cloudConfigUrl]) expect(text).not.toContain(leak);
    expect(text).not.toMatch(/"(cost\w*|billing|sku|machine_type|sql_text|query|connection_id|operator|address|instance)"\s*:/i);
    expect(text).not.toMatch(/SELECT \*|UPDATE secret|conn=/);
  };

  it('lists the clusters of every org the token reads as <org>/<cluster> targets, with the cluster id and name as aliases and nothing else', async () => {
    const listing = await clinicPackage(config).listTargets?.();
    expect(listing).toEqual({
      status: 'listed',
      targets: [
        { target: `${ORG}/${DEDICATED}`, aliases: [DEDICATED, 'acme-prod-db'] },
        { target: `${ORG}/${SERVERLESS}`, aliases: [SERVERLESS, 'acme-prod-db'] },
        { target: `org-other/${FOREIGN}`, aliases: [FOREIGN, 'acme-prod-db'] },
      ],
      truncated: false,
      failureCode: null,
    });
    // The cluster name is an alias a ticket may use; every other planted value stays out.
    const text = JSON.stringify(listing);
    for (const leak of [...FIXTURE_LEAKS.filter((l) => l !== 'acme-prod-db'), CLINIC_TOKEN, fixture.baseUrl]) expect(text).not.toContain(leak);
    expect(fixture.hits('orgs').map((r) => r.headers['authorization'])).toEqual([`Bearer ${CLINIC_TOKEN}`]);
    expect(fixture.hits('clusters').map((r) => [r.path, r.headers['x-clinic-org-id'], r.query.get('limit')])).toEqual([
      [`/api/v1/orgs/${ORG}/clusters`, ORG, '2000'],
      ['/api/v1/orgs/org-other/clusters', 'org-other', '1998'],
    ]);
  });

  it('bounds the inventory, drops ids and names that are not safe, and keeps what it could list when one org fails', async () => {
    const capped = await listClinicTargets(config, 2);
    expect(capped).toMatchObject({ status: 'listed', truncated: true, failureCode: null });
    expect(capped.targets.map((t) => t.target)).toEqual([`${ORG}/${DEDICATED}`, `${ORG}/${SERVERLESS}`]);
    expect(fixture.hits('clusters')).toHaveLength(1);

    fixture.reset();
    fixture.script('orgs', { status: 200, body: { items: [{ org_id: ORG }, { org_id: 'bad org/../x' }, { org_id: 'org-other' }] } });
    fixture.script(
      'clusters',
      { status: 200, body: { items: [{ cluster_id: 'cl-1', name: '10.0.3.17' }, { cluster_id: 'cl-2', name: 'db.internal-prod.svc' }, { cluster_id: 'cl 3', name: 'x' }, { cluster_id: 'cl-4', name: 'Orders DB' }, { cluster_id: 'cl-4' }] } },
      { status: 503 },
      { status: 503 },
      { status: 503 },
    );
    const partial = await listClinicTargets(config);
    expect(partial).toEqual({
      status: 'listed',
      targets: [
        { target: `${ORG}/cl-1`, aliases: ['cl-1'] },
        { target: `${ORG}/cl-2`, aliases: ['cl-2'] },
        { target: `${ORG}/cl-4`, aliases: ['cl-4', 'Orders DB'] },
      ],
      truncated: true,
      failureCode: 'PROVIDER.HTTP_5XX',
    });
    expect(fixture.hits('clusters').map((r) => r.path)).toEqual([`/api/v1/orgs/${ORG}/clusters`, '/api/v1/orgs/org-other/clusters', '/api/v1/orgs/org-other/clusters', '/api/v1/orgs/org-other/clusters']);
  });

  it('an inventory the token may not read is unavailable with the auth code, so the previous one stays', async () => {
    const listing = await listClinicTargets({ ...config, clinic: { ...config.clinic, token: 'wrong-token-123456' } });
    expect(listing).toEqual({ status: 'unavailable', targets: [], truncated: false, failureCode: 'PROVIDER.AUTH_FAILED' });
    fixture.script('orgs', { status: 200, body: { orgs: 'not a list' } });
    expect(await listClinicTargets(config)).toMatchObject({ status: 'unavailable', failureCode: 'PROVIDER.RESPONSE_INVALID' });
  });

  it('answers every HTTP operation with compact, allowlisted evidence and sends the scope headers on each call', async () => {
    const out = await ok(
      batch([
        { id: 'meta', operation: 'cluster_metadata' },
        { id: 'components', operation: 'components' },
        { id: 'top', operation: 'top_sql', limit: 5 },
        { id: 'slow', operation: 'slow_query', min_query_time_seconds: 1 },
        { id: 'activities', operation: 'activities', window: { from: '2026-10-25T00:00:00Z', to: '2026-11-20T12:00:00Z' } },
        { id: 'logs-summary', operation: 'logs', component: 'tidb', detail: 'summary' },
        { id: 'logs-events', operation: 'logs', component: 'tidb', detail: 'events', levels: ['error', 'warn', 'fatal'] },
        { id: 'config', operation: 'configuration', selectors: [{ component: 'tikv', key: 'raftstore.capacity' }] },
        { id: 'qps', operation: 'promql_instant', promql: 'sum(rate(tidb_server_query_total[5m]))' },
      ]),
    );
    expect(out.acquisition).toBe('complete');
    expect(entry(out, 'meta', 'cluster_metadata').result).toEqual({ cluster_id: DEDICATED, tier: 'dedicated', version: 'v7.5.1', status: 'available', region: 'us-west-2', cloud_provider: 'aws' });
    expect(entry(out, 'components', 'components').result).toEqual({
      total: 6,
      components: [
        { component: 'pd', count: 1, healthy: 1, unhealthy: 0 },
        { component: 'tidb', count: 2, healthy: 1, unhealthy: 1 },
        { component: 'tikv', count: 3, healthy: 3, unhealthy: 0 },
      ],
    });
    const top = entry(out, 'top', 'top_sql').result;
    expect(top).toMatchObject({ transport: 'clinic_api', order_by: 'cpu_time' });
    expect(top?.entries[0]).toMatchObject({ digest_ref: expect.stringMatching(/^digest:[0-9a-f]{16}$/), plan_digest_ref: expect.stringMatching(/^plan_digest:[0-9a-f]{16}$/), statement_type: 'select', exec_count: 1200, cpu_time_ms: 91234.5 });
    const slow = entry(out, 'slow', 'slow_query').result;
    expect(slow).toMatchObject({ transport: 'clinic_api', total_slow_queries: 6, truncated: false });
    expect(slow?.groups[0]).toMatchObject({ statement_type: 'select', count: 4, failed_count: 1, max_query_time_s: 5.5, first_seen: '2026-11-20T10:00:00.000Z', last_seen: '2026-11-20T10:38:00.000Z' });
    // The same digest gets the same reference in TopSQL and slow queries, so they can be joined.
    expect(slow?.groups[0].digest_ref).toBe(top?.entries[0].digest_ref);
    const activities = entry(out, 'activities', 'activities').result;
    expect(activities?.events.map((e) => [e.type, e.status, e.component])).toEqual([
      ['scale', 'running', 'tikv'],
      ['upgrade', 'succeeded', 'tidb'],
    ]);
    const summary = entry(out, 'logs-summary', 'logs').result;
    expect(summary).toMatchObject({ detail: 'summary', component: 'tidb', lines: 5, hit_limit: false, first_at: '2026-11-20T10:01:00.000Z', last_at: '2026-11-20T10:41:00.000Z' });
    expect(summary?.by_group).toEqual(expect.arrayContaining([{ group: 'panic', count: 1 }, { group: 'slow_query', count: 1 }, { group: 'startup', count: 1 }, { group: 'connection', count: 1 }]));
    expect(summary?.top_sources).toEqual(expect.arrayContaining([{ source: 'adapter.go:100', count: 1 }]));
    const events = entry(out, 'logs-events', 'logs').result?.events ?? [];
    expect(events.find((e) => e.group === 'slow_query')).toEqual({ at: '2026-11-20T10:38:00.000Z', level: 'warn', group: 'slow_query', source: 'adapter.go:456', numbers: { exec_time_s: 2.5, mem_max_bytes: 4096 }, flags: { success: true, internal: false } });
    expect(entry(out, 'config', 'configuration').result).toEqual({ values: [{ component: 'tikv', key: 'raftstore.capacity', value: '0', source: 'clinic', scope: null }], missing: [], fallback_used: false });
    expect(entry(out, 'qps', 'promql_instant')).toMatchObject({ status: 'empty', result: { series_count: 0 } });

    for (const r of fixture.requests.filter((q) => q.route !== 'cloud_config')) {
      expect(r.headers['authorization']).toBe(`Bearer ${CLINIC_TOKEN}`);
      expect(r.headers['x-clinic-org-id']).toBe(ORG);
      expect(r.headers['x-clinic-cluster-id']).toBe(DEDICATED);
    }
    // The LogQL is the package's: it always names the cluster, whatever the caller asked.
    expect(fixture.hits('logs')[1].query.get('query')).toBe(`{cluster_id="${DEDICATED}", component="tidb"} |~ "(?i)\\\\[(error|warn|fatal)\\\\]"`);
    expect(fixture.hits('metadata')).toHaveLength(1);
    expect(records.find((r) => r.queryId === CLINIC_BOOTSTRAP_RECORD_ID)?.record.attempts.map((a) => a.statusClass)).toEqual(['200']);
    expect(audits.at(-1)).toMatchObject({ tool: 'clinic_evidence_batch', outcome: 'success', errorCode: null, target: expect.stringContaining(DEDICATED), operations: expect.arrayContaining(['logs']) });
    expect(audits.at(-1)?.window).toEqual({ from: expect.any(String), to: expect.any(String) });
    expectNoLeak(JSON.stringify(out));
    expectNoLeak(JSON.stringify(audits));
  });

  it('rejects a cluster the org does not own, on Clinic metadata authority, before any query runs', async () => {
    const foreign = await run(batch([{ id: 'top', operation: 'top_sql' }], { cluster_id: FOREIGN }));
    expect(foreign.ok ? null : foreign.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
    fixture.script('metadata', { status: 200, body: { cluster_id: DEDICATED, org_id: 'org-someone-else', tier: 'dedicated', version: 'v7.5.1', status: 'available' } });
    const mismatch = await run(batch([{ id: 'top', operation: 'top_sql' }]));
    expect(mismatch.ok ? null : mismatch.details).toMatchObject({ error_code: 'PROVIDER.TARGET_REJECTED', detail_error: expect.stringContaining('not list cluster') });
    expect(fixture.hits('topsql')).toHaveLength(0);
  });

  it('reports a 401/403 on the first metadata call as an authentication failure and stops', async () => {
    const wrong = await run(batch([{ id: 'top', operation: 'top_sql' }]), { ...config, clinic: { ...config.clinic, token: 'not-the-right-token' } });
    expect(wrong.ok ? null : wrong.details.error_code).toBe('PROVIDER.AUTH_FAILED');
    expect(wrong.text).not.toContain('not-the-right-token');
    fixture.script('metadata', { status: 403, body: { error: 'forbidden for this org' } });
    const forbidden = await run(batch([{ id: 'top', operation: 'top_sql' }]));
    expect(forbidden.ok ? null : forbidden.details).toMatchObject({ error_code: 'PROVIDER.AUTH_FAILED', detail_error: expect.stringContaining('HTTP 403') });
    expect(fixture.hits('metadata')).toHaveLength(2);
    expect(fixture.hits('topsql')).toHaveLength(0);
  });

  it('stops the scenario with PROVIDER.AUTH_TIMEOUT when the bootstrap outlives its outer limit', async () => {
    fixture.script('metadata', { status: 200, delayMs: 1500, body: { cluster_id: DEDICATED, org_id: ORG, tier: 'dedicated', version: 'v7.5.1', status: 'available' } });
    const slow = await run(batch([{ id: 'top', operation: 'top_sql' }]), { ...config, bootstrapTimeoutMs: 200 });
    expect(slow.ok ? null : slow.details).toMatchObject({ error_code: 'PROVIDER.AUTH_TIMEOUT', detail_error: expect.stringContaining('200 ms bootstrap limit') });
    expect(fixture.hits('topsql')).toHaveLength(0);
  });

  it('retries a 5xx bootstrap twice, then fails the batch with the 5xx episode recorded', async () => {
    fixture.script('metadata', { status: 503 }, { status: 502 }, { status: 500, body: 'upstream 10.0.1.5 down' });
    const result = await run(batch([{ id: 'top', operation: 'top_sql' }]));
    expect(result.ok ? null : result.details.error_code).toBe('PROVIDER.HTTP_5XX');
    expect(result.text).not.toContain('10.0.1.5');
    const bootstrap = records.find((r) => r.queryId === CLINIC_BOOTSTRAP_RECORD_ID)?.record;
    expect(bootstrap?.attempts.map((a) => a.statusClass)).toEqual(['500', '502', '500']);
    expect(bootstrap?.systemEvent).toMatchObject({ statusSequence: [503, 502, 500], result: 'failed' });
  });

  it('retries an identical request after 5xx, never after 4xx, and keeps the provider rejection text', async () => {
    fixture.script('topsql', { status: 502 }, { status: 500 });
    fixture.script('activities', { status: 400, body: { error: 'start must be before end (request 42)' } });
    const out = await ok(batch([{ id: 'top', operation: 'top_sql' }, { id: 'acts', operation: 'activities' }]));
    expect(entry(out, 'top').status).toBe('complete');
    const top = records.filter((r) => r.queryId === 'top').map((r) => r.record);
    expect(top[0].attempts.map((a) => a.statusClass)).toEqual(['502', '500', '200']);
    expect(top[0].systemEvent).toMatchObject({ statusSequence: [502, 500, 200], result: 'recovered' });
    const hits = fixture.hits('topsql');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => `${h.path}?${h.query.toString()}`)).size).toBe(1);
    expect(fixture.hits('activities')).toHaveLength(1);
    expect(entry(out, 'acts')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.HTTP_4XX', detail_error: expect.stringContaining('start must be before end (request 42)') });
    expect(out.acquisition).toBe('partial');
  });

  it('keeps supplemental failures visible without retrying them or lowering acquisition', async () => {
    fixture.script('components', { status: 503, body: 'busy' });
    const out = await ok(batch([{ id: 'top', operation: 'top_sql' }, { id: 'extra', operation: 'components', supplemental: true }]));
    expect(entry(out, 'extra')).toMatchObject({ status: 'failed', supplemental: true, error_code: 'PROVIDER.HTTP_5XX' });
    expect(fixture.hits('components')).toHaveLength(1);
    expect(out.acquisition).toBe('complete');
  });

  it('reads exact configuration keys: Clinic first, CloudConfig only for omitted keys, explicit value before version default', async () => {
    const out = await ok(
      batch([
        {
          id: 'cfg',
          operation: 'configuration',
          selectors: [
            { component: 'tikv', key: 'raftstore.capacity' },
            { component: 'tidb_variable', key: 'tidb_mem_quota_query' },
            { component: 'tidb_variable', key: 'tidb_enable_async_commit' },
            { component: 'pd', key: 'replication.max-replicas' },
            { component: 'tikv', key: 'storage.block-cache' },
          ],
        },
      ]),
    );
    expect(entry(out, 'cfg', 'configuration').result).toEqual({
      values: [
        { component: 'tikv', key: 'raftstore.capacity', value: '0', source: 'clinic', scope: null },
        { component: 'tidb_variable', key: 'tidb_mem_quota_query', value: 2147483648, source: 'cloud_config', scope: 'cluster' },
        { component: 'pd', key: 'replication.max-replicas', value: 3, source: 'cloud_config', scope: 'version_default' },
      ],
      missing: [
        // A default for another version is not this cluster's value.
        { component: 'tidb_variable', key: 'tidb_enable_async_commit', reason: 'not_found' },
        { component: 'tikv', key: 'storage.block-cache', reason: 'not_a_scalar' },
      ],
      fallback_used: true,
    });
    expect(fixture.hits('configuration')[0].query.getAll('selector')).toHaveLength(5);
    const cc = fixture.hits('cloud_config');
    expect(cc).toHaveLength(1);
    expect(cc[0].query.getAll('selector')).toEqual(['tidb_variable:tidb_mem_quota_query', 'tidb_variable:tidb_enable_async_commit', 'pd:replication.max-replicas']);
    expect(cc[0].query.get('version')).toBe('v7.5.1');
    expect(cc[0].headers['authorization']).toBe(`Bearer ${CLOUD_CONFIG_TOKEN}`);
  });

  it('falls back to CloudConfig for a Clinic 4xx, but not for a Clinic 5xx', async () => {
    fixture.script('configuration', { status: 404, body: { error: 'configuration endpoint not enabled' } });
    const after4xx = await ok(batch([{ id: 'cfg', operation: 'configuration', selectors: [{ component: 'pd', key: 'replication.max-replicas' }] }]));
    expect(entry(after4xx, 'cfg', 'configuration').result?.values).toEqual([{ component: 'pd', key: 'replication.max-replicas', value: 3, source: 'cloud_config', scope: 'version_default' }]);
    fixture.reset();
    fixture.script('configuration', { status: 500 }, { status: 500 }, { status: 500 });
    const after5xx = await ok(batch([{ id: 'cfg', operation: 'configuration', selectors: [{ component: 'pd', key: 'replication.max-replicas' }] }]));
    expect(entry(after5xx, 'cfg')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.HTTP_5XX' });
    expect(fixture.hits('cloud_config')).toHaveLength(0);
  });

  it('refuses secret-looking or wildcard configuration keys and more than 16 selectors, naming the field', async () => {
    for (const [selectors, field] of [
      [[{ component: 'tikv', key: 'security.ca-path' }], 'queries.0.selectors.0.key'],
      [[{ component: 'tidb', key: 'raftstore.capacity' }, { component: 'tidb_variable', key: 'validate_password.policy' }], 'queries.0.selectors.1.key'],
      [[{ component: 'pd', key: 'schedule.*' }], 'queries.0.selectors.0.key'],
      [[{ component: 'tiflash', key: 'x' }], 'queries.0.selectors.0.component'],
      [Array.from({ length: 17 }, (_, i) => ({ component: 'pd', key: `k${i}` })), 'queries.0.selectors'],
    ] as const) {
      const result = await run(batch([{ id: 'cfg', operation: 'configuration', selectors }]));
      expect(result.ok ? null : result.details.error_code).toBe('PROVIDER.INPUT_INVALID');
      expect(result.ok ? '' : result.details.detail_error).toContain(`${field}:`);
    }
    expect(fixture.requests).toHaveLength(0);
  });

  it('treats `sql` as canonical: `query` is only an alias, and both together are an actionable error', async () => {
    const both = await run(batch([{ id: 's', operation: 'sql_query', sql: 'SELECT 1', query: 'SELECT 2' }]));
    expect(both.ok ? '' : both.details.detail_error).toMatch(/queries\.0\.query: give the statement in `sql` only/);
    const neither = await run(batch([{ id: 's', operation: 'sql' }]));
    expect(neither.ok ? '' : neither.details.detail_error).toMatch(/queries\.0\.sql: is required/);
    expect(fixture.requests).toHaveLength(0);
    // Alias only: accepted and normalised (no SQL endpoint here, so the entry itself fails later).
    const alias = await ok(batch([{ id: 's', operation: 'sql_query', query: 'SELECT 1' }]));
    expect(entry(alias, 's')).toMatchObject({ operation: 'sql', status: 'failed', error_code: 'PROVIDER.UNREACHABLE' });
  });

  it('rejects invalid PromQL or SQL per entry before any network use, while the rest of the batch runs', async () => {
    const out = await ok(
      batch([
        { id: 'bad-promql', operation: 'promql_range', promql: 'rate(x[5m]' },
        { id: 'bad-sql', operation: 'sql', sql: 'DELETE FROM t' },
        { id: 'top', operation: 'top_sql' },
      ]),
    );
    expect(entry(out, 'bad-promql')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/^queries\.0\.promql: /) });
    expect(entry(out, 'bad-sql')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: expect.stringMatching(/^queries\.1\.sql: .*DELETE/) });
    expect(entry(out, 'top').status).toBe('complete');
    expect(fixture.hits('metrics')).toHaveLength(0);
  });

  it('enforces window ceilings per operation and names the entry', async () => {
    const day = { from: '2026-11-19T10:00:00Z', to: '2026-11-20T10:00:00Z' };
    const dayAndAHalf = { from: '2026-11-19T10:00:00Z', to: '2026-11-20T22:00:00Z' };
    const month = { from: '2026-10-21T10:00:00Z', to: '2026-11-20T10:00:00Z' };
    expect((await run(batch([{ id: 'l', operation: 'logs', component: 'tidb', detail: 'summary', window: day }]))).ok).toBe(true);
    const logs = await run(batch([{ id: 'l', operation: 'logs', component: 'tidb', detail: 'summary', window: dayAndAHalf }]));
    expect(logs.ok ? null : logs.details).toMatchObject({ error_code: 'PROVIDER.WINDOW_INVALID', detail_error: expect.stringMatching(/^queries\.0\.window: logs may read at most 24 hours/) });
    for (const operation of ['top_sql', 'slow_query']) {
      const r = await run(batch([{ id: 'x', operation }], { window: dayAndAHalf }));
      expect(r.ok ? null : r.details.detail_error).toMatch(/^window \(used by queries\.0\): /);
    }
    expect((await run(batch([{ id: 'm', operation: 'promql_range', promql: 'up', window: month }]))).ok).toBe(true);
    expect((await run(batch([{ id: 'a', operation: 'activities', window: month }]))).ok).toBe(true);
    const tooLong = await run(batch([{ id: 'a', operation: 'activities', window: { from: '2026-10-19T10:00:00Z', to: '2026-11-20T10:00:00Z' } }]));
    expect(tooLong.ok ? null : tooLong.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    const sql = await run(batch([{ id: 's', operation: 'sql', sql: 'SELECT 1', window: dayAndAHalf }]));
    expect(sql.ok ? null : sql.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
  });

  it('bounds the batch: 12 entries, unique safe ids', async () => {
    const thirteen = await run(batch(Array.from({ length: 13 }, (_, i) => ({ id: `q${i}`, operation: 'components' }))));
    expect(thirteen.ok ? '' : thirteen.details.detail_error).toMatch(/^queries: /);
    const dup = await run(batch([{ id: 'a', operation: 'components' }, { id: 'a', operation: 'cluster_metadata' }]));
    expect(dup.ok ? '' : dup.details.detail_error).toMatch(/unique/);
    const unsafe = await run(batch([{ id: 'A B', operation: 'components' }]));
    expect(unsafe.ok ? '' : unsafe.details.detail_error).toMatch(/^queries\.0\.id: /);
    const longId = await run(batch([{ id: 'a'.repeat(65), operation: 'components' }]));
    expect(longId.ok).toBe(false);
    const twelve = await ok(batch(Array.from({ length: 12 }, (_, i) => ({ id: `q${i}`, operation: 'components' }))));
    expect(twelve.queries).toHaveLength(12);
  });

  it("splits the budget by waves and starts each entry's clock when it is scheduled", async () => {
    const limited: ClinicPackageConfig = { ...config, batchLimits: { concurrency: 2, budgetMs: 1200, outerMs: 5000 } };
    // 4 entries, 2 waves: 600 ms each. The first wave is slow but within its share; the second still gets its own.
    fixture.script('topsql', { status: 200, body: { items: [] }, delayMs: 400 }, { status: 200, body: { items: [] }, delayMs: 2000 });
    const out = await ok(
      batch([
        { id: 'a', operation: 'top_sql' },
        { id: 'b', operation: 'top_sql' },
        { id: 'c', operation: 'components' },
        { id: 'd', operation: 'cluster_metadata' },
      ]),
      limited,
    );
    expect(entry(out, 'a').status).toBe('empty');
    expect(entry(out, 'b')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.TIMEOUT', detail_error: expect.stringContaining('600 ms') });
    expect(entry(out, 'c').status).toBe('complete');
    expect(entry(out, 'd').status).toBe('complete');
  });

  it('reports truncated and malformed provider bodies per entry', async () => {
    fixture.script('activities', { status: 200, body: { items: [{ id: 'x', type: 'upgrade', status: 'ok', started_at: '2026-11-20T10:00:00Z' }] }, truncate: true });
    fixture.script('components', { status: 200, body: '<html>gateway</html>' });
    const out = await ok(batch([{ id: 'acts', operation: 'activities' }, { id: 'comps', operation: 'components' }, { id: 'meta', operation: 'cluster_metadata' }]));
    expect(['PROVIDER.RESPONSE_INVALID', 'PROVIDER.UNREACHABLE']).toContain(entry(out, 'acts').error_code);
    expect(entry(out, 'comps')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.RESPONSE_INVALID' });
    expect(entry(out, 'meta').status).toBe('complete');
  });

  it('chooses the statement transport from cluster metadata: a serverless tier is read over SQL', async () => {
    const out = await ok({ ...batch([{ id: 'slow', operation: 'slow_query' }, { id: 'top', operation: 'top_sql' }]), cluster_id: SERVERLESS });
    // No SQL endpoint is configured in this suite, so the SQL transport reports that; Clinic's HTTP API is not used.
    expect(entry(out, 'slow')).toMatchObject({ status: 'failed', error_code: 'PROVIDER.UNREACHABLE', detail_error: expect.stringContaining('no SQL endpoint') });
    expect(fixture.hits('slowqueries')).toHaveLength(0);
    expect(fixture.hits('topsql')).toHaveLength(0);
  });

  it('serves the Provider Executor through EvidencePackage: planned operations map onto the one batch tool', async () => {
    const pkg = clinicPackage(config);
    expect(pkg.name).toBe('clinic');
    expect(pkg.tools.map((t) => t.name)).toEqual(['clinic_evidence_batch']);
    expect(parseClinicTarget(clinicTarget(ORG, DEDICATED))).toEqual({ orgId: ORG, clusterId: DEDICATED });
    const httpRecords: string[] = [];
    const result = await pkg.runBatch(
      {
        ticketKey: 'SUP-1',
        target: clinicTarget(ORG, DEDICATED),
        window: WINDOW,
        queries: [
          { id: 'p99', operation: 'promql_range', expression: 'histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket[5m])))', stepSeconds: 60 },
          { id: 'top', operation: 'top_sql', expression: '{"limit": 3}' },
          { id: 'logs', operation: 'logs', expression: '{"component": "tidb", "detail": "summary"}', window: { from: '2026-11-20T10:30:00Z', to: '2026-11-20T10:45:00Z' } },
          { id: 'cfg', operation: 'configuration', expression: '[{"component": "tikv", "key": "raftstore.capacity"}]' },
          { id: 'meta', operation: 'cluster_metadata', expression: '' },
          { id: 'comps', operation: 'components', expression: '', supplemental: true },
        ],
      },
      { now: NOW, onHttpRecord: (id) => httpRecords.push(id) },
    );
    expect(result.text).toBe(JSON.stringify(result.details));
    if (!result.ok) throw new Error(result.text);
    expect(result.details.target).toBe(`${ORG}/${DEDICATED}`);
    expect(result.details.queries.map((q) => [q.id, q.status])).toEqual([
      ['p99', 'empty'],
      ['top', 'complete'],
      ['logs', 'complete'],
      ['cfg', 'complete'],
      ['meta', 'complete'],
      ['comps', 'complete'],
    ]);
    expect(result.details.queries[5].supplemental).toBe(true);
    expect(fixture.hits('metrics')[0].path).toMatch(/\/metrics\/api\/v1\/query_range$/);
    expect(httpRecords).toEqual(expect.arrayContaining([CLINIC_BOOTSTRAP_RECORD_ID, 'p99', 'top', 'logs', 'cfg', 'comps']));
    expectNoLeak(result.text);

    const badTicket = await pkg.runBatch({ ticketKey: 'SUP 1; DROP', target: clinicTarget(ORG, DEDICATED), window: WINDOW, queries: [{ id: 'm', operation: 'cluster_metadata', expression: '' }] });
    expect(badTicket.ok ? null : badTicket.details).toMatchObject({ error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(/^ticketKey: /) });
    const badTarget = await pkg.runBatch({ ticketKey: null, target: 'https://evil.example/x', window: WINDOW, queries: [{ id: 'm', operation: 'cluster_metadata', expression: '' }] });
    expect(badTarget.ok ? null : badTarget.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
    const badJson = await pkg.runBatch({ ticketKey: null, target: clinicTarget(ORG, DEDICATED), window: WINDOW, queries: [{ id: 't', operation: 'top_sql', expression: 'top 5 please' }] });
    expect(badJson.ok ? null : badJson.details).toMatchObject({ error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(/^queries\.t\.expression: /) });
    const badParam = await pkg.runBatch({ ticketKey: null, target: clinicTarget(ORG, DEDICATED), window: WINDOW, queries: [{ id: 'l', operation: 'logs', expression: '{"component": "mysql", "detail": "summary"}' }] });
    expect(badParam.ok ? null : badParam.details.detail_error).toMatch(/^queries\.0\.component: /);
  });

  it('property: nothing planted in provider answers leaks, whatever the planted text', async () => {
    const cluster = leakyCluster(ORG, 'cl-property', 'dedicated');
    const local = await startClinicFixture({ token: CLINIC_TOKEN, cloudConfigToken: CLOUD_CONFIG_TOKEN, clusters: [cluster] });
    const cfg: ClinicPackageConfig = { clinic: { baseUrl: local.baseUrl, token: CLINIC_TOKEN }, cloudConfig: { baseUrl: local.cloudConfigUrl, token: CLOUD_CONFIG_TOKEN }, retryDelaysMs: [1, 1] };
    const ip = fc.tuple(fc.integer({ min: 11, max: 254 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map((p) => p.join('.'));
    const sqlText = fc.constantFrom('SELECT', 'DELETE FROM', 'INSERT INTO', 'UPDATE').chain((k) => fc.stringMatching(/^[a-z_]{6,12}$/).map((t) => `${k} planted_${t} WHERE id = 1`));
    const secretWord = fc.stringMatching(/^[A-Za-z0-9]{14,20}$/);
    try {
      await fc.assert(
        fc.asyncProperty(ip, sqlText, secretWord, fc.string({ maxLength: 30 }), async (address, sql, word, noise) => {
          const token = `tok${word}`;
          cluster.topsql = [{ sql_digest: word.toLowerCase().padEnd(64, 'a'), cpu_time_ms: 5, exec_count: 1, stmt_type: `${sql} ${noise}`, sql_text: sql, instance: `${address}:4000` }];
          cluster.activities = [{ id: word, type: `${noise} ${address}`, status: sql, component: address, started_at: '2026-11-20T10:00:00Z', operator: word, cost: 5 }];
          cluster.components = [{ component: `${address}`, status: 'up', machine_type: word }];
          cluster.clinicConfig = { 'tidb:log.file.filename': `/var/log/${address}/token=${token}` };
          cluster.metadata = { ...cluster.metadata, status: sql, region: `${address} ${noise}`, sku: word, price_per_hour: 12.5 };
          cluster.logs = [{ labels: { cluster_id: 'cl-property', component: 'tidb' }, entries: [{ at: '2026-11-20T10:10:00Z', line: `[2026/11/20 10:10:00.000 +00:00] [ERROR] [${noise.replace(/[\]\s]/g, '')}x.go:1] ["${sql} from ${address}"] [conn=${word}] [sql="${sql}"] [cost_time=1s]` }] }];
          const result = await executeTool(
            clinicBatchTool(cfg),
            {
              org_id: ORG,
              cluster_id: 'cl-property',
              window: WINDOW,
              queries: [
                { id: 'meta', operation: 'cluster_metadata' },
                { id: 'top', operation: 'top_sql' },
                { id: 'acts', operation: 'activities' },
                { id: 'comps', operation: 'components' },
                { id: 'cfg', operation: 'configuration', selectors: [{ component: 'tidb', key: 'log.file.filename' }] },
                { id: 'events', operation: 'logs', component: 'tidb', detail: 'events' },
              ],
            },
            { now: NOW },
          );
          expect(result.ok).toBe(true);
          for (const leak of [address, sql, token, word, word.toLowerCase().padEnd(64, 'a'), CLINIC_TOKEN, local.baseUrl]) expect(result.text).not.toContain(leak);
          expect(result.text).not.toMatch(/"(sku|price\w*|cost|machine_type|operator|sql_text|instance)"/);
        }),
        { numRuns: 100 },
      );
    } finally {
      await local.stop();
    }
  }, 60_000);
});
