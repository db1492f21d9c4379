import { createServer, type IncomingMessage, type Server } from 'node:http';

/** What a datasource answers: a real upstream Prometheus URL, or a scripted handler. */
export type UpstreamAnswer = { status: number; body: string };
export type Upstream = string | ((form: URLSearchParams) => UpstreamAnswer | Promise<UpstreamAnswer>);

export interface ProxyDatasource {
  /** The exact Authorization header Grafana accepts for this datasource. */
  authorization: string;
  upstream: Upstream;
}

export interface ProxiedRequest {
  uid: string;
  path: string;
  authorized: boolean;
  form: URLSearchParams;
}

export interface RunningGrafanaProxy {
  origin: string;
  requests: ProxiedRequest[];
  /** The next `count` authorised requests get this answer instead of the upstream's. */
  failNext(count: number, answer: UpstreamAnswer): void;
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

const PROXY_PATH = /^\/api\/datasources\/proxy\/uid\/([A-Za-z0-9_-]+)(\/.*)$/;

/**
 * A Grafana-like datasource proxy on 127.0.0.1: `/api/datasources/proxy/uid/<uid>/<path>` with
 * Grafana's auth check and its JSON error shapes, forwarding to a Prometheus (or a script).
 */
export async function startGrafanaProxy(datasources: Record<string, ProxyDatasource>): Promise<RunningGrafanaProxy> {
  const requests: ProxiedRequest[] = [];
  const faults: UpstreamAnswer[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(req);
      const match = PROXY_PATH.exec(url.pathname);
      const send = (status: number, text: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      if (!match) return send(404, '{"message":"Not found"}');
      const [, uid, path] = match;
      const form = new URLSearchParams(req.method === 'POST' ? body : url.search);
      const ds = datasources[uid];
      const authorized = ds !== undefined && req.headers['authorization'] === ds.authorization;
      requests.push({ uid, path, authorized, form });
      if (!ds) return send(404, '{"message":"Data source not found"}');
      if (!authorized) return send(401, '{"message":"Unauthorized","traceID":""}');
      const fault = faults.shift();
      if (fault) return send(fault.status, fault.body);
      if (typeof ds.upstream === 'function') {
        const answer = await ds.upstream(form);
        return send(answer.status, answer.body);
      }
      const upstream = await fetch(`${ds.upstream}${path}`, { method: req.method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: req.method === 'POST' ? body : undefined });
      return send(upstream.status, await upstream.text());
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502).end(JSON.stringify({ message: `proxy error: ${error instanceof Error ? error.message : String(error)}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext: (count, answer) => {
      for (let i = 0; i < count; i++) faults.push(answer);
    },
    stop: () => new Promise((r) => server.close(() => r())),
  };
}

/** A Prometheus `query_range` success body for scripted upstreams. */
export function matrixBody(series: { metric: Record<string, string>; values: [number, string][] }[]): string {
  return JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: series } });
}
