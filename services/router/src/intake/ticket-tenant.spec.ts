import { createTenancy, type Principal } from '@aoc/auth';
import { checkTicketTenant } from './ticket-tenant';

const tenancy = createTenancy({ acme: { ticketProjects: ['SUP'], targets: ['acme-*'] }, globex: { ticketProjects: ['GLX'], targets: ['glx-*'] } });

describe('the tenant of a requested ticket', () => {
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
