import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { Access, SESSION_COOKIE, cookieOf, headerOf, isLoopback, roleOf, type EdgeRequest, type EdgeResponse, type Principal, type SessionStore, type TokenStore } from '@aoc/auth';
import type { OidcSignIn, PendingSignIn } from './oidc-sign-in';
import { z } from 'zod';
import { renderSignInPage } from './sign-in.page';

export const EDGE_SERVICES = Symbol('EDGE_SERVICES');

export interface EdgeServices {
  tokens: TokenStore;
  sessions: SessionStore;
  absoluteSessionMs: number;
  /** Dashboard sign-in through the OIDC issuer, when configured with a client. */
  oidc: OidcSignIn | null;
}

const PENDING_COOKIE = 'aoc_oidc';
const PendingCookie = z.object({ state: z.string(), nonce: z.string(), verifier: z.string(), redirectUri: z.string().url() });

const SignInBody = z.object({ token: z.string().min(1).max(200) });

interface RedirectingResponse extends EdgeResponse {
  redirect(status: number, url: string): unknown;
}

/** Dashboard sign-in with an API token, session introspection and sign-out, on every HTTP role. */
@Controller('auth')
export class SignInController {
  constructor(@Inject(EDGE_SERVICES) private readonly edge: EdgeServices) {}

  @Get('sign-in')
  @Access('public')
  page(@Query('signedOut') signedOut: string | undefined, @Res() response: EdgeResponse): void {
    sendHtml(response, 200, renderSignInPage({ signedOut: signedOut === '1', oidc: this.edge.oidc !== null }));
  }

  /** Sends the browser to the issuer (authorization code + PKCE); state, nonce and verifier wait in a short cookie. */
  @Get('oidc/start')
  @Access('public')
  async oidcStart(@Req() request: EdgeRequest, @Res() response: RedirectingResponse): Promise<void> {
    if (!this.edge.oidc) return sendHtml(response, 404, renderSignInPage({ error: 'OIDC sign-in is not configured here.' }));
    const { url, pending } = await this.edge.oidc.start(`${originOf(request)}/auth/oidc/callback`);
    const value = Buffer.from(JSON.stringify(pending)).toString('base64url');
    response.setHeader('set-cookie', `${PENDING_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=600${secureFlag(request)}`);
    response.redirect(303, url);
  }

  /** The issuer's redirect back: the code is redeemed, the ID token's role and tenant open a session. */
  @Get('oidc/callback')
  @Access('public')
  async oidcCallback(@Req() request: EdgeRequest, @Res() response: RedirectingResponse): Promise<void> {
    const pending = this.pending(request);
    const clear = `${PENDING_COOKIE}=; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0${secureFlag(request)}`;
    if (!this.edge.oidc || !pending) return sendHtml(response, 400, renderSignInPage({ error: 'The sign-in expired or did not start here; try again.' }));
    let claims: { subject: string; role: unknown; tenant: unknown };
    try {
      claims = await this.edge.oidc.finish(new URL(`${pending.redirectUri}${(request.originalUrl ?? request.url).replace(/^[^?]*/, '')}`), pending);
    } catch {
      response.setHeader('set-cookie', clear);
      return sendHtml(response, 401, renderSignInPage({ error: 'The identity provider\'s answer was not accepted.' }));
    }
    const role = roleOf(claims.role);
    if (!role || typeof claims.tenant !== 'string' || claims.tenant.length === 0) {
      response.setHeader('set-cookie', clear);
      return sendHtml(response, 403, renderSignInPage({ error: 'Your account has no Auto-oncall role or tenant; ask your administrator.' }));
    }
    const session = await this.edge.sessions.open({ subject: claims.subject, role, tenant: claims.tenant, credential: 'session' });
    response.setHeader('set-cookie', [clear, sessionCookie(session.cookieValue, request, Math.floor(this.edge.absoluteSessionMs / 1000))]);
    response.redirect(303, '/');
  }

  private pending(request: EdgeRequest): PendingSignIn | null {
    const raw = cookieOf(request, PENDING_COOKIE, 1024);
    if (!raw) return null;
    try {
      const decoded: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
      const parsed = PendingCookie.safeParse(decoded);
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  @Post('sign-in')
  @Access('public')
  async signIn(@Body() body: unknown, @Req() request: EdgeRequest, @Res() response: RedirectingResponse): Promise<void> {
    const parsed = SignInBody.safeParse(body);
    const principal = parsed.success ? await this.edge.tokens.verify(parsed.data.token.trim()) : 'malformed';
    if (typeof principal === 'string') {
      sendHtml(response, 401, renderSignInPage({ error: 'That token was not accepted.' }));
      return;
    }
    const session = await this.edge.sessions.open({ ...principal, credential: 'session' } satisfies Principal);
    response.setHeader('set-cookie', sessionCookie(session.cookieValue, request, Math.floor(this.edge.absoluteSessionMs / 1000)));
    response.redirect(303, '/');
  }

  /** Who the caller is and, for a session, the CSRF token its state-changing requests must send. */
  @Get('session')
  @Access('viewer')
  session(@Req() request: EdgeRequest): { subject: string; role: string; tenant: string; credential: string; csrfToken: string | null } {
    const p = request.principal as Principal;
    return { subject: p.subject, role: p.role, tenant: p.tenant, credential: p.credential, csrfToken: request.csrfToken ?? null };
  }

  @Post('sign-out')
  @Access('viewer')
  @HttpCode(303)
  async signOut(@Req() request: EdgeRequest, @Res() response: RedirectingResponse): Promise<void> {
    const cookie = cookieOf(request, SESSION_COOKIE);
    if (cookie) await this.edge.sessions.end(cookie);
    response.setHeader('set-cookie', sessionCookie('', request, 0));
    response.redirect(303, '/auth/sign-in?signedOut=1');
  }
}

/** HttpOnly, SameSite=Lax, and Secure unless both ends are loopback (plain http on a laptop). */
export function sessionCookie(value: string, request: EdgeRequest, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secureFlag(request)}`;
}

/** Plain http is assumed only when both ends are loopback (a laptop); anything else is behind TLS. */
function overLoopback(request: EdgeRequest): boolean {
  return isLoopback(request.socket.localAddress) && isLoopback(request.socket.remoteAddress);
}

function secureFlag(request: EdgeRequest): string {
  return overLoopback(request) ? '' : '; Secure';
}

/** This server as the browser addressed it (the Host header was checked at the edge). */
function originOf(request: EdgeRequest): string {
  return `${overLoopback(request) ? 'http' : 'https'}://${headerOf(request, 'host') ?? '127.0.0.1'}`;
}

function sendHtml(response: EdgeResponse, status: number, body: string): void {
  response.setHeader('cache-control', 'no-store');
  response.status(status).type('text/html; charset=utf-8').send(body);
}
