import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from './principal';
import { ROLES, isAccessRole, roleRank, type AccessRole } from './roles';

/** Signature algorithms an OIDC issuer may use. Never `none`, never a shared-secret (HS*) one. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

export interface OidcBearerOptions {
  issuer: string;
  audience: string;
  /** The issuer's key set; discovered from `<issuer>/.well-known/openid-configuration` when absent. */
  jwksUri?: string;
  algorithms: readonly string[];
  /** Claim holding the role (a string, or a list whose highest role counts). */
  roleClaim: string;
  /** Claim holding the tenant; a token without one is refused (fail closed). */
  tenantClaim: string;
  clockToleranceSeconds: number;
}

export type BearerRejection = 'malformed' | 'bad_algorithm' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'wrong_issuer' | 'wrong_audience' | 'no_role' | 'no_tenant' | 'jwks_unavailable';

/** Verifies OIDC access tokens (JWTs) against the issuer's JWKS. */
export class OidcBearerVerifier {
  private keys: ReturnType<typeof createRemoteJWKSet> | null = null;

  constructor(private readonly options: OidcBearerOptions, private readonly fetchJson: (url: string) => Promise<unknown> = defaultFetchJson) {
    for (const alg of options.algorithms) {
      if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) throw new Error(`OIDC algorithm "${alg}" is not allowed: only asymmetric signatures (${ASYMMETRIC_ALGORITHMS.join(', ')})`);
    }
  }

  async verify(token: string): Promise<Principal | BearerRejection> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return 'malformed';
    }
    // Checked before any key is fetched: `none` and HS* never reach the verifier.
    if (!alg || !this.options.algorithms.includes(alg)) return 'bad_algorithm';
    let payload: JWTPayload;
    try {
      const keys = await this.keySet();
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: [...this.options.algorithms],
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      return rejectionOf(error);
    }
    const role = roleOf(payload[this.options.roleClaim]);
    if (!role) return 'no_role';
    const tenant = payload[this.options.tenantClaim];
    if (typeof tenant !== 'string' || tenant.length === 0) return 'no_tenant';
    return { subject: `oidc:${this.options.issuer}#${String(payload.sub)}`, role, tenant, credential: 'oidc_bearer' };
  }

  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.keys) return this.keys;
    const uri = this.options.jwksUri ?? (await this.discoverJwksUri());
    this.keys = createRemoteJWKSet(new URL(uri), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
    return this.keys;
  }

  private async discoverJwksUri(): Promise<string> {
    const doc = await this.fetchJson(`${this.options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
    const uri = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['jwks_uri'] : undefined;
    if (typeof uri !== 'string') throw new errors.JWKSInvalid('the issuer publishes no jwks_uri');
    return uri;
  }
}

/** The highest known role named by the claim (a role, or a list of them). */
export function roleOf(claim: unknown): AccessRole | null {
  const named = (Array.isArray(claim) ? claim : [claim]).filter(isAccessRole);
  if (named.length === 0) return null;
  return named.reduce((best, r) => (roleRank(r) > roleRank(best) ? r : best), ROLES[0]);
}

function rejectionOf(error: unknown): BearerRejection {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'wrong_issuer';
    if (error.claim === 'aud') return 'wrong_audience';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
    return 'malformed';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'bad_algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) return 'bad_signature';
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return 'jwks_unavailable';
  if (error instanceof TypeError) return 'jwks_unavailable';
  return 'malformed';
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new errors.JWKSInvalid(`discovery answered ${response.status}`);
  const doc: unknown = await response.json();
  return doc;
}
