import { createHash, randomUUID } from 'node:crypto';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import {
  DeadLetterV1,
  HEADER_SCHEMA,
  MAX_MESSAGE_BYTES,
  WireEnvelope,
  dlqTopicOf,
  findTopic,
  grantFor,
  grantOf,
  knownVersionsOf,
  type RoleGrant,
  type EnvelopeMeta,
  type PayloadOf,
  type Role,
  type TopicDefinition,
  consumerGroupPrefix,
} from '@aoc/contracts';
import { errorCodeOf, errorMessageOf, isRetryable } from '@aoc/errors';
import { busMetrics, type BusHandlerOutcome } from '@aoc/telemetry';
import type { EntityManager } from 'typeorm';
import { BusAclError, BusError, describeIssues, type BusErrorCode } from './bus-errors';
import { DLQ_REPLAY_GROUP_HEADER, DLQ_REPLAY_OF_HEADER, jsonErrorWithoutInput, redactReason, replayInboxId } from './dead-letters';
import type { BusStore, BusTransaction } from './store/bus-store';
import type { OutgoingMessage, RawMessage, SubscriptionHandle, Transport } from './transport/transport';

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

interface Registration {
  topic: TopicDefinition;
  handler: BusHandler;
  group: string;
  prepare?: PrepareStep;
}

/**
 * Slow, side-effect-free work (e.g. provider calls) done BEFORE the handler's transaction opens,
 * so no database connection is held while waiting on the network. Its result reaches the
 * handler as `ctx.prepared`. A redelivery runs it again, so it must be safe to repeat.
 */
export type PrepareStep = (payload: unknown, envelope: EnvelopeMeta) => Promise<unknown>;

const MAX_DLQ_VALUE_BYTES = 64 * 1024;
const RELAY_BATCH = 200;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The one publish/subscribe API of the platform. It validates every message against the
 * contracts on publish and on consume, enforces the role/topic matrix, de-duplicates with an
 * inbox, commits state and outgoing messages together through an outbox, retries transient
 * failures with backoff and dead-letters what cannot be processed, with the reason.
 */
export class Bus {
  readonly role: Role;
  private readonly transport: Transport;
  private readonly store: BusStore;
  private readonly logger: BusLogger;
  private readonly retry: RetryPolicy;
  private readonly maxMessageBytes: number;
  private readonly relayIntervalMs: number;
  private readonly publishable: Set<string>;
  private readonly registrations: Registration[] = [];
  private readonly subscriptions: SubscriptionHandle[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private relayTimer: NodeJS.Timeout | null = null;
  private relayRunning: Promise<void> | null = null;
  private relayAgain = false;
  private started = false;
  /** Removes this bus's gauge sources (outbox backlog, consumer lag) on stop. */
  private unobserve: (() => void)[] = [];
  private readonly tracer = trace.getTracer('@aoc/bus');
  private readonly contracts: ContractsView;

  constructor(private readonly options: BusOptions) {
    this.role = options.role;
    this.transport = options.transport;
    this.store = options.store;
    this.logger = options.logger ?? silentLogger;
    this.retry = { maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 5000, ...options.retry };
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.relayIntervalMs = options.relayIntervalMs ?? 500;
    this.publishable = new Set(options.publishes.map((t) => t.name));
    this.contracts = options.contracts ?? defaultContracts;
  }

  /** Readiness: started, and every consumer group of the role has this member in it. */
  get readiness(): { started: boolean; groups: number; joined: number } {
    return { started: this.started, groups: this.subscriptions.length, joined: this.subscriptions.filter((s) => s.joined()).length };
  }

  get transportKind(): Transport['kind'] {
    return this.transport.kind;
  }

  /** Registers a handler; `group` suffixes the role's consumer group when one role needs two. */
  subscribe<T extends TopicDefinition>(topic: T, handler: BusHandler<T>, options: { groupSuffix?: string; prepare?: PrepareStep } = {}): void {
    if (this.started) throw new Error('subscribe before start()');
    const group = options.groupSuffix ? `${consumerGroupPrefix(this.role)}.${options.groupSuffix}` : consumerGroupPrefix(this.role);
    this.registrations.push({ topic, handler: handler as BusHandler, group, prepare: options.prepare });
  }

  /** Adds a prepare step to an already registered topic (used by the NestJS strategy). */
  setPrepare(topicName: string, prepare: PrepareStep): void {
    const registration = this.registrations.find((r) => r.topic.name === topicName);
    if (!registration) throw new BusError('BUS.NO_HANDLER', `prepare step for ${topicName} has no handler to precede`);
    registration.prepare = prepare;
  }

  /** Subscribes by versioned topic name (used by the NestJS strategy for `@EventPattern`). */
  subscribeByName(topicName: string, handler: BusHandler, options: { groupSuffix?: string; prepare?: PrepareStep } = {}): void {
    const topic = this.contracts.findTopic(topicName);
    if (!topic) throw new BusError('BUS.UNKNOWN_TOPIC', `topic "${topicName}" is not in the registry`);
    this.subscribe(topic, handler, options);
  }

  /** Checks every declared publication and subscription against the role/topic matrix. */
  assertGrants(): void {
    const grant = this.contracts.grantOf(this.role);
    for (const name of this.publishable) {
      if (!grant.publish.includes(name)) throw new BusAclError(this.role, name, 'publish');
    }
    for (const r of this.registrations) {
      if (!this.contracts.findTopic(r.topic.name)) throw new BusError('BUS.UNKNOWN_TOPIC', `topic "${r.topic.name}" is not in the registry`);
      if (!grant.subscribe.includes(r.topic.name)) throw new BusAclError(this.role, r.topic.name, 'subscribe');
    }
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.assertGrants();
    await this.transport.connect();
    const byGroup = new Map<string, Registration[]>();
    for (const r of this.registrations) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r]);
    for (const [group, regs] of byGroup) {
      const handlers = new Map(regs.map((r) => [r.topic.name, r]));
      const sub = await this.transport.subscribe({
        groupId: group,
        topics: [...handlers.keys()],
        handle: (message) => this.track(this.consume(group, handlers, message)),
      });
      this.subscriptions.push(sub);
    }
    this.started = true;
    this.observeGauges();
    this.relayTimer = setInterval(() => this.kickRelay(), this.relayIntervalMs);
    this.relayTimer.unref();
    this.kickRelay();
    this.logger.info('bus started', { role: this.role, transport: this.transport.kind, groups: [...byGroup.keys()] });
  }

  async stop(): Promise<void> {
    for (const remove of this.unobserve.splice(0)) remove();
    if (this.relayTimer) clearInterval(this.relayTimer);
    this.relayTimer = null;
    for (const s of this.subscriptions.splice(0)) await s.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.flush().catch((e) => this.logger.warn('final outbox flush failed', { error: errorMessageOf(e) }));
    await this.transport.disconnect();
    this.started = false;
  }

  /** Runs state changes and publications outside a handler (e.g. HTTP intake) atomically. */
  async transaction<R>(work: (uow: UnitOfWork) => Promise<R>): Promise<R> {
    let published = 0;
    const result = await this.store.transaction(async (tx) => {
      const uow = this.unitOfWork(tx, null);
      const out = await work(uow);
      published = uow.published();
      return out;
    });
    if (published > 0) this.kickRelay();
    return result;
  }

  /** Sends everything committed to the outbox now. */
  async flush(): Promise<void> {
    this.kickRelay();
    while (this.relayRunning) await this.relayRunning;
  }

  /** Gauges read at each scrape: rows waiting in this role's outbox, and the lag of its consumers. */
  private observeGauges(): void {
    const role = this.role;
    this.unobserve.push(
      busMetrics.outboxBacklog.observe(async () => [{ labels: { role }, value: await this.store.pendingOutboxCount() }]),
      busMetrics.consumerLag.observe(() =>
        (this.transport.consumerLag?.() ?? []).map((l) => ({ labels: { role, consumer_group: l.groupId, topic: l.topic, partition: l.partition }, value: l.lag })),
      ),
    );
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  private kickRelay(): void {
    if (this.relayRunning) {
      this.relayAgain = true;
      return;
    }
    this.relayRunning = (async () => {
      try {
        do {
          this.relayAgain = false;
          // A short batch means the outbox is drained; another pass would only find nothing.
          let sent: number;
          do {
            sent = await this.store.relay(
              (topic, messages) => this.transport.send(topic, messages),
              RELAY_BATCH,
              (row) => this.logger.error('outbox row set aside: the broker refused it', { role: this.role, topic: row.topic, outboxId: row.id, reason: row.reason }),
            );
          } while (sent === RELAY_BATCH);
        } while (this.relayAgain);
      } catch (error) {
        this.logger.warn('outbox relay failed; will retry', { role: this.role, error: errorMessageOf(error) });
      } finally {
        this.relayRunning = null;
      }
    })();
  }

  private unitOfWork(tx: BusTransaction, consumed: EnvelopeMeta | null): UnitOfWork & { published(): number } {
    let seq = 0;
    return {
      published: () => seq,
      manager: tx.manager,
      publish: async <T extends TopicDefinition>(topic: T, payload: PayloadOf<T>, options: PublishOptions = {}) => {
        const index = seq++;
        const message = this.encode(topic, payload, options, consumed, index);
        await this.store.appendOutbox(tx, topic.name, message);
      },
    };
  }

  /** Validates and serialises an outgoing message, with a producer span and trace headers. */
  private encode<T extends TopicDefinition>(topic: T, payload: PayloadOf<T>, options: PublishOptions, consumed: EnvelopeMeta | null, index: number): OutgoingMessage {
    if (!this.publishable.has(topic.name)) throw new BusAclError(this.role, topic.name, 'publish');
    const parsed = topic.value.safeParse(payload);
    if (!parsed.success) {
      throw new BusError('BUS.SCHEMA_INVALID', `refusing to publish invalid ${topic.name}: ${describeIssues('payload', parsed.error.issues)}`);
    }
    const value = parsed.data as Record<string, unknown>;
    const key = String(value[topic.keyField]);
    const bodyJson = JSON.stringify(value);
    const idempotencyKey =
      options.idempotencyKey ?? (consumed ? `${consumed.messageId}:${topic.name}:${index}` : `${topic.name}:${key}:${sha256(bodyJson)}`);
    const meta: EnvelopeMeta = {
      messageId: randomUUID(),
      idempotencyKey,
      schema: { topic: topic.name, version: topic.version },
      ...(typeof value['runId'] === 'string' ? { runId: value['runId'] } : {}),
      ...(typeof value['ticketKey'] === 'string' ? { ticketKey: value['ticketKey'] } : {}),
      producedAt: new Date().toISOString(),
      producer: this.role,
    };
    const serialized = JSON.stringify({ ...meta, payload: value });
    const bytes = Buffer.byteLength(serialized, 'utf8');
    if (bytes > this.maxMessageBytes) {
      throw new BusError('BUS.MESSAGE_TOO_LARGE', `refusing to publish ${topic.name}: ${bytes} bytes exceeds ${this.maxMessageBytes}`, { runId: meta.runId ?? null });
    }
    const span = this.tracer.startSpan(`${topic.name} publish`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': this.transport.kind === 'kafka' ? 'kafka' : 'aoc-memory',
        'messaging.operation.type': 'send',
        'messaging.destination.name': topic.name,
        'messaging.message.id': meta.messageId,
        'aoc.role': this.role,
        ...(meta.runId ? { 'aoc.run_id': meta.runId } : {}),
      },
    });
    const headers: Record<string, string> = { [HEADER_SCHEMA]: topic.name };
    propagation.inject(trace.setSpan(context.active(), span), headers);
    span.end();
    return { key, value: serialized, headers };
  }

  /** Consumes one raw message. Resolves once it is processed, skipped as duplicate or dead-lettered. */
  private async consume(group: string, handlers: Map<string, Registration>, raw: RawMessage): Promise<void> {
    const rawId = `raw:${raw.topic}:${raw.partition}:${raw.offset}`;
    const fail = (code: BusErrorCode, reason: string, messageId: string | null, runId: string | null, attempts: number, inboxId: string = messageId ?? rawId) =>
      this.deadLetter(group, raw, inboxId, messageId, runId, code, reason, attempts);

    if (raw.value.length > this.maxMessageBytes) {
      return fail('BUS.MESSAGE_TOO_LARGE', `message of ${raw.value.length} bytes exceeds the ${this.maxMessageBytes} byte limit`, null, null, 0);
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.value.toString('utf8'));
    } catch (error) {
      // Never the parser's message as is: it quotes the start of the value (ticket text, say).
      return fail('BUS.MALFORMED_JSON', `value is not valid JSON: ${jsonErrorWithoutInput(error)}`, null, null, 0);
    }
    const wire = WireEnvelope.safeParse(json);
    if (!wire.success) {
      return fail('BUS.ENVELOPE_INVALID', describeIssues('envelope', wire.error.issues), null, null, 0);
    }
    const envelope = wire.data;
    const runId = envelope.runId ?? null;
    // Whom this group's inbox knows the message as: its id, or a replayed dead letter's own id (see inboxIdOf).
    const inboxId = await this.inboxIdOf(group, raw, envelope.messageId);
    const registration = handlers.get(raw.topic);
    if (!registration) {
      return fail('BUS.NO_HANDLER', `no handler for ${raw.topic} in group ${group}`, envelope.messageId, runId, 0, inboxId);
    }
    const topic = registration.topic;
    if (envelope.schema.version !== topic.version || envelope.schema.topic !== topic.name) {
      // `aoc.x.v2` on the `aoc.x.v1` topic is an unknown version; another base name is a mismatch.
      const baseOf = (name: string) => name.replace(/\.v\d+$/, '');
      if (baseOf(envelope.schema.topic) === baseOf(topic.name)) {
        return fail(
          'BUS.UNKNOWN_SCHEMA_VERSION',
          `schema ${envelope.schema.topic} version ${envelope.schema.version} is not understood by this consumer of ${topic.name} (known versions: ${this.contracts.knownVersionsOf(topic.baseName).join(', ')})`,
          envelope.messageId,
          runId,
          0,
          inboxId,
        );
      }
      return fail('BUS.SCHEMA_MISMATCH', `envelope names schema ${envelope.schema.topic} but arrived on ${topic.name}`, envelope.messageId, runId, 0, inboxId);
    }
    const payload = topic.value.safeParse(envelope.payload);
    if (!payload.success) {
      return fail('BUS.SCHEMA_INVALID', describeIssues('payload', payload.error.issues), envelope.messageId, runId, 0, inboxId);
    }

    const parent: Context = propagation.extract(context.active(), raw.headers);
    const meta: EnvelopeMeta = { ...envelope };
    delete (meta as { payload?: unknown }).payload;
    return this.tracer.startActiveSpan(
      `${topic.name} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': this.transport.kind === 'kafka' ? 'kafka' : 'aoc-memory',
          'messaging.operation.type': 'process',
          'messaging.destination.name': topic.name,
          'messaging.consumer.group.name': group,
          'messaging.message.id': envelope.messageId,
          'aoc.role': this.role,
          ...(runId ? { 'aoc.run_id': runId } : {}),
        },
      },
      parent,
      async (span) => {
        const timer = busMetrics.handlerDuration.startTimer();
        // Anything escaping below is redelivered by the transport.
        let outcome: BusHandlerOutcome = 'redelivered';
        try {
          for (let attempt = 1; ; attempt++) {
            try {
              let published = 0;
              let prepared: unknown;
              if (registration.prepare) {
                if (await this.store.isProcessed(group, inboxId)) {
                  span.setAttribute('aoc.duplicate', true);
                  outcome = 'duplicate';
                  return;
                }
                prepared = await registration.prepare(payload.data, meta);
              }
              const processed = await this.store.transaction(async (tx) => {
                const fresh = await this.store.claim(tx, group, inboxId, topic.name, 'processed');
                if (!fresh) return false;
                const uow = this.unitOfWork(tx, meta);
                await registration.handler(payload.data, { manager: uow.manager, publish: uow.publish, envelope: meta, topic: topic.name, consumerGroup: group, attempt, prepared });
                published = uow.published();
                return true;
              });
              if (!processed) span.setAttribute('aoc.duplicate', true);
              outcome = processed ? 'processed' : 'duplicate';
              span.setAttribute('aoc.attempts', attempt);
              if (published > 0) this.kickRelay();
              return;
            } catch (error) {
              const retryable = isRetryable(error);
              if (retryable && attempt < this.retry.maxAttempts) {
                const delay = Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
                this.logger.warn('handler failed; retrying', { role: this.role, topic: topic.name, attempt, code: errorCodeOf(error), runId });
                busMetrics.retries.add({ role: this.role, topic: topic.name, code: errorCodeOf(error) });
                await sleep(delay);
                continue;
              }
              const code: BusErrorCode = retryable ? 'BUS.RETRIES_EXHAUSTED' : 'BUS.HANDLER_REJECTED';
              span.setStatus({ code: SpanStatusCode.ERROR, message: code });
              await fail(code, `${errorCodeOf(error)}: ${errorMessageOf(error)}`, envelope.messageId, runId, attempt, inboxId);
              outcome = 'dead_lettered';
              return;
            }
          }
        } finally {
          timer({ role: this.role, topic: topic.name, outcome });
          span.end();
        }
      },
    );
  }

  /**
   * The inbox id of a message for one group. Normally its message id, so a redelivery is a
   * duplicate. A dead letter re-published by `aoc dlq replay` names its letter and the group that
   * dead-lettered it (headers); for that group only, and only if its inbox really holds the message
   * as dead-lettered, the id is the letter's own: the group handles the message once more, once
   * per letter (a second replay of the same letter is a duplicate), while every group that had
   * processed the original still sees a duplicate.
   */
  private async inboxIdOf(group: string, raw: RawMessage, messageId: string): Promise<string> {
    const letterId = raw.headers[DLQ_REPLAY_OF_HEADER];
    if (!letterId || raw.headers[DLQ_REPLAY_GROUP_HEADER] !== group) return messageId;
    if (!(await this.store.wasDeadLettered(group, messageId))) return messageId;
    return replayInboxId(messageId, letterId);
  }

  /** Writes a dead letter through the outbox, claiming the inbox so it is recorded once. */
  private async deadLetter(
    group: string,
    raw: RawMessage,
    inboxId: string,
    messageId: string | null,
    runId: string | null,
    errorCode: BusErrorCode,
    reason: string,
    attempts: number,
  ): Promise<void> {
    const text = raw.value.toString('utf8');
    const truncated = Buffer.byteLength(text, 'utf8') > MAX_DLQ_VALUE_BYTES;
    const letter: DeadLetterV1 = {
      originalTopic: raw.topic,
      originalKey: raw.key,
      originalValue: truncated ? raw.value.subarray(0, MAX_DLQ_VALUE_BYTES).toString('utf8') : text,
      originalValueTruncated: truncated,
      originalHeaders: raw.headers,
      messageId,
      consumerGroup: group,
      errorCode,
      reason: reason.slice(0, 2000),
      attempts,
      deadLetteredAt: new Date().toISOString(),
      runId,
    };
    DeadLetterV1.parse(letter);
    const written = await this.store.transaction(async (tx) => {
      if (!(await this.store.claim(tx, group, inboxId, raw.topic, 'dead_lettered'))) return false;
      await this.store.appendOutbox(tx, dlqTopicOf(raw.topic), {
        key: raw.key,
        value: JSON.stringify(letter),
        headers: { ...raw.headers, [HEADER_SCHEMA]: 'aoc.dead-letter.v1', 'aoc-error-code': errorCode },
      });
      return true;
    });
    if (written) {
      // The letter keeps the whole reason; the log shows it as `aoc dlq list` does (no long quoted input).
      this.logger.warn('message dead-lettered', { role: this.role, topic: raw.topic, group, errorCode, reason: redactReason(letter.reason), runId });
      busMetrics.deadLetters.add({ role: this.role, topic: raw.topic, code: errorCode });
      this.kickRelay();
    }
  }
}
