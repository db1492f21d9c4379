import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { HEADER_SCHEMA, MAX_MESSAGE_BYTES, dlqTopicOf, type EnvelopeMeta, type PayloadOf, type Role, type TopicDefinition, consumerGroupPrefix } from '@aoc/contracts';
import { errorCodeOf, errorMessageOf, isRetryable } from '@aoc/errors';
import { busMetrics, type BusHandlerOutcome } from '@aoc/telemetry';
import { defaultContracts, silentLogger, type BusHandler, type BusLogger, type BusOptions, type ContractsView, type PrepareStep, type PublishOptions, type Registration, type RetryPolicy, type UnitOfWork } from './bus-api';
import { BusAclError, BusError, type BusErrorCode } from './bus-errors';
import { messagingAttributes } from './bus-spans';
import { DLQ_REPLAY_GROUP_HEADER, DLQ_REPLAY_OF_HEADER, redactReason, replayInboxId } from './dead-letters';
import { deadLetterOf, type DeadLetterCause } from './dead-lettering';
import { isRefusal, metaOf, rawInboxId, readEnvelope, readPayload } from './inbound';
import { encodeMessage } from './outgoing';
import { RelayLoop } from './relay-loop';
import { DEFAULT_RETRY, retryDelayMs, sleep } from './retry';
import type { BusStore, BusTransaction } from './store/bus-store';
import type { OutgoingMessage, RawMessage, SubscriptionHandle, Transport } from './transport/transport';

// The bus's public types live in ./bus-api; `@aoc/bus` (index.ts) exports them through this module.
export {
  contractsViewOf,
  defaultContracts,
  silentLogger,
  type BusHandler,
  type BusLogger,
  type BusOptions,
  type ContractsView,
  type HandlerContext,
  type PrepareStep,
  type PublishOptions,
  type RetryPolicy,
  type UnitOfWork,
} from './bus-api';

/** A consumed message that passed every check, on its way to its handler. */
interface Delivery {
  group: string;
  raw: RawMessage;
  registration: Registration;
  payload: unknown;
  /** The envelope without its payload: what the handler sees as `ctx.envelope`. */
  meta: EnvelopeMeta;
  inboxId: string;
  runId: string | null;
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
  private readonly relay: RelayLoop;
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
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.relayIntervalMs = options.relayIntervalMs ?? 500;
    this.publishable = new Set(options.publishes.map((t) => t.name));
    this.contracts = options.contracts ?? defaultContracts;
    this.relay = new RelayLoop(
      (limit) =>
        this.store.relay(
          (topic, messages) => this.transport.send(topic, messages),
          limit,
          (row) => this.logger.error('outbox row set aside: the broker refused it', { role: this.role, topic: row.topic, outboxId: row.id, reason: row.reason }),
        ),
      (error) => this.logger.warn('outbox relay failed; will retry', { role: this.role, error: errorMessageOf(error) }),
    );
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
    this.relay.start(this.relayIntervalMs);
    this.logger.info('bus started', { role: this.role, transport: this.transport.kind, groups: [...byGroup.keys()] });
  }

  async stop(): Promise<void> {
    for (const remove of this.unobserve.splice(0)) remove();
    this.relay.stopSweeping();
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
    if (published > 0) this.relay.kick();
    return result;
  }

  /** Sends everything committed to the outbox now. */
  async flush(): Promise<void> {
    await this.relay.flush();
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
    const { key, meta, value } = encodeMessage(topic, payload, options, consumed, index, this.role, this.maxMessageBytes);
    const span = this.tracer.startSpan(`${topic.name} publish`, {
      kind: SpanKind.PRODUCER,
      attributes: messagingAttributes('send', { transport: this.transport.kind, role: this.role, topic: topic.name, messageId: meta.messageId, runId: meta.runId }),
    });
    const headers: Record<string, string> = { [HEADER_SCHEMA]: topic.name };
    propagation.inject(trace.setSpan(context.active(), span), headers);
    span.end();
    return { key, value, headers };
  }

  /** Consumes one raw message. Resolves once it is processed, skipped as duplicate or dead-lettered. */
  private async consume(group: string, handlers: Map<string, Registration>, raw: RawMessage): Promise<void> {
    const envelope = readEnvelope(raw, this.maxMessageBytes);
    if (isRefusal(envelope)) {
      return this.deadLetter(raw, rawInboxId(raw), { group, messageId: null, runId: null, errorCode: envelope.code, reason: envelope.reason, attempts: 0 });
    }
    const runId = envelope.runId ?? null;
    // Whom this group's inbox knows the message as: its id, or a replayed dead letter's own id (see inboxIdOf).
    const inboxId = await this.inboxIdOf(group, raw, envelope.messageId);
    const accepted = readPayload(group, handlers, raw, envelope, this.contracts);
    if (isRefusal(accepted)) {
      return this.deadLetter(raw, inboxId, { group, messageId: envelope.messageId, runId, errorCode: accepted.code, reason: accepted.reason, attempts: 0 });
    }
    return this.process({ group, raw, registration: accepted.registration, payload: accepted.payload, meta: metaOf(envelope), inboxId, runId });
  }

  /** Handles a checked message in a consumer span that continues the producer's trace, and records the outcome. */
  private process(d: Delivery): Promise<void> {
    const topic = d.registration.topic.name;
    const parent: Context = propagation.extract(context.active(), d.raw.headers);
    const attributes = messagingAttributes('process', { transport: this.transport.kind, role: this.role, topic, group: d.group, messageId: d.meta.messageId, runId: d.runId });
    return this.tracer.startActiveSpan(`${topic} process`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
      const timer = busMetrics.handlerDuration.startTimer();
      // Anything escaping below is redelivered by the transport.
      let outcome: BusHandlerOutcome = 'redelivered';
      try {
        outcome = await this.handleWithRetries(d, span);
      } finally {
        timer({ role: this.role, topic, outcome });
        span.end();
      }
    });
  }

  /** Tries the handler until it succeeds (or meets a duplicate); retries transient failures with backoff and dead-letters the rest. */
  private async handleWithRetries(d: Delivery, span: Span): Promise<BusHandlerOutcome> {
    const topic = d.registration.topic.name;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(d, span, attempt);
      } catch (error) {
        const retryable = isRetryable(error);
        if (retryable && attempt < this.retry.maxAttempts) {
          const delay = retryDelayMs(this.retry, attempt);
          this.logger.warn('handler failed; retrying', { role: this.role, topic, attempt, code: errorCodeOf(error), runId: d.runId });
          busMetrics.retries.add({ role: this.role, topic, code: errorCodeOf(error) });
          await sleep(delay);
          continue;
        }
        const code: BusErrorCode = retryable ? 'BUS.RETRIES_EXHAUSTED' : 'BUS.HANDLER_REJECTED';
        span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        const reason = `${errorCodeOf(error)}: ${errorMessageOf(error)}`;
        await this.deadLetter(d.raw, d.inboxId, { group: d.group, messageId: d.meta.messageId, runId: d.runId, errorCode: code, reason, attempts: attempt });
        return 'dead_lettered';
      }
    }
  }

  /** One try: the prepare step outside any transaction, then inbox claim, handler and its publications in one. */
  private async attempt(d: Delivery, span: Span, attempt: number): Promise<BusHandlerOutcome> {
    const { group, inboxId, registration, meta } = d;
    const topic = registration.topic.name;
    let prepared: unknown;
    if (registration.prepare) {
      // A message already handled skips the slow step instead of repeating it for nothing.
      if (await this.store.isProcessed(group, inboxId)) {
        span.setAttribute('aoc.duplicate', true);
        return 'duplicate';
      }
      prepared = await registration.prepare(d.payload, meta);
    }
    let published = 0;
    const processed = await this.store.transaction(async (tx) => {
      const fresh = await this.store.claim(tx, group, inboxId, topic, 'processed');
      if (!fresh) return false;
      const uow = this.unitOfWork(tx, meta);
      await registration.handler(d.payload, { manager: uow.manager, publish: uow.publish, envelope: meta, topic, consumerGroup: group, attempt, prepared });
      published = uow.published();
      return true;
    });
    if (!processed) span.setAttribute('aoc.duplicate', true);
    span.setAttribute('aoc.attempts', attempt);
    if (published > 0) this.relay.kick();
    return processed ? 'processed' : 'duplicate';
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
  private async deadLetter(raw: RawMessage, inboxId: string, cause: DeadLetterCause): Promise<void> {
    const { letter, message } = deadLetterOf(raw, cause);
    const written = await this.store.transaction(async (tx) => {
      if (!(await this.store.claim(tx, cause.group, inboxId, raw.topic, 'dead_lettered'))) return false;
      await this.store.appendOutbox(tx, dlqTopicOf(raw.topic), message);
      return true;
    });
    if (written) {
      const { group, errorCode, runId } = cause;
      // The letter keeps the whole reason; the log shows it as `aoc dlq list` does (no long quoted input).
      this.logger.warn('message dead-lettered', { role: this.role, topic: raw.topic, group, errorCode, reason: redactReason(letter.reason), runId });
      busMetrics.deadLetters.add({ role: this.role, topic: raw.topic, code: errorCode });
      this.relay.kick();
    }
  }
}
