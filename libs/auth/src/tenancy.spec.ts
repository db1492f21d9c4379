import type { Principal } from './principal';
import { SINGLE_TENANT } from '@aoc/contracts';
import { createTenancy, seesEveryTenant, seesTenant, seesTicket, tenancyFromEnv, tenantScope, ticketProject } from './tenancy';

describe('tenancy', () => {
  const config = { acme: { ticketProjects: ['ACME', 'ACMEDB'], targets: ['acme-*', '1372813089209061633/*'] }, globex: { ticketProjects: ['GLX'], targets: ['glx-prod-1'] } };

  it('takes a ticket\'s project from its key, through a caller key\'s namespace', () => {
    expect(ticketProject('ACME-12')).toBe('ACME');
    expect(ticketProject('adhoc-1a2b3c4d-GLX-7')).toBe('GLX');
    expect(ticketProject('not a key')).toBeNull();
  });

  it('without tenants everything belongs to one tenant', () => {
    const t = createTenancy(undefined);
    expect(t.multiTenant).toBe(false);
    expect(t.tenantOfTicket('ANY-1')).toBe(SINGLE_TENANT);
    expect(t.targetAllowed(SINGLE_TENANT, 'whatever')).toBe(true);
  });

  it('binds projects to tenants and tenants to their targets, and claims nothing it was not told', () => {
    const t = createTenancy(config);
    expect(t.tenantOfTicket('ACMEDB-3')).toBe('acme');
    expect(t.tenantOfTicket('GLX-1')).toBe('globex');
    expect(t.tenantOfTicket('OPS-1')).toBeNull();
    expect(t.targetAllowed('acme', 'acme-prod-2')).toBe(true);
    expect(t.targetAllowed('acme', '1372813089209061633/10290127484201')).toBe(true);
    expect(t.targetAllowed('acme', 'glx-prod-1')).toBe(false);
    expect(t.targetAllowed('globex', 'glx-prod-10')).toBe(false);
    // A pattern's dots and slashes are literal: `acme-*` never matches `acmeXprod`.
    expect(t.targetAllowed('acme', 'acmeXprod')).toBe(false);
  });

  it('reads AOC_TENANTS, refusing bad JSON, a project claimed twice and the reserved tenant, naming the field', () => {
    expect(tenancyFromEnv({ AOC_TENANTS: JSON.stringify(config) }).tenantOfTicket('GLX-9')).toBe('globex');
    expect(tenancyFromEnv({}).multiTenant).toBe(false);
    expect(() => tenancyFromEnv({ AOC_TENANTS: '{nope' })).toThrow(/must be JSON/);
    expect(() => tenancyFromEnv({ AOC_TENANTS: JSON.stringify({ a: { ticketProjects: ['X'], targets: ['a'] }, b: { ticketProjects: ['X'], targets: ['b'] } }) })).toThrow(/project X is already claimed by tenant a/);
    expect(() => tenancyFromEnv({ AOC_TENANTS: JSON.stringify({ '*': { ticketProjects: ['X'], targets: ['a'] } }) })).toThrow(/lower-case letters/);
  });

  it('scopes what a principal sees: its tenant\'s tickets and records; everything only across every tenant', () => {
    const t = createTenancy(config);
    const who = (tenant: string): Principal => ({ subject: 'token:x', role: 'viewer', tenant, credential: 'api_token' });
    expect(seesTicket(t, who('acme'), 'ACME-1')).toBe(true);
    expect(seesTicket(t, who('acme'), 'adhoc-1a2b3c4d-ACMEDB-3')).toBe(true);
    expect(seesTicket(t, who('acme'), 'GLX-1')).toBe(false);
    expect(seesTicket(t, who('acme'), 'ACMEX-1')).toBe(false);
    expect(seesTicket(t, who('*'), 'GLX-1')).toBe(true);
    expect(seesEveryTenant(t, who('acme'))).toBe(false);
    expect(seesEveryTenant(createTenancy(undefined), who(SINGLE_TENANT))).toBe(true);
    expect(seesEveryTenant(createTenancy(undefined), who('acme'))).toBe(false);
    expect(tenantScope(t, who('*'))).toBeNull();
    expect(tenantScope(t, who('acme'))).toBe('acme');
    // A single-tenant deployment's records are `default`'s: a token of another tenant sees none.
    expect(tenantScope(createTenancy(undefined), who('acme'))).toBe('acme');
    expect(tenantScope(createTenancy(undefined), who(SINGLE_TENANT))).toBeNull();
    expect(seesTenant(t, who('acme'), 'acme')).toBe(true);
    expect(seesTenant(t, who('acme'), 'globex')).toBe(false);
    // A record no configured tenant owns is seen only across every tenant.
    expect(seesTenant(t, who('acme'), null)).toBe(false);
    expect(seesTenant(t, who('*'), null)).toBe(true);
  });
});
