import { HttpException, HttpStatus, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { timingSafeEqual } from 'node:crypto';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ROUTE_ACCESS_KEY, ROUTE_RATE_KEY, type RouteAccess } from './access';
import { SESSION_COOKIE, type Authenticator } from './authenticator';
import { STATE_CHANGING_METHODS, cookieOf, headerOf, type EdgeRequest } from './edge-request';
import { FailureLimiter } from './failure-limiter';
import { principalMay } from './principal';

export const CSRF_HEADER = 'x-csrf-token';

/** An HTTP refusal with the edge's error code; rendered as problem+json by the error filter. */
export function edgeError(status: number, code: string, message: string, headers: Record<string, string> = {}): HttpException {
  return new HttpException({ code, message, headers }, status);
}

export interface AuthGuardOptions {
  /** Whether the server listens on loopback only (anonymous access needs it). */
  serverOnLoopback: () => boolean;
  /** Requests per minute per principal and route, counted in the throttler's storage; none: unlimited. */
  rate?: { storage: ThrottlerStorage; perMinute: number } | null;
  failures?: FailureLimiter;
}

/**
 * Deny by default: every route must declare who may call it (`@Access`). Then the caller is
 * authenticated (token, OIDC bearer, session cookie, or configured loopback anonymity), its role
 * checked, and a session's state-changing request must carry the session's CSRF token.
 */
export class AuthGuard implements CanActivate {
  private readonly failures: FailureLimiter;
  private readonly rate: AuthGuardOptions['rate'];
  private readonly serverOnLoopback: () => boolean;

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    options: AuthGuardOptions,
  ) {
    this.serverOnLoopback = options.serverOnLoopback;
    this.rate = options.rate ?? null;
    this.failures = options.failures ?? new FailureLimiter();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS_KEY, [context.getHandler(), context.getClass()]);
    if (access === undefined) throw edgeError(HttpStatus.FORBIDDEN, 'AUTH.ROUTE_UNDECLARED', 'this route declares no access rule, so nobody may call it');
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<EdgeRequest>();
    const peer = request.socket.remoteAddress ?? 'unknown';
    if (this.failures.blocked(peer)) throw edgeError(HttpStatus.TOO_MANY_REQUESTS, 'AUTH.TOO_MANY_FAILURES', 'too many failed sign-in attempts from this address; try again later', { 'Retry-After': '60' });
    const outcome = await this.authenticator.authenticate({
      authorization: headerOf(request, 'authorization'),
      sessionCookie: cookieOf(request, SESSION_COOKIE),
      remoteAddress: request.socket.remoteAddress,
      serverOnLoopback: this.serverOnLoopback(),
    });
    if (!outcome.ok) {
      if (outcome.presented) this.failures.record(peer);
      const message = outcome.presented ? `the credential was refused (${outcome.reason})` : 'a credential is required: an API token or OIDC access token as "Authorization: Bearer …", or a dashboard session';
      throw edgeError(HttpStatus.UNAUTHORIZED, 'AUTH.UNAUTHENTICATED', message, { 'WWW-Authenticate': 'Bearer realm="auto-oncall"' });
    }
    // Known from here on, so a refusal below is attributed to the caller in the audit trail.
    request.principal = outcome.principal;
    if (!principalMay(outcome.principal, access)) {
      throw edgeError(HttpStatus.FORBIDDEN, 'AUTH.FORBIDDEN', `this route needs the ${access} role; the caller has ${outcome.principal.role}`);
    }
    await this.throttle(context, outcome.principal.subject);
    if (outcome.csrfToken !== null && STATE_CHANGING_METHODS.has(request.method.toUpperCase()) && !csrfMatches(request, outcome.csrfToken)) {
      throw edgeError(HttpStatus.FORBIDDEN, 'AUTH.CSRF', `a dashboard session must send its CSRF token in the ${CSRF_HEADER} header or a _csrf form field`);
    }
    request.csrfToken = outcome.csrfToken;
    return true;
  }

  /** Counts the principal's requests to this route per minute (the throttler's storage); 429 past the limit. */
  private async throttle(context: ExecutionContext, subject: string): Promise<void> {
    if (!this.rate) return;
    const limit = this.reflector.getAllAndOverride<number | undefined>(ROUTE_RATE_KEY, [context.getHandler(), context.getClass()]) ?? this.rate.perMinute;
    const key = `${subject}|${context.getClass().name}.${context.getHandler().name}`;
    const record = await this.rate.storage.increment(key, 60_000, limit, 60_000, 'edge');
    if (record.isBlocked) {
      throw edgeError(HttpStatus.TOO_MANY_REQUESTS, 'HTTP.RATE_LIMITED', `at most ${limit} requests a minute to this route per caller`, { 'Retry-After': String(Math.max(1, Math.ceil(record.timeToBlockExpire))) });
    }
  }
}

/** The token comes in the header (fetch) or, from a dashboard form, as its `_csrf` field. */
function csrfMatches(request: EdgeRequest, expected: string): boolean {
  const field = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>)['_csrf'] : undefined;
  const sent = headerOf(request, CSRF_HEADER) ?? (typeof field === 'string' ? field : undefined);
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
