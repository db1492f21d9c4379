import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import { createTenancy } from '@aoc/auth';
import { analysisRequest } from '../../test/factories';
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
});
