import type { Tenancy } from '@aoc/auth';
import type { ProviderInventory } from './resolve-target';
import type { Routing } from './scenario-router.agent';

/** A tenant's view of the inventories: only the targets it may be diagnosed on (none when the ticket has no tenant). */
export function tenantInventories(inventories: readonly ProviderInventory[], tenancy: Tenancy, ticketKey: string): ProviderInventory[] {
  if (!tenancy.multiTenant) return [...inventories];
  const tenant = tenancy.tenantOfTicket(ticketKey);
  return inventories.map((inv) => ({ ...inv, targets: tenant === null ? [] : inv.targets.filter((t) => tenancy.targetAllowed(tenant, t.target)) }));
}

/**
 * The last word on a routing's target: a target outside the ticket's tenant (named by a pattern
 * when no inventory was visible, or by any other path) is dropped, so the run asks which cluster
 * is meant instead of reading another tenant's evidence. The problem names no other tenant's target.
 */
export function confineToTenant(routing: Routing, tenancy: Tenancy, ticketKey: string): Routing {
  if (!tenancy.multiTenant) return routing;
  const tenant = tenancy.tenantOfTicket(ticketKey);
  const allowed = (t: string) => tenant !== null && tenancy.targetAllowed(tenant, t);
  const candidates = routing.targetCandidates.filter(allowed);
  if (routing.target !== null && allowed(routing.target)) return { ...routing, targetCandidates: candidates };
  if (routing.target === null && tenant !== null) return { ...routing, targetCandidates: candidates };
  const problem = tenant === null ? "the ticket's project belongs to no configured tenant, so no target may be read for it" : 'the ticket names no cluster that this account may be diagnosed on';
  return { ...routing, target: null, provider: 'none', targetProblem: problem, targetCandidates: [], entity: { kind: 'unknown', id: 'unknown' } };
}
