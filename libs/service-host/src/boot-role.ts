import { ApiTokenEntity, DEFAULT_AUTH_SETTINGS, type AuthSettings } from '@aoc/auth';
import { Bus, BusServer, DEFAULT_BUS_RETENTION, PostgresBusStore, type BusRetention, type ContractsView } from '@aoc/bus';
import { edgeModule, installHttpEdge } from '@aoc/http-edge';
import { createServiceDataSource, migrateSchema, schemaOf } from '@aoc/persistence';
import { createLogger, startMetrics, type Logger } from '@aoc/telemetry';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import type { RoleRuntime } from './role-runtime';
import type { ServiceDefinition } from './service-definition';
import { healthModule } from './health.controller';
import { PeriodicTask } from './periodic-task';
import { startManagementServer } from './management-server';
import { RoleHealth } from './role-health';
import { createTransport, type TransportSpec } from './transport-factory';

/** The role's own module and its probes, served together. */
class HostedRoleModule {}

export interface BootRoleOptions {
  definition: ServiceDefinition;
  transport: TransportSpec;
  dataSource: DataSource;
  /** Serve the role's HTTP API on this port (0 = any free port); omit for no HTTP. */
  httpPort?: number;
  /** A role without an HTTP API serves /healthz, /readyz and /metrics on this port (0 = any free port); omit for none. */
  managementPort?: number;
  /** Address the HTTP and management servers bind (loopback when omitted). */
  bindHost?: string;
  logger?: Logger;
  /** Who may call the HTTP API; deny by default (no anonymous access, no OIDC). */
  auth?: AuthSettings;
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** How long the bus keeps sent outbox rows and inbox rows (pruned hourly). */
  busRetention?: BusRetention;
  /** The topic registry and role matrix the bus checks; the contracts' by default (tests pass private topics). */
  contracts?: ContractsView;
}

/** How often the bus's bookkeeping is pruned. */
const PRUNE_EVERY_MS = 3_600_000;

export interface BootedRole {
  readonly runtime: RoleRuntime;
  readonly app: INestApplication | INestMicroservice;
  /** Base URL of the HTTP API when one is served. */
  readonly httpUrl: string | null;
  /** Base URL of the probes and of /metrics: the HTTP API's, or the management port's. */
  readonly healthUrl: string | null;
  readonly health: RoleHealth;
  get<T>(token: abstract new (...args: never[]) => T): T;
  close(): Promise<void>;
}

/**
 * Runs a role's migrations in its own schema with a short-lived connection. Replicas booting
 * together on an empty schema take turns: the one connection holds a session advisory lock of the
 * schema while it migrates, so the next finds nothing pending instead of racing the same DDL.
 */
export async function migrateRole(definition: ServiceDefinition, url: string): Promise<string[]> {
  const schema = schemaOf(definition.role);
  const ds = createServiceDataSource({ url, schema, entities: definition.entities, migrations: definition.migrations, poolSize: 1 });
  await ds.initialize();
  const lock = `aoc-migrate:${schema}`;
  try {
    await ds.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    try {
      return await migrateSchema(ds, schema);
    } finally {
      await ds.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]);
    }
  } finally {
    await ds.destroy();
  }
}

/**
 * Hosts one role: its bus (with inbox/outbox in the role's schema), its NestJS module wired to
 * the bus through the custom transport strategy and, for roles with an API, an HTTP server.
 */
export async function bootRole(options: BootRoleOptions): Promise<BootedRole> {
  const { definition } = options;
  const logger = options.logger ?? createLogger(definition.role);
  // The process's metrics (already running when the entry point started telemetry): served on /metrics where the probes are.
  startMetrics({ serviceName: `aoc-${definition.role}` });
  const schema = schemaOf(definition.role);
  const store = new PostgresBusStore(options.dataSource, schema);
  const bus = new Bus({
    role: definition.role,
    transport: createTransport(definition.role, options.transport, logger),
    store,
    publishes: definition.publishes,
    logger,
    retry: options.retry,
    contracts: options.contracts,
  });
  const runtime: RoleRuntime = { role: definition.role, schema, bus, dataSource: options.dataSource, logger };
  const module = definition.module(runtime);
  const health = new RoleHealth(runtime, definition);
  const retention = options.busRetention ?? DEFAULT_BUS_RETENTION;
  const housekeeping = new PeriodicTask('bus housekeeping', logger);
  const strategy = new BusServer(bus);
  let app: INestApplication | INestMicroservice;
  let httpUrl: string | null = null;
  let management: { url: string; close(): Promise<void> } | null = null;
  if (options.httpPort !== undefined) {
    // Fail at boot, not at the first request, when the credential store is missing.
    if (!options.dataSource.hasMetadata(ApiTokenEntity)) throw new Error(`${definition.role}: an HTTP role's data source must include AUTH_STORE.entities (the credential store)`);
    const edge = { settings: options.auth ?? DEFAULT_AUTH_SETTINGS, dataSource: options.dataSource, logger, auditSchema: schema, bodyLimits: definition.http?.bodyLimits };
    const http = await NestFactory.create(edgeModule({ module: HostedRoleModule, imports: [module, healthModule(health)] }, edge), { logger: ['error', 'warn'], bodyParser: false });
    installHttpEdge(http, edge);
    // Bus controllers carry @UseFilters(BusErrorPassthroughFilter) themselves.
    http.connectMicroservice({ strategy }, { inheritAppConfig: false });
    await http.startAllMicroservices();
    await http.listen(options.httpPort, options.bindHost ?? '127.0.0.1');
    httpUrl = (await http.getUrl()).replace('[::1]', '127.0.0.1');
    app = http;
  } else {
    const ms = await NestFactory.createMicroservice(module, { strategy, logger: ['error', 'warn'] });
    await ms.listen();
    app = ms;
    if (options.managementPort !== undefined) management = await startManagementServer(health, options.managementPort, options.bindHost);
  }
  housekeeping.start(
    PRUNE_EVERY_MS,
    async () => {
      const pruned = await store.prune(retention);
      if (pruned.outbox + pruned.inbox > 0) logger.info('bus bookkeeping pruned', { ...pruned, ...retention });
    },
    { immediately: true },
  );
  return {
    runtime,
    app,
    httpUrl,
    healthUrl: httpUrl ?? management?.url ?? null,
    health,
    get: <T>(token: abstract new (...args: never[]) => T) => app.get(token as never) as T,
    close: async () => {
      await housekeeping.stop();
      await management?.close();
      await app.close();
    },
  };
}
