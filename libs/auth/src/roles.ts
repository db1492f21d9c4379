/**
 * Who may do what. Roles are ordered: each one may do everything the roles before it may.
 * viewer: runs, reports, provider health; support: analyze in read mode, publish-read;
 * operator: write mode, timeline collection, optimizer actions; admin: tokens, audit, every tenant.
 */
export const ROLES = ['viewer', 'support', 'operator', 'admin'] as const;
export type AccessRole = (typeof ROLES)[number];

/** Tenant of a principal that may see every tenant (admins and the local operator token). */
export const ALL_TENANTS = '*';

export function roleRank(role: AccessRole): number {
  return ROLES.indexOf(role);
}

export function roleAllows(held: AccessRole, needed: AccessRole): boolean {
  return roleRank(held) >= roleRank(needed);
}

export function isAccessRole(value: unknown): value is AccessRole {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
