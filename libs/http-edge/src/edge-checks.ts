import { HttpStatus } from '@nestjs/common';
import { STATE_CHANGING_METHODS, edgeError, headerOf, type EdgeRequest } from '@aoc/auth';

export interface EdgeCheckOptions {
  /** Host header values accepted (lower-case `host[:port]`). */
  allowedHosts: ReadonlySet<string>;
  /** Origins (scheme://host[:port]) whose pages may call state-changing routes. */
  allowedOrigins: ReadonlySet<string>;
  /** Paths whose POST may be an HTML form (the sign-in page); every other body is JSON. */
  formPaths: ReadonlySet<string>;
}

/**
 * Checks that run before any route: the Host header names this server (DNS rebinding), a
 * state-changing request comes from this server's own pages or an allowed origin (CSRF), and
 * its body is JSON. Throws the refusal; returns nothing when the request may go on.
 */
export function checkEdge(request: EdgeRequest, options: EdgeCheckOptions): void {
  const host = headerOf(request, 'host')?.toLowerCase();
  if (!host || !options.allowedHosts.has(host)) {
    throw edgeError(HttpStatus.MISDIRECTED, 'HTTP.HOST_NOT_ALLOWED', 'the Host header does not name this server; add it to AOC_HTTP_ALLOWED_HOSTS if it should');
  }
  const method = request.method.toUpperCase();
  if (!STATE_CHANGING_METHODS.has(method)) return;
  const origin = headerOf(request, 'origin');
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}` && !options.allowedOrigins.has(origin)) {
    throw edgeError(HttpStatus.FORBIDDEN, 'HTTP.ORIGIN_NOT_ALLOWED', 'a page of another origin may not send this request');
  }
  if (origin === undefined && headerOf(request, 'sec-fetch-site') === 'cross-site') {
    throw edgeError(HttpStatus.FORBIDDEN, 'HTTP.ORIGIN_NOT_ALLOWED', 'a page of another site may not send this request');
  }
  const path = (request.originalUrl ?? request.url).split('?')[0];
  const type = (headerOf(request, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  const hasBody = Number(headerOf(request, 'content-length') ?? 0) > 0 || headerOf(request, 'transfer-encoding') !== undefined;
  if (!hasBody) return;
  if (type === 'application/json') return;
  if (type === 'application/x-www-form-urlencoded' && options.formPaths.has(path)) return;
  throw edgeError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'HTTP.UNSUPPORTED_MEDIA_TYPE', 'this route accepts application/json only');
}

/** The Host values of a server bound to `address:port`, plus configured extras. */
export function hostsFor(address: string, port: number, extra: readonly string[]): Set<string> {
  const hosts = new Set(extra.map((h) => h.toLowerCase()));
  const loopback = address === '127.0.0.1' || address === '::1' || address === 'localhost';
  const names = loopback ? ['127.0.0.1', 'localhost', '[::1]'] : [address];
  for (const n of names) hosts.add(`${n}:${port}`);
  return hosts;
}
