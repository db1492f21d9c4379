import { CALLER_TICKET_KEY_PREFIX } from '@aoc/contracts';
import { z } from 'zod';
import { ALL_TENANTS } from './roles';

/**
 * Which tenant owns a ticket and which targets a tenant may be diagnosed on. A ticket's tenant
 * comes from where the ticket source filed it (its project, the part of the key before the last
 * `-NUMBER`), never from a request field; a tenant's targets are name patterns over the providers'
 * inventories. Without `AOC_TENANTS` the deployment has one tenant, `default`, that owns every
 * ticket and target. With it, a ticket of a project no tenant claims belongs to no one and is
 * refused (fail closed), and a tenant's tickets only resolve to its own targets.
 */
export const SINGLE_TENANT = 'default';

const TenantId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, "-" and "_"').refine((t) => t !== ALL_TENANTS, 'reserved');
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
}

/** The project of a ticket key (`OPS-123` → OPS), through a caller key's namespace (`adhoc-<hash>-OPS-123`). */
export function ticketProject(ticketKey: string): string | null {
  const inner = ticketKey.startsWith(CALLER_TICKET_KEY_PREFIX) ? ticketKey.slice(CALLER_TICKET_KEY_PREFIX.length).replace(/^[0-9a-f]{8}-/, '') : ticketKey;
  const m = /^([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(inner);
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
    return { multiTenant: false, tenantOfTicket: () => SINGLE_TENANT, targetAllowed: () => true };
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
