import type { IncomingHttpHeaders } from 'node:http';

/** The parts of an Express request the HTTP edge reads (Express's own types are not installed). */
export interface EdgeRequest {
  method: string;
  originalUrl?: string;
  url: string;
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string; localAddress?: string; localPort?: number };
  principal?: import('./principal').Principal;
  csrfToken?: string | null;
  body?: unknown;
}

export interface EdgeResponse {
  setHeader(name: string, value: string | string[]): unknown;
  status(code: number): EdgeResponse;
  type(type: string): EdgeResponse;
  send(body: string): unknown;
  headersSent?: boolean;
}

export function headerOf(request: EdgeRequest, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads one cookie; malformed pairs are skipped. */
export function cookieOf(request: EdgeRequest, name: string, maxLength = 128): string | undefined {
  const header = headerOf(request, 'cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value.length <= maxLength && /^[A-Za-z0-9_-]+$/.test(value) ? value : undefined;
  }
  return undefined;
}

export const STATE_CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
