import { type DynamicModule, type INestApplication } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NestExpressApplication, NestExpressBodyParserOptions } from '@nestjs/platform-express';
import { AuthGuard, Authenticator, OidcBearerVerifier, SessionStore, TokenStore, isLoopback, type AuthSettings, type EdgeRequest, type EdgeResponse } from '@aoc/auth';
import { errorMessageOf } from '@aoc/errors';
import { ThrottlerStorageService } from '@nestjs/throttler';
import helmet from 'helmet';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { AuditController, EDGE_AUDIT } from './audit.controller';
import { AuditLog, auditEventOf } from './audit';
import { checkEdge, hostsFor } from './edge-checks';
import { ProblemFilter, sendProblem, type ProblemLogger } from './problem.filter';
import { OidcSignIn } from './oidc-sign-in';
import { EDGE_SERVICES, SignInController, type EdgeServices } from './sign-in.controller';

/** The JSON body a route takes unless its role declares more (the small fixed-shape requests). */
export const DEFAULT_JSON_LIMIT_BYTES = 16 * 1024;

/** Per-route body limits, keyed `METHOD /path` (the route's path without its query). */
export type BodyLimits = Readonly<Record<string, number>>;

function bodyTooLarge(limit: number): Error & { status: number; type: string } {
  return Object.assign(new Error(`request body exceeds ${limit} bytes`), { status: 413, type: 'entity.too.large' });
}

/** The limit of the route a request is for: its declared one, else the default. */
export function bodyLimitFor(limits: BodyLimits, defaultLimit: number, request: Pick<EdgeRequest, 'method' | 'url'>): number {
  return limits[`${request.method.toUpperCase()} ${request.url.split('?')[0]}`] ?? defaultLimit;
}

export interface EdgeDeps {
  settings: AuthSettings;
  /** A data source whose entities include the credential store's (`AUTH_STORE.entities`). */
  dataSource: DataSource;
  logger: ProblemLogger;
  /** The JSON body limit of routes without their own (default DEFAULT_JSON_LIMIT_BYTES). */
  jsonLimitBytes?: number;
  /** Routes that take larger (or smaller) bodies than the default, derived by the role from its contracts. */
  bodyLimits?: BodyLimits;
  /** The role's schema, holding its `http_audit` table: every request is recorded there (omit: no audit). */
  auditSchema?: string;
}

class EdgeRootModule {}

/** The role's module plus the sign-in routes every HTTP surface serves. */
export function edgeModule(roleModule: DynamicModule, deps: EdgeDeps): DynamicModule {
  const services: EdgeServices = {
    tokens: new TokenStore(deps.dataSource),
    sessions: new SessionStore(deps.dataSource, deps.settings.session),
    absoluteSessionMs: deps.settings.session.absoluteMs,
    oidc: oidcSignInOf(deps.settings),
  };
  const audit = deps.auditSchema ? new AuditLog(deps.dataSource, deps.auditSchema, deps.settings.auditRetentionMs) : null;
  return {
    module: EdgeRootModule,
    imports: [roleModule],
    controllers: audit ? [SignInController, AuditController] : [SignInController],
    // A provider, so Nest stops its sweep timer when the app closes.
    providers: [{ provide: EDGE_SERVICES, useValue: services }, ThrottlerStorageService, ...(audit ? [{ provide: EDGE_AUDIT, useValue: audit }] : [])],
  };
}

/**
 * Installs the HTTP edge on an app created with `bodyParser: false`, before it listens:
 * security headers, Host/Origin/content-type checks, JSON parsing with a limit, deny-by-default
 * authentication, and one problem+json error format.
 */
export function installHttpEdge(app: INestApplication, deps: EdgeDeps): void {
  const express = app as NestExpressApplication;
  const { settings } = deps;
  const allowedOrigins = new Set(settings.allowedOrigins);
  express.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], imgSrc: ['data:'], formAction: ["'self'"], baseUri: ["'none'"], frameAncestors: ["'none'"] },
      },
      crossOriginResourcePolicy: { policy: 'same-origin' },
      // Not no-referrer: Chromium then sends "Origin: null" on same-origin form posts.
      referrerPolicy: { policy: 'same-origin' },
      strictTransportSecurity: false,
    }),
  );
  // The stores and the audit log edgeModule registered, shared with the routes.
  const services = express.get<EdgeServices>(EDGE_SERVICES);
  if (deps.auditSchema) {
    const audit = express.get<AuditLog>(EDGE_AUDIT);
    // Recorded when the response is finished, so refusals (401, 403, 421) are in the trail too.
    express.use((request: EdgeRequest, response: EdgeResponse & { statusCode: number; on(event: 'finish', f: () => void): unknown }, next: () => void) => {
      response.on('finish', () => {
        const event = auditEventOf(request, response.statusCode, new Date());
        if (event) audit.record(event).catch((error: unknown) => deps.logger.error('audit record failed', { error: errorMessageOf(error) }));
      });
      next();
    });
  }
  if (allowedOrigins.size > 0) express.enableCors({ origin: [...allowedOrigins], credentials: false, allowedHeaders: ['authorization', 'content-type', 'x-csrf-token'] });
  express.use((request: EdgeRequest, response: EdgeResponse, next: (error?: unknown) => void) => {
    try {
      const port = request.socket.localPort ?? 0;
      checkEdge(request, { allowedHosts: hostsFor(request.socket.localAddress ?? '127.0.0.1', port, settings.allowedHosts), allowedOrigins, formPaths: FORM_PATHS });
      next();
    } catch (error) {
      sendProblem(error, request, response, deps.logger);
    }
  });
  const defaultLimit = deps.jsonLimitBytes ?? DEFAULT_JSON_LIMIT_BYTES;
  const limits = deps.bodyLimits ?? {};
  const limitOf = (request: EdgeRequest) => bodyLimitFor(limits, defaultLimit, request);
  // A declared length over the route's limit is refused before a byte of the body is read.
  express.use((request: EdgeRequest, response: EdgeResponse, next: () => void) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limitOf(request)) sendProblem(bodyTooLarge(limitOf(request)), request, response, deps.logger);
    else next();
  });
  // One parser at the largest limit; a chunked body is held to its own route's limit once read.
  // (Nest's typed options leave out `verify` because its rawBody mode sets its own; this app never uses rawBody.)
  const jsonOptions: NestExpressBodyParserOptions = {
    limit: Math.max(defaultLimit, ...Object.values(limits)),
    verify: (request: EdgeRequest, _response: unknown, raw: Buffer) => {
      if (raw.length > limitOf(request)) throw bodyTooLarge(limitOf(request));
    },
  };
  express.useBodyParser('json', jsonOptions);
  express.useBodyParser('urlencoded', { extended: false, limit: 4096 });
  // Errors of the body parsers happen before any route, so Nest's filters never see them.
  express.use((error: unknown, request: EdgeRequest, response: EdgeResponse, _next: (error?: unknown) => void) => sendProblem(error, request, response, deps.logger));
  const authenticator = new Authenticator({
    tokens: services.tokens,
    sessions: services.sessions,
    oidc: settings.oidc ? new OidcBearerVerifier(settings.oidc) : null,
    anonymousRole: settings.anonymousRole,
  });
  const server: Server = express.getHttpServer();
  const serverOnLoopback = () => {
    const a = server.address();
    return typeof a === 'object' && a !== null && isLoopback(a.address);
  };
  const rate = { storage: express.get(ThrottlerStorageService), perMinute: settings.rateLimitPerMinute };
  express.useGlobalGuards(new AuthGuard(express.get(Reflector), authenticator, { serverOnLoopback, rate }));
  express.useGlobalFilters(new ProblemFilter(deps.logger));
}

function oidcSignInOf(settings: AuthSettings): OidcSignIn | null {
  const { oidc, oidcClient } = settings;
  if (!oidc || !oidcClient) return null;
  return new OidcSignIn({ issuer: oidc.issuer, ...oidcClient, roleClaim: oidc.roleClaim, tenantClaim: oidc.tenantClaim });
}

const FORM_PATHS = new Set(['/auth/sign-in', '/auth/sign-out']);
