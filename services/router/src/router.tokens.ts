/** Injection token of the router's deadline settings. */
export const ROUTER_DEADLINES = Symbol('ROUTER_DEADLINES');

/** Injection token of the timeline collector's settings. */
export const ROUTER_COLLECTOR = Symbol('ROUTER_COLLECTOR');
