import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import { createTenancy, type Principal } from '@aoc/auth';
import { analysisRequest } from '../../test/factories';
import { checkTicketTenant } from '../intake/intake.controller';
import type { ProviderInventory } from './resolve-target';
import { registerBuiltinRouter, routeTicket } from './scenario-router.agent';
import { confineToTenant, tenantInventories } from './tenant-targets';

const builtin = () => new AgentRuntime({ config: {}, builtin: registerBuiltinRouter(new BuiltinRegistry()) });
const tenancy = createTenancy({ acme: { ticketProjects: ['SUP'], targets: ['acme-*'] }, globex: { ticketProjects: ['GLX'], targets: ['glx-*'] } });
const inventories: ProviderInventory[] = [{ provider: 'prometheus', targets: [{ target: 'acme-db-1', aliases: [] }, { target: 'glx-db-1', aliases: [] }] }];

/** Routes a ticket the way the select-scenarios handler does: the tenant's inventory, then the tenant's last word. */
async function route(key: string, title: string, inv: readonly ProviderInventory[] = inventories) {
  const request = { ...analysisRequest(title, ''), ticketKey: key, ticket: { ...analysisRequest(title, '').ticket, key } };
  return confineToTenant(await routeTicket(builtin(), request, tenantInventories(inv, tenancy, key)), tenancy, key);
}

describe('tenants and targets', () => {
  it('resolves a ticket to its own tenant\'s cluster', async () => {
    expect(await route('SUP-1', 'p99 latency doubled on cluster acme-db-1')).toMatchObject({ target: 'acme-db-1', provider: 'prometheus', targetProblem: null });
  });

  it('never resolves a ticket to another tenant\'s cluster, and does not name it back', async () => {
    const routing = await route('SUP-1', 'p99 latency doubled on cluster glx-db-1');
    expect(routing).toMatchObject({ target: null, provider: 'none' });
    expect(routing.targetCandidates).toEqual([]);
    expect(JSON.stringify({ problem: routing.targetProblem, candidates: routing.targetCandidates })).not.toContain('glx-db-1 is');
  });

  it('drops a foreign target named by the name patterns when the tenant sees no inventory', async () => {
    const routing = await route('SUP-1', 'p99 latency doubled on cluster tidb-prod-7f3a', []);
    expect(routing).toMatchObject({ target: null, provider: 'none', targetProblem: 'the ticket names no cluster that this account may be diagnosed on' });
  });

  it('fails closed for a project no tenant claims', async () => {
    const routing = await route('OPS-1', 'p99 latency doubled on cluster acme-db-1');
    expect(routing).toMatchObject({ target: null, provider: 'none' });
    expect(routing.targetProblem).toMatch(/belongs to no configured tenant/);
  });

  it('lets a caller act only on its own tenant\'s tickets; an admin spans all; an unclaimed project is refused', () => {
    const acme: Principal = { subject: 'token:a', role: 'support', tenant: 'acme', credential: 'api_token' };
    const admin: Principal = { subject: 'token:b', role: 'admin', tenant: '*', credential: 'api_token' };
    expect(() => checkTicketTenant(tenancy, acme, { ticketKey: 'SUP-4' })).not.toThrow();
    expect(() => checkTicketTenant(tenancy, acme, { ticketKey: 'GLX-4' })).toThrow(expect.objectContaining({ status: 403 }));
    // A forged body claiming another tenant's project is refused before it runs.
    expect(() => checkTicketTenant(tenancy, acme, { ticket: { key: 'GLX-4' } })).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => checkTicketTenant(tenancy, admin, { ticketKey: 'GLX-4' })).not.toThrow();
    expect(() => checkTicketTenant(tenancy, admin, { ticketKey: 'OPS-4' })).toThrow(expect.objectContaining({ status: 422 }));
    expect(() => checkTicketTenant(createTenancy(undefined), acme, { ticketKey: 'GLX-4' })).toThrow(expect.objectContaining({ status: 403 }));
  });
});
