/** Injection token of the router's deadline settings. */
export const ROUTER_DEADLINES = Symbol('ROUTER_DEADLINES');

/** Injection token of the timeline collector's settings. */
export const ROUTER_COLLECTOR = Symbol('ROUTER_COLLECTOR');
/** Which tenant owns a ticket and which targets it may be diagnosed on (`@aoc/auth` tenancy). */
export const ROUTER_TENANCY = Symbol('ROUTER_TENANCY');
