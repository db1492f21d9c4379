import { AUTH_STORE, authConfigSchema, authSettingsFrom, migrateAuthStore } from '@aoc/auth';
import { baseConfigShape, describeConfig, loadConfig, secret } from '@aoc/config';
import { principalName } from '@aoc/contracts';
import { POOL_TIMEOUTS, createServiceDataSource, schemaOf, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { createLogger, flushTelemetry } from '@aoc/telemetry';
import { DEFAULT_BUS_RETENTION, InMemoryBroker, KafkaStartFromSetting, setKafkaStartFromDefault } from '@aoc/bus';
import { z } from 'zod';
import { bootRole, migrateRole } from './boot-role';
import type { ServiceDefinition } from './service-definition';
import type { TransportSpec } from './transport-factory';

export const serviceConfigSchema = z.object({
  ...baseConfigShape,
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Probes of a role without an HTTP API (its definition's default otherwise). */
  MANAGEMENT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * The address the HTTP and management servers bind: loopback by default (a laptop); `0.0.0.0` in
   * a container, where probes and Services arrive on the pod's address. Anonymous access is only
   * ever granted on loopback, whatever is configured.
   */
  AOC_BIND_HOST: z.union([z.ipv4(), z.ipv6()], { error: 'an IPv4 or IPv6 address, such as 127.0.0.1 or 0.0.0.0' }).default('127.0.0.1'),
  KAFKA_SASL_PASSWORD: secret(z.string().optional()),
  /**
   * Where this role's consumer groups start on a partition they have no committed offset for:
   * `earliest` (default: nothing published before a group first joined is skipped; the inbox makes
   * re-reading harmless) or `latest` (only what is produced after it joined). Committed offsets
   * always win. See @aoc/bus kafka-start-from.ts.
   */
  AOC_KAFKA_START_FROM: KafkaStartFromSetting,
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(5),
  /** Sent outbox rows are history: kept this many days. */
  AOC_BUS_OUTBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_BUS_RETENTION.outboxDays),
  /** Inbox rows de-duplicate redeliveries: keep them longer than any topic keeps its messages. */
  AOC_BUS_INBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_BUS_RETENTION.inboxDays),
  /** Bounds on every database connection (see @aoc/persistence POOL_TIMEOUTS). */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(POOL_TIMEOUTS.statementMs),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(POOL_TIMEOUTS.connectMs),
  /** SIGTERM: stop consuming, finish in-flight handlers, flush the outbox and spans; past this bound the process exits anyway (non-zero). */
  AOC_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
});

/**
 * Entry point of a role running as its own process: parse config once (fail fast), migrate the
 * role's schema, start the bus and the NestJS app, stop cleanly on SIGTERM/SIGINT.
 */
export async function runServiceProcess(definition: ServiceDefinition, env: Record<string, string | undefined> = process.env): Promise<void> {
  const logger = createLogger(definition.role);
  const config = loadConfig(`aoc-${definition.role}`, serviceConfigSchema, env);
  const authConfig = loadConfig(`aoc-${definition.role}`, authConfigSchema, env);
  const auth = authSettingsFrom(authConfig);
  logger.info('starting', { config: describeConfig(serviceConfigSchema, config), auth: describeConfig(authConfigSchema, authConfig) });
  let embedded: EmbeddedPostgres | null = null;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres();
    url = embedded.url;
    logger.warn('DATABASE_URL not set: using an embedded, in-memory Postgres for this process');
  }
  await migrateRole(definition, url);
  if (definition.http) await migrateAuthStore(url);
  const entities = [...(definition.entities as never[]), ...(definition.http ? AUTH_STORE.entities : [])];
  const dataSource = createServiceDataSource({
    url,
    schema: schemaOf(definition.role),
    entities,
    poolSize: embedded ? 1 : config.DB_POOL_SIZE,
    timeouts: { statementMs: config.DB_STATEMENT_TIMEOUT_MS, connectMs: config.DB_CONNECT_TIMEOUT_MS },
  });
  await dataSource.initialize();
  const transport: TransportSpec =
    config.AOC_TRANSPORT === 'kafka'
      ? { kind: 'kafka', brokers: config.KAFKA_BROKERS, username: config.KAFKA_SASL_USERNAME ?? principalName(definition.role), password: config.KAFKA_SASL_PASSWORD }
      : { kind: 'memory', broker: new InMemoryBroker() };
  setKafkaStartFromDefault(config.AOC_KAFKA_START_FROM);
  if (config.AOC_TRANSPORT === 'memory') logger.warn('AOC_TRANSPORT=memory in a separate process: this role only talks to itself');
  const httpPort = definition.http ? (config.PORT ?? definition.http.defaultPort) : undefined;
  const managementPort = definition.http ? undefined : (config.MANAGEMENT_PORT ?? definition.management?.defaultPort);
  const busRetention = { outboxDays: config.AOC_BUS_OUTBOX_RETENTION_DAYS, inboxDays: config.AOC_BUS_INBOX_RETENTION_DAYS };
  const booted = await bootRole({ definition, transport, dataSource, httpPort, managementPort, bindHost: config.AOC_BIND_HOST, logger, auth, busRetention });
  logger.info('ready', { transport: transport.kind, http: booted.httpUrl, probes: booted.healthUrl });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    // An orchestrator kills the process after its own grace period: exit first, saying so, rather than be killed mid-flush.
    const deadline = setTimeout(() => {
      logger.error('shutdown exceeded its bound; exiting with work unfinished (it is redelivered)', { timeoutMs: config.AOC_SHUTDOWN_TIMEOUT_MS });
      process.exit(1);
    }, config.AOC_SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    // The bus stops first (no new messages, in-flight handlers finish, the outbox is flushed), then HTTP and the pool.
    await booted.close();
    await dataSource.destroy();
    await embedded?.stop();
    await flushTelemetry();
    clearTimeout(deadline);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
