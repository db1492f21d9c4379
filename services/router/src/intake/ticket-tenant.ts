import { principalSeesTenant, type Principal, type Tenancy } from '@aoc/auth';
import { ForbiddenException, UnprocessableEntityException } from '@nestjs/common';
import { bodyField } from './request-body';

/** The ticket key a request is about: the key to read from the source, or the key of the ticket in the body. */
function requestedKey(body: unknown): string | null {
  const key = bodyField(body, 'ticketKey');
  const ticket = bodyField(body, 'ticket');
  const inBody = typeof ticket === 'object' && ticket !== null ? (ticket as Record<string, unknown>)['key'] : undefined;
  return typeof key === 'string' ? key : typeof inBody === 'string' ? inBody : null;
}

/**
 * A ticket belongs to the tenant its project is filed under; a caller sees only its own tenant's
 * tickets (an admin token may span all), and a project no tenant claims is refused, never guessed.
 */
export function checkTicketTenant(tenancy: Tenancy, principal: Principal, body: unknown): void {
  const key = requestedKey(body);
  if (key === null) return; // the schema refuses the request and names the field
  const tenant = tenancy.tenantOfTicket(key);
  if (tenant === null) throw new UnprocessableEntityException({ code: 'INTAKE.TENANT_UNKNOWN', message: `no tenant is configured for the project of ticket ${key.slice(0, 64)}; add it to AOC_TENANTS` });
  if (!principalSeesTenant(principal, tenant)) throw new ForbiddenException({ code: 'AUTH.TENANT_FORBIDDEN', message: 'the ticket belongs to a tenant this credential may not act for' });
}
