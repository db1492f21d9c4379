import { PGlite } from '@electric-sql/pglite';
import type { Principal } from './principal';
import { SINGLE_TENANT, createTenancy, seesEveryTenant, seesTicket, tenancyFromEnv, ticketKeyScope, ticketProject } from './tenancy';

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
    expect(() => tenancyFromEnv({ AOC_TENANTS: JSON.stringify({ '*': { ticketProjects: ['X'], targets: ['a'] } }) })).toThrow(/reserved/);
  });

  it('scopes what a principal sees: its tenant\'s tickets, in code and in SQL; everything only across every tenant', async () => {
    const t = createTenancy(config);
    const who = (tenant: string): Principal => ({ subject: 'token:x', role: 'viewer', tenant, credential: 'api_token' });
    expect(seesTicket(t, who('acme'), 'ACME-1')).toBe(true);
    expect(seesTicket(t, who('acme'), 'GLX-1')).toBe(false);
    expect(seesTicket(t, who('*'), 'GLX-1')).toBe(true);
    expect(seesEveryTenant(t, who('acme'))).toBe(false);
    expect(seesEveryTenant(createTenancy(undefined), who(SINGLE_TENANT))).toBe(true);
    expect(seesEveryTenant(createTenancy(undefined), who('acme'))).toBe(false);
    expect(ticketKeyScope(t, who('*'))).toBeNull();
    const keys = ['ACME-1', 'acmedb-22', 'adhoc-1a2b3c4d-ACME-3', 'GLX-1', 'ACMEX-1', 'XACME-1', 'ACME-1x'];
    const db = new PGlite();
    try {
      const seen = async (scope: string | null) => (scope === null ? keys : (await db.query<{ k: string }>(`SELECT k FROM unnest($1::text[]) AS k WHERE k ~* $2`, [keys, scope])).rows.map((r) => r.k));
      expect(await seen(ticketKeyScope(t, who('acme')))).toEqual(['ACME-1', 'acmedb-22', 'adhoc-1a2b3c4d-ACME-3']);
      expect(await seen(ticketKeyScope(t, who('globex')))).toEqual(['GLX-1']);
      expect(await seen(ticketKeyScope(t, who('initech')))).toEqual([]);
      expect(await seen(ticketKeyScope(createTenancy(undefined), who('acme')))).toEqual([]);
      for (const k of keys) expect(seesTicket(t, who('acme'), k)).toBe((await seen(ticketKeyScope(t, who('acme')))).includes(k));
    } finally {
      await db.close();
    }
  });
});
