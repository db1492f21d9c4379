/** Injection token of the router's deadline settings. */
export const ROUTER_DEADLINES = Symbol('ROUTER_DEADLINES');
