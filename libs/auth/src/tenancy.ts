import { SINGLE_TENANT, TenantId, innerTicketKey } from '@aoc/contracts';
import { BadRequestException, ForbiddenException } from '@nestjs/common';
import { z } from 'zod';
import type { Principal } from './principal';
import { ALL_TENANTS } from './roles';

/**
 * Which tenant owns a ticket and which targets a tenant may be diagnosed on. A ticket's tenant
 * comes from where the ticket source filed it (its project, the part of the key before the last
 * `-NUMBER`), never from a request field; a tenant's targets are name patterns over the providers'
 * inventories. Without `AOC_TENANTS` the deployment has one tenant, `default`, that owns every
 * ticket and target. With it, a ticket of a project no tenant claims belongs to no one and is
 * refused (fail closed), and a tenant's tickets only resolve to its own targets.
 */
const Project = z.string().regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'a ticket project key such as OPS or ACME_DB');
/** `*` matches any run of characters: `acme-*`, `1372813089209061633/*`. */
const TargetPattern = z.string().min(1).max(200).regex(/^[^\s]+$/, 'no spaces');

export const TenantsSchema = z
  .record(TenantId, z.object({ ticketProjects: z.array(Project).min(1).max(100), targets: z.array(TargetPattern).min(1).max(1000) }).strict())
  .superRefine((tenants, ctx) => {
    const owner = new Map<string, string>();
    for (const [tenant, t] of Object.entries(tenants)) {
      for (const p of t.ticketProjects) {
        const other = owner.get(p);
        if (other) ctx.addIssue({ code: 'custom', path: [tenant, 'ticketProjects'], message: `project ${p} is already claimed by tenant ${other}` });
        owner.set(p, tenant);
      }
    }
  });
export type TenantsConfig = z.infer<typeof TenantsSchema>;

export interface Tenancy {
  /** Whether tenants are configured (else everything belongs to `default`). */
  readonly multiTenant: boolean;
  /** The tenant owning a ticket key, or null when none does (multi-tenant only). */
  tenantOfTicket(ticketKey: string): string | null;
  /** Whether a tenant may be diagnosed on a provider target. */
  targetAllowed(tenant: string, target: string): boolean;
  /** The ticket projects a tenant owns (multi-tenant only; empty for an unknown tenant). */
  projectsOf(tenant: string): readonly string[];
}

/** The project of a ticket key (`OPS-123` → OPS), through a caller key's namespace (`adhoc-<hash>-OPS-123`). */
export function ticketProject(ticketKey: string): string | null {
  const m = /^([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(innerTicketKey(ticketKey));
  return m ? m[1].toUpperCase() : null;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

export function createTenancy(config: TenantsConfig | undefined): Tenancy {
  if (!config || Object.keys(config).length === 0) {
    return { multiTenant: false, tenantOfTicket: () => SINGLE_TENANT, targetAllowed: () => true, projectsOf: () => [] };
  }
  const byProject = new Map<string, string>();
  const targets = new Map<string, RegExp[]>();
  for (const [tenant, t] of Object.entries(config)) {
    for (const p of t.ticketProjects) byProject.set(p, tenant);
    targets.set(tenant, t.targets.map(globToRegExp));
  }
  return {
    multiTenant: true,
    tenantOfTicket: (key) => {
      const project = ticketProject(key);
      return project === null ? null : (byProject.get(project) ?? null);
    },
    targetAllowed: (tenant, target) => (targets.get(tenant) ?? []).some((re) => re.test(target)),
    projectsOf: (tenant) => (Object.hasOwn(config, tenant) ? config[tenant].ticketProjects : []),
  };
}

/** `AOC_TENANTS`: JSON `{ "<tenant>": { "ticketProjects": [...], "targets": [...] } }`; a bad value names the field. */
export const tenancyConfigShape = {
  AOC_TENANTS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return undefined;
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: { "<tenant>": { "ticketProjects": ["OPS"], "targets": ["ops-*"] } }' });
        return z.NEVER;
      }
    })
    .pipe(TenantsSchema.optional()),
};

export function tenancyFromEnv(env: Record<string, string | undefined> = process.env): Tenancy {
  return createTenancy(z.object(tenancyConfigShape).parse({ AOC_TENANTS: env['AOC_TENANTS'] }).AOC_TENANTS);
}

/** Whether the principal sees every tenant's data: an admin token spanning `*`, or the one tenant of a single-tenant deployment. */
export function seesEveryTenant(tenancy: Tenancy, principal: Principal): boolean {
  return principal.tenant === ALL_TENANTS || (!tenancy.multiTenant && principal.tenant === SINGLE_TENANT);
}

/** Whether the principal may see a ticket (and its runs, answers and evaluations). */
export function seesTicket(tenancy: Tenancy, principal: Principal, ticketKey: string): boolean {
  return principal.tenant === ALL_TENANTS || tenancy.tenantOfTicket(ticketKey) === principal.tenant;
}

/** The tenant a principal's reads are confined to, or null when it sees every tenant's records. */
export function tenantScope(tenancy: Tenancy, principal: Principal): string | null {
  return seesEveryTenant(tenancy, principal) ? null : principal.tenant;
}

/** Whether the principal may see a record of `tenant` (null: a ticket no configured tenant owns, seen only by those who see every tenant). */
export function seesTenant(tenancy: Tenancy, principal: Principal, tenant: string | null): boolean {
  const scope = tenantScope(tenancy, principal);
  return scope === null || scope === tenant;
}

/** Nest injection token of the process's `Tenancy` (each role registers it from `AOC_TENANTS` at boot). */
export const TENANCY = Symbol('TENANCY');

/** An action over every tenant's tickets (a timeline collection pass) needs a principal that sees every tenant: 403 otherwise. */
export function requireEveryTenant(tenancy: Tenancy, principal: Principal): void {
  if (!seesEveryTenant(tenancy, principal)) {
    throw new ForbiddenException({ code: 'AUTH.TENANT_FORBIDDEN', message: 'this action spans every tenant; it needs a credential of the deployment\'s own tenant (or an admin spanning "*")' });
  }
}

/**
 * The tenant a report covers (null: every tenant). A principal confined to a tenant gets its own
 * tenant's figures and may not name another; one who sees every tenant may name one (`?tenant=`)
 * or leave it out for all of them.
 */
export function reportTenant(tenancy: Tenancy, principal: Principal, requested: unknown): string | null {
  const scope = tenantScope(tenancy, principal);
  if (requested === undefined || requested === '') return scope;
  const parsed = TenantId.safeParse(requested);
  if (!parsed.success) throw new BadRequestException({ code: 'AUTH.INVALID_TENANT', field: 'tenant', message: `tenant ${parsed.error.issues[0]?.message ?? 'is invalid'}` });
  if (scope !== null && parsed.data !== scope) throw new ForbiddenException({ code: 'AUTH.TENANT_FORBIDDEN', message: 'this credential sees its own tenant\'s figures only' });
  return parsed.data;
}
