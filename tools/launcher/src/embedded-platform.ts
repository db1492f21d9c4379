import { AUTH_STORE, migrateAuthStore, type AuthSettings } from '@aoc/auth';
import { InMemoryBroker } from '@aoc/bus';
import { TOPIC_REGISTRY, dlqTopicOf } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { bootRole, migrateRole, type BootedRole, type ServiceDefinition, type TransportSpec } from '@aoc/service-host';
import { createLogger, type LogLevel } from '@aoc/telemetry';
import type { DataSource } from 'typeorm';
import { createProviderExecutorDefinition, loadRecordings, type ExecutorOptions } from '@aoc/service-provider-executor';
import { createRouterDefinition, type RouterDefinitionOptions } from '@aoc/service-router';
import { ALL_SERVICES } from './all-services';

export interface PlatformOptions {
  /** Postgres URL; without it an embedded PGlite is started. */
  databaseUrl?: string;
  /** Transport; defaults to a fresh in-process broker. */
  transport?: TransportSpec;
  /** Credentials per role for Kafka; defaults to the local development principals. */
  kafkaPasswordOf?: (role: string) => string | undefined;
  services?: readonly ServiceDefinition[];
  logLevel?: LogLevel;
  httpFor?: (definition: ServiceDefinition) => number | undefined;
  /** Provider Executor settings; the one-process default replays the bundled example evidence. */
  executor?: Partial<ExecutorOptions>;
  /** Router settings (deadlines, ticket source); by default read from the environment. */
  router?: RouterDefinitionOptions;
  /** Who may call the HTTP APIs; deny by default. */
  auth?: AuthSettings;
}

export interface Platform {
  readonly broker: InMemoryBroker | null;
  readonly dataSource: DataSource;
  readonly roles: Map<string, BootedRole>;
  stop(): Promise<void>;
}

/**
 * Starts every role in this process. With the defaults (in-process broker, embedded Postgres)
 * it needs nothing installed; the same roles also run on Kafka and a real Postgres.
 */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const executor: Partial<ExecutorOptions> = options.executor ?? { mode: 'replay', recordings: loadRecordings(), prometheusTargets: [] };
  const services = (options.services ?? ALL_SERVICES).map((s) =>
    s.role === 'provider-executor' ? createProviderExecutorDefinition(executor) : s.role === 'router' && options.router ? createRouterDefinition(options.router) : s,
  );
  let embedded: EmbeddedPostgres | null = null;
  let url = options.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres();
    url = embedded.url;
  }
  for (const definition of services) await migrateRole(definition, url);
  await migrateAuthStore(url);
  // One connection for the embedded store (PGlite is a single session); a small pool otherwise.
  const entities = [...services.flatMap((s) => s.entities as never[]), ...AUTH_STORE.entities];
  const dataSource = createServiceDataSource({ url, schema: 'public', entities, poolSize: embedded ? 1 : 10 });
  await dataSource.initialize();
  let broker: InMemoryBroker | null = null;
  let transport = options.transport;
  if (!transport) {
    broker = new InMemoryBroker();
    for (const t of TOPIC_REGISTRY) {
      broker.createTopic(t.name, t.partitions);
      broker.createTopic(dlqTopicOf(t.name), 1);
    }
    transport = { kind: 'memory', broker };
  }
  const roles = new Map<string, BootedRole>();
  try {
    for (const definition of services) {
      const spec: TransportSpec =
        transport.kind === 'kafka'
          ? { ...transport, username: `aoc-${definition.role}`, password: options.kafkaPasswordOf?.(definition.role) ?? `${definition.role}-local-secret` }
          : transport;
      const booted = await bootRole({
        definition,
        transport: spec,
        dataSource,
        httpPort: options.httpFor?.(definition),
        auth: options.auth,
        logger: createLogger(definition.role, options.logLevel ?? 'warn'),
      });
      roles.set(definition.role, booted);
    }
  } catch (error) {
    for (const r of roles.values()) await r.close().catch(() => undefined);
    await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
  // Target resolution reads the providers' inventories: let the first ones land before any ticket.
  if (roles.has('router') && roles.has('provider-executor') && publishesInventory(executor)) await waitForInventories(dataSource, 1, 15_000);
  return {
    broker,
    dataSource,
    roles,
    stop: async () => {
      for (const r of [...roles.values()].reverse()) await r.close();
      broker?.close();
      await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

/** Whether the executor has any package (or recorded evidence) whose inventory it publishes at start. */
function publishesInventory(executor: Partial<ExecutorOptions>): boolean {
  if (executor.mode === 'replay') return (executor.recordings ?? []).length > 0;
  return (executor.prometheusTargets ?? []).length > 0 || executor.clinic !== undefined || executor.manus !== undefined || executor.wetech !== undefined;
}

/** Waits until the router stored at least `count` provider inventories; false when the time ran out. */
export async function waitForInventories(dataSource: DataSource, count: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row]: { n: string }[] = await dataSource.query(`SELECT count(*)::text AS n FROM "router"."provider_inventories"`);
    if (Number(row?.n ?? 0) >= count) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
