import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { Access, SESSION_COOKIE, cookieOf, isLoopback, type EdgeRequest, type EdgeResponse, type Principal, type SessionStore, type TokenStore } from '@aoc/auth';
import { z } from 'zod';
import { renderSignInPage } from './sign-in.page';

export const EDGE_SERVICES = Symbol('EDGE_SERVICES');

export interface EdgeServices {
  tokens: TokenStore;
  sessions: SessionStore;
  absoluteSessionMs: number;
}

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
    sendHtml(response, 200, renderSignInPage({ signedOut: signedOut === '1' }));
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
  const secure = !(isLoopback(request.socket.localAddress) && isLoopback(request.socket.remoteAddress));
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function sendHtml(response: EdgeResponse, status: number, body: string): void {
  response.setHeader('cache-control', 'no-store');
  response.status(status).type('text/html; charset=utf-8').send(body);
}
