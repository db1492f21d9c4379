import { seesTicket, type Principal, type Tenancy } from '@aoc/auth';
import { NotFoundException } from '@nestjs/common';

/**
 * What a reporter caller may see: the runs, answers and timelines of its own tenant's tickets (an
 * admin token spanning every tenant sees all). Another tenant's ticket or run is "not found", never
 * "forbidden", so its existence does not leak. Figures over every ticket (daily and weekly reports,
 * provider health) are not split by tenant yet: `requireEveryTenant` (`@aoc/auth`) guards them.
 */
export function requireTicket(tenancy: Tenancy, principal: Principal, ticketKey: string, notFound: () => never): void {
  if (!seesTicket(tenancy, principal, ticketKey)) notFound();
}

export const ticketNotFound = (ticketKey: string): never => {
  throw new NotFoundException({ code: 'REPORTER.TICKET_NOT_FOUND', message: `no answers recorded for ticket ${ticketKey.slice(0, 64)}` });
};
