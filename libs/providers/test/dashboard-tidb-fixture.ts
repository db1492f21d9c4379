import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';

const PAGES = join(__dirname, 'dashboard-pages');

export interface TopSqlFixtureRow {
  digest: string;
  sql_text: string;
  cpu_time_ms: number;
  exec_count_per_sec: number;
  avg_latency_ms: number;
  plan_count: number;
}

export interface StatementFixtureRow {
  digest: string;
  sql_text: string;
  schema_name: string;
  exec_count: number;
  avg_latency_ms: number;
  max_latency_ms: number;
  sum_latency_ms: number;
  avg_mem_bytes: number;
  plan_count: number;
}

export interface SlowQueryFixtureRow {
  digest: string;
  query: string;
  instance: string;
  user: string;
  db: string;
  /** Epoch seconds. */
  timestamp: number;
  query_time_ms: number;
  mem_max_bytes: number;
}

export interface TidbDashboardFixture {
  /** The dashboard's cluster name and its accepted login. */
  clusters: Record<string, { username: string; password: string }>;
  /** TopSQL rows per TiDB instance address (host:status_port). */
  topSql: Record<string, TopSqlFixtureRow[]>;
  statements: StatementFixtureRow[];
  slowQueries: SlowQueryFixtureRow[];
}

export interface DashboardApiCall {
  path: string;
  params: Record<string, string>;
}

export interface RunningTidbDashboard {
  origin: string;
  logins(): number;
  failedLogins(): number;
  apiCalls: DashboardApiCall[];
  /** Invalidates every issued token, as a dashboard restart or expiry would. */
  expireSessions(): void;
  /** Delay of every data API answer, to make concurrent executions overlap. */
  setApiDelay(ms: number): void;
  stop(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

const VIEWS: Record<string, string> = { '/dashboard/topsql': 'topsql.html', '/dashboard/statement': 'statement.html', '/dashboard/slow_query': 'slow_query.html', '/dashboard/login': 'login.html' };
const STATIC: Record<string, string> = { '/dashboard/static/app.js': 'app.js', '/dashboard/static/login.js': 'login.js' };

/**
 * A TiDB-Dashboard-like site on 127.0.0.1: static sign-in and view pages whose scripts call a
 * token-protected JSON API, the way the real dashboard keeps its token in localStorage.
 */
export async function startTidbDashboard(data: TidbDashboardFixture): Promise<RunningTidbDashboard> {
  const tokens = new Map<string, Set<string>>(); // token -> clusters its login is accepted for
  const apiCalls: DashboardApiCall[] = [];
  let logins = 0;
  let failedLogins = 0;
  let apiDelayMs = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const page = VIEWS[url.pathname];
    if (req.method === 'GET' && page) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(readFileSync(join(PAGES, page)));
      return;
    }
    const asset = STATIC[url.pathname];
    if (req.method === 'GET' && asset) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(readFileSync(join(PAGES, asset)));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/dashboard/api/user/login') {
      const body = JSON.parse((await readBody(req)) || '{}') as { username?: string; password?: string };
      const clusters = new Set(Object.entries(data.clusters).filter(([, login]) => login.username === body.username && login.password === body.password).map(([name]) => name));
      if (clusters.size === 0) {
        failedLogins++;
        return json(res, 401, { code: 'error.api.user.signin.invalid_code', message: 'signin failed: invalid username or password' });
      }
      logins++;
      const token = randomBytes(24).toString('hex');
      tokens.set(token, clusters);
      return json(res, 200, { token, expire: new Date(Date.now() + 3600_000).toISOString() });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/dashboard/api/')) {
      const params = Object.fromEntries(url.searchParams.entries());
      const path = url.pathname.slice('/dashboard/api/'.length);
      apiCalls.push({ path, params });
      const auth = req.headers['authorization'] ?? '';
      const clusters = tokens.get(auth.replace(/^Bearer /, ''));
      if (!clusters) return json(res, 401, { message: 'session expired, sign in again' });
      if (apiDelayMs > 0) await new Promise((r) => setTimeout(r, apiDelayMs));
      if (!clusters.has(params['cluster'] ?? '')) return json(res, 404, { message: `cluster ${params['cluster'] ?? ''} is not served by this dashboard` });
      const from = Number(params['from']);
      const to = Number(params['to']);
      const limit = Math.min(Number(params['limit'] ?? '100') || 100, 1000);
      if (!(from < to)) return json(res, 400, { message: 'invalid time range' });
      if (path === 'topsql/summary') {
        const rows = data.topSql[params['instance'] ?? ''];
        if (!rows) return json(res, 400, { message: `instance ${params['instance'] ?? ''} is not a TiDB instance of this cluster` });
        const sorted = [...rows].sort((a, b) => b.cpu_time_ms - a.cpu_time_ms);
        return json(res, 200, { data: sorted.slice(0, limit), total: rows.length });
      }
      if (path === 'statements/list') {
        const key: Record<string, keyof StatementFixtureRow> = { total_latency: 'sum_latency_ms', exec_count: 'exec_count', avg_latency: 'avg_latency_ms', avg_mem: 'avg_mem_bytes' };
        const column = key[params['order'] ?? 'total_latency'] ?? 'sum_latency_ms';
        const sorted = [...data.statements].sort((a, b) => Number(b[column]) - Number(a[column]));
        return json(res, 200, { data: sorted.slice(0, limit), total: data.statements.length });
      }
      if (path === 'slow_query/list') {
        const inWindow = data.slowQueries.filter((r) => r.timestamp >= from && r.timestamp <= to);
        const column = params['order'] === 'mem_max' ? 'mem_max_bytes' : 'query_time_ms';
        const sorted = [...inWindow].sort((a, b) => b[column] - a[column]);
        return json(res, 200, { data: sorted.slice(0, limit), total: inWindow.length });
      }
      return json(res, 404, { message: 'no such API' });
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { message: error instanceof Error ? error.message : String(error) });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    logins: () => logins,
    failedLogins: () => failedLogins,
    apiCalls,
    expireSessions: () => tokens.clear(),
    setApiDelay: (ms) => {
      apiDelayMs = ms;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
