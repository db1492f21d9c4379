import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { lokiStreamsBody, unifiedLogLine, type FixtureLogStream } from './loki-fixture';

/**
 * A scripted stand-in for the Clinic HTTP API (the token's orgs and each org's cluster list,
 * metadata, TopSQL, slow queries, activities, components, configuration, Prometheus-compatible
 * metrics, Loki-style logs) and, on a second
 * port, DevOps CloudConfig. Default answers come from per-cluster data; `script` queues exact
 * replies (5xx, 4xx, slow, truncated) for the next hits of a route.
 */

export type ClinicRoute = 'orgs' | 'clusters' | 'metadata' | 'topsql' | 'slowqueries' | 'activities' | 'components' | 'configuration' | 'metrics' | 'logs' | 'cloud_config';

export interface ScriptedReply {
  status: number;
  body?: unknown;
  delayMs?: number;
  /** Announce a longer body, send part of it and drop the connection. */
  truncate?: boolean;
}

export interface RecordedRequest {
  route: ClinicRoute | 'unknown';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface FixtureCluster {
  orgId: string;
  clusterId: string;
  /** The metadata body; extra fields (cost, machine type, addresses) let tests prove they never leak. */
  metadata: Record<string, unknown>;
  topsql?: unknown[];
  slowQueries?: unknown[];
  activities?: unknown[];
  components?: unknown[];
  /** `component:key` → value as Clinic's configuration endpoint knows it. */
  clinicConfig?: Record<string, unknown>;
  /** CloudConfig items for the cluster. */
  cloudConfig?: { component: string; key: string; value: unknown; scope: 'cluster' | 'version_default'; version?: string }[];
  logs?: FixtureLogStream[];
}

export interface ClinicFixtureOptions {
  token: string;
  cloudConfigToken: string;
  clusters: FixtureCluster[];
  /** Real Prometheus the metrics route proxies to; without it metrics answer an empty vector. */
  metricsUpstream?: string;
}

export interface RunningClinicFixture {
  baseUrl: string;
  cloudConfigUrl: string;
  requests: RecordedRequest[];
  script(route: ClinicRoute, ...replies: ScriptedReply[]): void;
  hits(route: ClinicRoute): RecordedRequest[];
  reset(): void;
  stop(): Promise<void>;
}

const CLUSTER_PATH = /^\/api\/v1\/orgs\/([^/]+)\/clusters\/([^/]+)(\/.*)?$/;
const ORGS_PATH = /^\/api\/v1\/orgs\/?$/;
const ORG_CLUSTERS_PATH = /^\/api\/v1\/orgs\/([^/]+)\/clusters\/?$/;

function routeOf(suffix: string | undefined): ClinicRoute | 'unknown' {
  if (!suffix) return 'metadata';
  if (suffix.startsWith('/metrics/')) return 'metrics';
  if (suffix.startsWith('/logs/')) return 'logs';
  const name = suffix.slice(1);
  return (['topsql', 'slowqueries', 'activities', 'components', 'configuration'] as const).find((r) => r === name) ?? 'unknown';
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function reply(res: ServerResponse, r: ScriptedReply): Promise<void> {
  if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
  if (res.destroyed) return;
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? { error: `scripted ${r.status}` });
  if (r.truncate) {
    res.writeHead(r.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text) + 1000) });
    res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    setTimeout(() => res.socket?.destroy(), 10);
    return;
  }
  send(res, r.status, text);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
    });
  });
}

function proxy(upstream: string, path: string, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(path, upstream);
  const out = httpRequest(target, { method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded' } }, (up) => {
    res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? 'application/json' });
    up.pipe(res);
  });
  out.on('error', () => send(res, 502, { error: 'metrics upstream unavailable' }));
  req.pipe(out);
}

export async function startClinicFixture(options: ClinicFixtureOptions): Promise<RunningClinicFixture> {
  const requests: RecordedRequest[] = [];
  const queues = new Map<ClinicRoute, ScriptedReply[]>();
  const clusters = new Map(options.clusters.map((c) => [c.clusterId, c]));

  const nextScripted = (route: ClinicRoute): ScriptedReply | undefined => queues.get(route)?.shift();

  /** Inventory routes: the orgs of the token's clusters, and an org's clusters (their metadata bodies, leaks included) up to `limit`. */
  const answerOrgLevel = (route: 'orgs' | 'clusters', url: URL, req: IncomingMessage, res: ServerResponse) => {
    requests.push({ route, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers });
    const scripted = nextScripted(route);
    if (scripted) return reply(res, scripted);
    if (req.headers['authorization'] !== `Bearer ${options.token}`) return send(res, 401, { error: 'invalid token' });
    if (route === 'orgs') return send(res, 200, { items: [...new Set(options.clusters.map((c) => c.orgId))].map((org_id) => ({ org_id, name: `Org ${org_id}` })) });
    const orgId = decodeURIComponent(ORG_CLUSTERS_PATH.exec(url.pathname)?.[1] ?? '');
    if (req.headers['x-clinic-org-id'] !== orgId) return send(res, 403, { error: 'org header must match the path' });
    const all = options.clusters.filter((c) => c.orgId === orgId).map((c) => ({ cluster_id: c.clusterId, ...c.metadata }));
    const limit = Number(url.searchParams.get('limit') ?? '100');
    return send(res, 200, { items: all.slice(0, limit), truncated: all.length > limit });
  };

  const clinic = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const orgLevel = ORGS_PATH.test(url.pathname) ? 'orgs' : ORG_CLUSTERS_PATH.test(url.pathname) ? 'clusters' : null;
    if (orgLevel) return void answerOrgLevel(orgLevel, url, req, res);
    const match = CLUSTER_PATH.exec(url.pathname);
    const route = match ? routeOf(match[3]) : 'unknown';
    requests.push({ route, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers });
    if (route === 'unknown' || !match) return send(res, 404, { error: 'no such route' });
    const scripted = nextScripted(route);
    if (scripted) return void reply(res, scripted);
    if (req.headers['authorization'] !== `Bearer ${options.token}`) return send(res, 401, { error: 'invalid token' });
    const [, orgId, clusterId] = match;
    if (req.headers['x-clinic-org-id'] !== orgId || req.headers['x-clinic-cluster-id'] !== clusterId) return send(res, 403, { error: 'org and cluster headers must match the path' });
    const cluster = clusters.get(clusterId);
    // A cluster of another org is answered as not found, as Clinic does for foreign ids.
    if (!cluster || cluster.orgId !== orgId) return send(res, 404, { error: `cluster ${clusterId} not found` });
    switch (route) {
      case 'metadata':
        return send(res, 200, cluster.metadata);
      case 'topsql':
        return send(res, 200, { items: cluster.topsql ?? [] });
      case 'slowqueries':
        return send(res, 200, { items: cluster.slowQueries ?? [], truncated: false });
      case 'activities':
        return send(res, 200, { items: cluster.activities ?? [] });
      case 'components':
        return send(res, 200, { items: cluster.components ?? [] });
      case 'configuration': {
        const wanted = url.searchParams.getAll('selector');
        const items = wanted.flatMap((s) => {
          const [component, ...rest] = s.split(':');
          const key = rest.join(':');
          return cluster.clinicConfig && s in cluster.clinicConfig ? [{ component, key, value: cluster.clinicConfig[s] }] : [];
        });
        return send(res, 200, { items });
      }
      case 'metrics': {
        const path = (match[3] ?? '').replace(/^\/metrics/, '');
        if (options.metricsUpstream) return proxy(options.metricsUpstream, path, req, res);
        return send(res, 200, { status: 'success', data: { resultType: 'vector', result: [] } });
      }
      case 'logs': {
        const query = url.searchParams.get('query') ?? '';
        if (!query.includes(`cluster_id="${clusterId}"`)) return send(res, 400, { status: 'error', error: 'selector must name the cluster' });
        const component = /component="([^"]+)"/.exec(query)?.[1];
        const streams = (cluster.logs ?? []).filter((s) => !component || s.labels['component'] === component);
        const window = { startNs: BigInt(url.searchParams.get('start') ?? '0'), endNs: BigInt(url.searchParams.get('end') ?? '0') };
        return send(res, 200, lokiStreamsBody(streams, window, Number(url.searchParams.get('limit') ?? '1000')));
      }
    }
  });

  const cloudConfig = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push({ route: 'cloud_config', method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers });
    const scripted = nextScripted('cloud_config');
    if (scripted) return void reply(res, scripted);
    if (req.headers['authorization'] !== `Bearer ${options.cloudConfigToken}`) return send(res, 401, { error: 'invalid token' });
    const m = /^\/api\/v1\/clusters\/([^/]+)\/config$/.exec(url.pathname);
    const cluster = m ? clusters.get(m[1]) : undefined;
    if (!cluster) return send(res, 404, { error: 'unknown cluster' });
    const wanted = new Set(url.searchParams.getAll('selector'));
    return send(res, 200, { items: (cluster.cloudConfig ?? []).filter((i) => wanted.has(`${i.component}:${i.key}`)) });
  });

  const [baseUrl, cloudConfigUrl] = await Promise.all([listen(clinic), listen(cloudConfig)]);
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    baseUrl,
    cloudConfigUrl,
    requests,
    script: (route, ...replies) => queues.set(route, [...(queues.get(route) ?? []), ...replies]),
    hits: (route) => requests.filter((r) => r.route === route),
    reset: () => {
      requests.length = 0;
      queues.clear();
    },
    stop: async () => {
      await Promise.all([close(clinic), close(cloudConfig)]);
    },
  };
}

/** Full digests as TiDB prints them (64 hex); they must never appear in a result. */
export const FIXTURE_DIGESTS = {
  hot: 'e5796985ccafe2f71126ed6c0ac939ffa015a8c0744a24b7aee6d587103fd2f7',
  warm: '4f2d1a0c9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817060504',
  plan: '9a8b7c6d5e4f30211f2e3d4c5b6a79880f1e2d3c4b5a69788796a5b4c3d2e1f0',
} as const;

/** Values planted in provider answers that no Clinic result may contain. */
export const FIXTURE_LEAKS = [
  'secret_orders',
  'alice@example.com',
  '10.0.3.17',
  '10.0.1.5',
  'm5.2xlarge',
  'tidb.internal-prod.svc',
  'acme-prod-db',
  '4242.17',
  'ENTERPRISE-SKU-9',
  'conn=777001',
  '777001',
  'DROP TABLE',
  FIXTURE_DIGESTS.hot,
  FIXTURE_DIGESTS.hot.slice(0, 16),
  FIXTURE_DIGESTS.warm,
  FIXTURE_DIGESTS.plan,
] as const;

/**
 * A cluster whose provider answers are full of what must not leak: cost, SKU, machine types,
 * internal addresses, raw SQL, connection ids, full digests, operator identities.
 */
export function leakyCluster(orgId: string, clusterId: string, tier: string, version = 'v7.5.1'): FixtureCluster {
  const at = (m: number) => new Date(Date.UTC(2026, 10, 20, 10, m)).toISOString();
  return {
    orgId,
    clusterId,
    metadata: {
      cluster_id: clusterId,
      org_id: orgId,
      name: 'acme-prod-db',
      tier,
      version,
      status: 'available',
      region: 'us-west-2',
      cloud_provider: 'aws',
      cost_per_hour: 4242.17,
      billing: { plan: 'ENTERPRISE-SKU-9' },
      sku: 'ENTERPRISE-SKU-9',
      machine_type: 'm5.2xlarge',
      internal_endpoint: 'tidb.internal-prod.svc:4000',
      pd_address: '10.0.1.5:2379',
    },
    topsql: [
      { sql_digest: FIXTURE_DIGESTS.hot, plan_digest: FIXTURE_DIGESTS.plan, cpu_time_ms: 91234.5, exec_count: 1200, avg_latency_ms: 75.5, stmt_type: 'Select', sql_text: 'SELECT * FROM secret_orders WHERE email = "alice@example.com"', instance: '10.0.3.17:10080' },
      { sql_digest: FIXTURE_DIGESTS.warm, plan_digest: null, cpu_time_ms: 1234, exec_count: 40, avg_latency_ms: 3.1, stmt_type: 'Update', sql_text: 'UPDATE secret_orders SET x = 1', instance: '10.0.3.18:10080' },
    ],
    slowQueries: [0, 5, 10, 38, 39, 40].map((m, i) => ({
      digest: i < 4 ? FIXTURE_DIGESTS.hot : FIXTURE_DIGESTS.warm,
      timestamp: at(m),
      query_time_s: i < 4 ? 2.5 + i : 1.1,
      mem_max_bytes: 1024 * (i + 1),
      process_keys: 1000 * (i + 1),
      succ: i !== 2,
      is_internal: false,
      stmt_type: i < 4 ? 'Select' : 'Update',
      query: 'SELECT * FROM secret_orders; DROP TABLE x',
      connection_id: 777001,
      instance: '10.0.3.17:4000',
      user: 'alice@example.com',
    })),
    activities: [
      { id: 'act-1', type: 'Upgrade', status: 'Succeeded', component: 'tidb', started_at: at(30), finished_at: at(36), operator: 'alice@example.com', detail: 'rolled 10.0.3.17' },
      { id: 'act-2', type: 'Scale', status: 'Running', component: 'tikv', started_at: at(37), finished_at: null, operator: 'alice@example.com', machine_type: 'm5.2xlarge' },
    ],
    components: [
      { component: 'tidb', status: 'up', address: '10.0.3.17:4000', machine_type: 'm5.2xlarge' },
      { component: 'tidb', status: 'down', address: '10.0.3.18:4000', cost: 4242.17 },
      { component: 'tikv', status: 'up', address: '10.0.4.1:20160' },
      { component: 'tikv', status: 'up', address: '10.0.4.2:20160' },
      { component: 'tikv', status: 'up', address: '10.0.4.3:20160' },
      { component: 'pd', status: 'up', address: '10.0.1.5:2379' },
    ],
    clinicConfig: {
      'tikv:raftstore.capacity': '0',
      'tidb:performance.max-procs': 0,
      'pd:schedule.leader-schedule-limit': 4,
      'tikv:storage.block-cache': { capacity: '8GiB' },
    },
    logs: [
      {
        labels: { cluster_id: clusterId, component: 'tidb', instance: '10.0.3.17:4000' },
        entries: [
          { at: at(1), line: unifiedLogLine(at(1), 'INFO', 'server.go:123', 'Welcome to TiDB.', { version: version }) },
          {
            at: at(38),
            line: unifiedLogLine(at(38), 'WARN', 'adapter.go:456', 'slow query', { cost_time: '2.5s', conn: 777001, sql: 'SELECT * FROM secret_orders WHERE email = "alice@example.com"', digest: FIXTURE_DIGESTS.hot, succ: true, mem_max: 4096, is_internal: false }),
          },
          { at: at(39), line: unifiedLogLine(at(39), 'ERROR', 'conn.go:789', 'connection closed by 10.0.3.17:55555', { conn: 777001, remote: '10.0.3.17:55555' }) },
          { at: at(40), line: unifiedLogLine(at(40), 'ERROR', '/home/alice/go/src/tidb/executor/adapter.go:100', 'run statement failed: DROP TABLE secret_orders', { conn: 777001, txn_start_ts: 450000000000000001, process_time: '120ms', result_rows: 0 }) },
          { at: at(41), line: unifiedLogLine(at(41), 'FATAL', 'panic.go:12', 'panic: runtime error: index out of range', {}) },
        ],
      },
      {
        labels: { cluster_id: clusterId, component: 'tikv' },
        entries: [{ at: at(38), line: unifiedLogLine(at(38), 'INFO', 'raft.rs:1', 'become leader', { region_id: 5, takes: '12ms' }) }],
      },
    ],
    cloudConfig: [
      { component: 'tidb_variable', key: 'tidb_mem_quota_query', value: 1073741824, scope: 'version_default', version },
      { component: 'tidb_variable', key: 'tidb_mem_quota_query', value: 2147483648, scope: 'cluster' },
      { component: 'tidb_variable', key: 'tidb_enable_async_commit', value: true, scope: 'version_default', version: 'v6.5.0' },
      { component: 'pd', key: 'replication.max-replicas', value: 3, scope: 'version_default', version },
    ],
  };
}
