import { ALL_TENANTS, roleAllows, type AccessRole } from './roles';

/** How the caller proved who it is. */
export type CredentialKind = 'api_token' | 'oidc_bearer' | 'session' | 'anonymous';

/** The authenticated caller of one request. Never holds a secret. */
export interface Principal {
  /** Stable subject: `token:<id>`, `oidc:<issuer>#<sub>`, `anonymous`. */
  readonly subject: string;
  readonly role: AccessRole;
  /** The tenant whose data this principal may see, or `*` for all. */
  readonly tenant: string;
  readonly credential: CredentialKind;
}

export function principalMay(principal: Principal, needed: AccessRole): boolean {
  return roleAllows(principal.role, needed);
}

/** Whether the principal may read or act on data of `tenant`. */
export function principalSeesTenant(principal: Principal, tenant: string): boolean {
  return principal.tenant === ALL_TENANTS || principal.tenant === tenant;
}
