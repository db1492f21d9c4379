import * as client from 'openid-client';

/** What the dashboard's OIDC sign-in needs: the issuer, this client, and how claims map to access. */
export interface OidcSignInOptions {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone). */
  clientSecret?: string;
  /** The callback as the browser reaches it (`https://aoc.example/auth/oidc/callback`); derived from the request when absent. */
  redirectUri?: string;
  roleClaim: string;
  tenantClaim: string;
  /** Plain http issuers are refused unless this is set (tests and loopback development only). */
  allowInsecureIssuer?: boolean;
}

/** What is kept between the redirect to the issuer and the callback (in an HttpOnly cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
}

/** Authorization code flow with PKCE (S256), state and nonce, through `openid-client`. */
export class OidcSignIn {
  private config: Promise<client.Configuration> | null = null;

  constructor(private readonly options: OidcSignInOptions) {}

  async start(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.configuration();
    const pending: PendingSignIn = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), redirectUri: this.options.redirectUri ?? redirectUri };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: pending.redirectUri,
      scope: 'openid profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** Redeems the code of the callback URL; the ID token's claims, or throws when anything does not match. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<{ subject: string; role: unknown; tenant: unknown }> {
    const config = await this.configuration();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
    const claims = tokens.claims();
    if (!claims) throw new Error('the issuer returned no ID token');
    return { subject: `oidc:${this.options.issuer}#${claims.sub}`, role: claims[this.options.roleClaim], tenant: claims[this.options.tenantClaim] };
  }

  private configuration(): Promise<client.Configuration> {
    if (!this.config) {
      const { issuer, clientId, clientSecret, allowInsecureIssuer } = this.options;
      this.config = client.discovery(new URL(issuer), clientId, clientSecret, clientSecret ? undefined : client.None(), allowInsecureIssuer ? { execute: [client.allowInsecureRequests] } : undefined);
      // A failed discovery is tried again at the next sign-in, not remembered.
      this.config.catch(() => (this.config = null));
    }
    return this.config;
  }
}
