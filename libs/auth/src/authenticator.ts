import { looksLikeApiToken } from './api-token';
import { OidcBearerVerifier, type BearerRejection } from './oidc-bearer';
import type { Principal } from './principal';
import type { AccessRole } from './roles';
import type { SessionRejection, SessionStore } from './session-store';
import type { TokenRejection, TokenStore } from './token-store';

export const SESSION_COOKIE = 'aoc_session';

/** What the edge knows of one request before it is authenticated. */
export interface RequestCredentials {
  authorization?: string;
  sessionCookie?: string;
  /** The peer's address as the socket saw it (proxies are not trusted for this). */
  remoteAddress?: string;
  /** Whether the server itself listens on loopback only. */
  serverOnLoopback: boolean;
}

export type AuthRejection = TokenRejection | BearerRejection | SessionRejection | 'bad_scheme' | 'oidc_not_configured' | 'no_credential';

export type AuthOutcome =
  | { ok: true; principal: Principal; csrfToken: string | null }
  | { ok: false; reason: AuthRejection; presented: boolean };

export interface AuthenticatorDeps {
  tokens: TokenStore;
  sessions: SessionStore;
  oidc: OidcBearerVerifier | null;
  anonymousRole: AccessRole | null;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.has(address);
}

/**
 * Turns a request's credential into a principal. A credential that is presented and wrong is
 * refused outright (never downgraded to anonymous); anonymous access exists only when
 * configured, and then only between loopback peers.
 */
export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  async authenticate(request: RequestCredentials): Promise<AuthOutcome> {
    if (request.authorization !== undefined) return this.bearer(request.authorization);
    if (request.sessionCookie) {
      const resumed = await this.deps.sessions.resume(request.sessionCookie);
      return typeof resumed === 'string' ? { ok: false, reason: resumed, presented: true } : { ok: true, principal: resumed.principal, csrfToken: resumed.csrfToken };
    }
    if (this.deps.anonymousRole && request.serverOnLoopback && isLoopback(request.remoteAddress)) {
      return { ok: true, principal: { subject: 'anonymous', role: this.deps.anonymousRole, tenant: '*', credential: 'anonymous' }, csrfToken: null };
    }
    return { ok: false, reason: 'no_credential', presented: false };
  }

  private async bearer(header: string): Promise<AuthOutcome> {
    const m = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(header.trim());
    if (!m) return { ok: false, reason: 'bad_scheme', presented: true };
    const token = m[1];
    const result = looksLikeApiToken(token)
      ? await this.deps.tokens.verify(token)
      : this.deps.oidc
        ? await this.deps.oidc.verify(token)
        : ('oidc_not_configured' as const);
    return typeof result === 'string' ? { ok: false, reason: result, presented: true } : { ok: true, principal: result, csrfToken: null };
  }
}
