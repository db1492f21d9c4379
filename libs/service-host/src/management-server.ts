import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
  if (path !== '/readyz') return problem(response, 404, 'HTTP.NOT_FOUND', 'the management port serves /healthz and /readyz', path);
  const report = await health.ready();
  send(response, report.ready ? 200 : 503, 'application/json', { status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
}

/**
 * The probes of a role without an HTTP API, on a port of their own: /healthz and /readyz and
 * nothing else, so it carries no credential check and no customer data.
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
    url: `http://${host}:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
