import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PROMETHEUS_CONTENT_TYPE, renderMetrics } from '@aoc/telemetry';
import type { RoleHealth } from './role-health';

function send(response: ServerResponse, status: number, type: string, body: unknown): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(JSON.stringify(body));
}

function problem(response: ServerResponse, status: number, code: string, detail: string, instance: string): void {
  send(response, status, 'application/problem+json', { type: `urn:aoc:problem:${code.toLowerCase()}`, title: status === 404 ? 'Not Found' : 'Method Not Allowed', status, detail, code, instance });
}

async function answer(health: RoleHealth, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method !== 'GET' && request.method !== 'HEAD') return problem(response, 405, 'HTTP.METHOD_NOT_ALLOWED', 'the management port answers GET only', path);
  if (path === '/healthz') return send(response, 200, 'application/json', { status: 'ok' });
  if (path === '/metrics') {
    const text = await renderMetrics();
    response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    response.end(request.method === 'HEAD' ? undefined : text);
    return;
  }
  if (path !== '/readyz') return problem(response, 404, 'HTTP.NOT_FOUND', 'the management port serves /healthz, /readyz and /metrics', path);
  const report = await health.ready();
  send(response, report.ready ? 200 : 503, 'application/json', { status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
}

/**
 * The probes of a role without an HTTP API, on a port of their own: /healthz, /readyz and the
 * process's metrics (/metrics, Prometheus text format) and nothing else, so it carries no
 * credential check and no customer data.
 */
export async function startManagementServer(health: RoleHealth, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    answer(health, request, response).catch(() => send(response, 503, 'application/json', { status: 'not_ready' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    // A wildcard bind answers on loopback too: the URL a caller in this process can use.
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
