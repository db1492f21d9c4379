import { findTopic, grantFor, grantOf, knownVersionsOf, type EnvelopeMeta, type PayloadOf, type Role, type RoleGrant, type TopicDefinition } from '@aoc/contracts';
import type { EntityManager } from 'typeorm';
import type { BusStore } from './store/bus-store';
import type { Transport } from './transport/transport';

/*
 * What code using the bus sees: its options, the unit of work and context a handler gets, and the
 * contracts view it checks against. `./bus` re-exports all of it (the `@aoc/bus` surface).
 */

export interface PublishOptions {
  /** Stable key of the business fact. Defaults to a digest of topic, key and payload. */
  idempotencyKey?: string;
}

/** What a handler (or a `bus.transaction` block) can do: write state and publish, atomically. */
export interface UnitOfWork {
  readonly manager: EntityManager;
  /** Validates now; the message is written to the outbox and sent after commit. */
  publish<T extends TopicDefinition>(topic: T, payload: PayloadOf<T>, options?: PublishOptions): Promise<void>;
}

export interface HandlerContext extends UnitOfWork {
  readonly envelope: EnvelopeMeta;
  readonly topic: string;
  readonly consumerGroup: string;
  /** 1 for the first try; bounded retries increase it. */
  readonly attempt: number;
  /** Result of the topic's prepare step, when one is registered. */
  readonly prepared?: unknown;
}

export type BusHandler<T extends TopicDefinition = TopicDefinition> = (payload: PayloadOf<T>, ctx: HandlerContext) => Promise<void>;

export interface BusLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: BusLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface RetryPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface BusOptions {
  role: Role;
  transport: Transport;
  store: BusStore;
  /** Topics this service may publish; checked against the matrix at start. */
  publishes: readonly TopicDefinition[];
  logger?: BusLogger;
  retry?: Partial<RetryPolicy>;
  maxMessageBytes?: number;
  /** How often leftovers in the outbox (e.g. after a crash) are swept. */
  relayIntervalMs?: number;
  /** The topic registry and role matrix; defaults to libs/contracts. Tests pass their own topics. */
  contracts?: ContractsView;
}

export interface ContractsView {
  findTopic(name: string): TopicDefinition | undefined;
  grantOf(role: Role): RoleGrant;
  knownVersionsOf(baseName: string): number[];
}

export const defaultContracts: ContractsView = { findTopic, grantOf, knownVersionsOf };

/** A contracts view over other topics than the registry's (private topics of tests and benchmarks). */
export function contractsViewOf(topics: readonly TopicDefinition[]): ContractsView {
  return {
    findTopic: (name) => topics.find((t) => t.name === name),
    knownVersionsOf: (base) => topics.filter((t) => t.baseName === base).map((t) => t.version),
    grantOf: (role) => grantFor(topics, role),
  };
}

/**
 * Slow, side-effect-free work (e.g. provider calls) done BEFORE the handler's transaction opens,
 * so no database connection is held while waiting on the network. Its result reaches the
 * handler as `ctx.prepared`. A redelivery runs it again, so it must be safe to repeat.
 */
export type PrepareStep = (payload: unknown, envelope: EnvelopeMeta) => Promise<unknown>;

/** A subscribed topic: its handler, the consumer group it runs in and its optional prepare step. Internal to the bus. */
export interface Registration {
  topic: TopicDefinition;
  handler: BusHandler;
  group: string;
  prepare?: PrepareStep;
}
