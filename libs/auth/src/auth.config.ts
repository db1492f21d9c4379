import { secret } from '@aoc/config';
import { z } from 'zod';
import { ASYMMETRIC_ALGORITHMS, type OidcBearerOptions } from './oidc-bearer';
import { ROLES, type AccessRole } from './roles';

const csv = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/** Environment keys of the HTTP edge; every role that serves HTTP parses them at boot. */
export const authConfigShape = {
  /** Anonymous callers get this role, and only on loopback (the server and the caller). Unset: none. */
  AOC_AUTH_ANONYMOUS_ROLE: z.enum(ROLES).optional(),
  AOC_OIDC_ISSUER: z.string().url().optional(),
  AOC_OIDC_AUDIENCE: z.string().min(1).optional(),
  AOC_OIDC_JWKS_URI: z.string().url().optional(),
  AOC_OIDC_ALGORITHMS: csv.pipe(z.array(z.enum(ASYMMETRIC_ALGORITHMS)).min(1)).default(['RS256', 'PS256', 'ES256', 'EdDSA']),
  AOC_OIDC_ROLE_CLAIM: z.string().min(1).default('aoc_role'),
  AOC_OIDC_TENANT_CLAIM: z.string().min(1).default('aoc_tenant'),
  /** The dashboard's OIDC client (authorization code + PKCE); without it the dashboard signs in with tokens only. */
  AOC_OIDC_CLIENT_ID: z.string().min(1).optional(),
  AOC_OIDC_CLIENT_SECRET: secret(z.string().min(1).optional()),
  /** The callback URL registered at the issuer, as browsers reach this server (behind a proxy); else from the request. */
  AOC_OIDC_REDIRECT_URI: z.string().url().optional(),
  /** Extra Host header values to accept besides the address the server is bound to. */
  AOC_HTTP_ALLOWED_HOSTS: csv.default([]),
  /** Origins whose pages may call the API (CORS and the Origin check); none by default. */
  AOC_HTTP_ALLOWED_ORIGINS: csv.pipe(z.array(z.string().url())).default([]),
  /** Requests per minute one principal may send to one route (routes may set their own). */
  AOC_HTTP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(600),
  AOC_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  AOC_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(7 * 24).default(12),
  /** Days a role keeps its HTTP audit rows; older rows are deleted as new ones are written. */
  AOC_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
};

export const authConfigSchema = z.object(authConfigShape).superRefine((c, ctx) => {
  if (c.AOC_OIDC_ISSUER && !c.AOC_OIDC_AUDIENCE) ctx.addIssue({ code: 'custom', path: ['AOC_OIDC_AUDIENCE'], message: 'required when AOC_OIDC_ISSUER is set' });
  if (c.AOC_OIDC_CLIENT_ID && !c.AOC_OIDC_ISSUER) ctx.addIssue({ code: 'custom', path: ['AOC_OIDC_ISSUER'], message: 'required when AOC_OIDC_CLIENT_ID is set' });
  if (c.AOC_OIDC_AUDIENCE && !c.AOC_OIDC_ISSUER) ctx.addIssue({ code: 'custom', path: ['AOC_OIDC_ISSUER'], message: 'required when AOC_OIDC_AUDIENCE is set' });
});

export type AuthConfig = z.infer<typeof authConfigSchema>;

/** The HTTP edge's settings, as the hosting code hands them to a role. */
export interface AuthSettings {
  anonymousRole: AccessRole | null;
  oidc: OidcBearerOptions | null;
  /** The dashboard's sign-in client at the same issuer, when configured. */
  oidcClient: { clientId: string; clientSecret?: string; redirectUri?: string; allowInsecureIssuer: boolean } | null;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  session: { idleMs: number; absoluteMs: number };
  rateLimitPerMinute: number;
  auditRetentionMs: number;
}

export function authSettingsFrom(config: AuthConfig): AuthSettings {
  return {
    anonymousRole: config.AOC_AUTH_ANONYMOUS_ROLE ?? null,
    oidc:
      config.AOC_OIDC_ISSUER && config.AOC_OIDC_AUDIENCE
        ? {
            issuer: config.AOC_OIDC_ISSUER,
            audience: config.AOC_OIDC_AUDIENCE,
            jwksUri: config.AOC_OIDC_JWKS_URI,
            algorithms: config.AOC_OIDC_ALGORITHMS,
            roleClaim: config.AOC_OIDC_ROLE_CLAIM,
            tenantClaim: config.AOC_OIDC_TENANT_CLAIM,
            clockToleranceSeconds: 30,
          }
        : null,
    oidcClient:
      config.AOC_OIDC_ISSUER && config.AOC_OIDC_CLIENT_ID
        ? { clientId: config.AOC_OIDC_CLIENT_ID, clientSecret: config.AOC_OIDC_CLIENT_SECRET, redirectUri: config.AOC_OIDC_REDIRECT_URI, allowInsecureIssuer: isLoopbackHttp(config.AOC_OIDC_ISSUER) }
        : null,
    allowedHosts: config.AOC_HTTP_ALLOWED_HOSTS,
    allowedOrigins: config.AOC_HTTP_ALLOWED_ORIGINS,
    session: { idleMs: config.AOC_SESSION_IDLE_MINUTES * 60_000, absoluteMs: config.AOC_SESSION_MAX_HOURS * 3_600_000 },
    rateLimitPerMinute: config.AOC_HTTP_RATE_LIMIT_PER_MINUTE,
    auditRetentionMs: config.AOC_AUDIT_RETENTION_DAYS * 86_400_000,
  };
}

/** Plain http is accepted from an issuer on loopback only (development, tests). */
function isLoopbackHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/** Deny by default: no anonymous access, no OIDC, only the bound address as Host. */
export const DEFAULT_AUTH_SETTINGS: AuthSettings = authSettingsFrom(authConfigSchema.parse({}));
