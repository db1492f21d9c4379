import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal';
import type { AccessRole } from './roles';

/** What a route needs: a role, or nothing (`public`, for health probes and the sign-in page). */
export type RouteAccess = AccessRole | 'public';

export const ROUTE_ACCESS_KEY = 'aoc:route-access';

/**
 * Declares who may call a route (on the handler or its controller). A route without a
 * declaration is refused to everyone: access is denied by default, never granted by omission.
 */
export const Access = (access: RouteAccess): MethodDecorator & ClassDecorator => SetMetadata(ROUTE_ACCESS_KEY, access);

export const ROUTE_RATE_KEY = 'aoc:route-rate';

/** Requests per minute one principal may send to this route (default: the edge's setting). */
export const RateLimit = (perMinute: number): MethodDecorator & ClassDecorator => SetMetadata(ROUTE_RATE_KEY, perMinute);

/** The request's principal, set by the auth guard. */
export interface AuthenticatedRequest {
  principal?: Principal;
}

/** Injects the authenticated principal into a handler parameter. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal | undefined => {
  return ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
});
