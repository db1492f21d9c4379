/**
 * Bus benchmark: what the bus (validation, inbox/outbox in Postgres, relay) costs per hop and in
 * throughput, compared with the raw transport underneath it ("floor").
 *
 *   npm run bench:bus                        # full run
 *   BENCH_QUICK=1 npm run bench:bus          # ~10x smaller N and M (CI smoke)
 *   BENCH_SKIP_KAFKA=1 npm run bench:bus     # in-process part only
 *
 * Parts:
 *   in-process  floor: InMemoryBroker.append -> consumer-group handler (private topic, 6 partitions)
 *               bus:   Bus on InMemoryTransport + PostgresBusStore on embedded PGlite (pool size 1)
 *   kafka       floor: kafkajs producer.send -> consumer.eachMessage (private topic, 6 partitions)
 *               bus:   Bus on KafkaTransport + PostgresBusStore on DATABASE_URL (private schema)
 *
 * Metrics: per-hop latency (sequential: publish one, wait until its handler ran, repeat) p50/p99,
 * and throughput (M messages published in batches/transactions of 50, until all are consumed).
 *
 * Env knobs: BENCH_QUICK, BENCH_SKIP_KAFKA, BENCH_N, BENCH_WARMUP, BENCH_M, BENCH_KAFKA_N,
 * BENCH_KAFKA_WARMUP, BENCH_KAFKA_M, BENCH_BATCH, BENCH_STORE_WARMUP (store cycles run before the bus
 * is measured; PGlite is WebAssembly and needs them), BENCH_PHASE_TIMEOUT_MS (default 120000),
 * DATABASE_URL, KAFKA_BROKERS / AOC_KAFKA_BROKERS, AOC_KAFKA_ADMIN_PASSWORD.
 *
 * Exit code: 0 when every part ran or was skipped because its broker/database is unreachable;
 * 1 when a phase stalled or failed.
 */
import { randomUUID } from 'node:crypto';
import { connect as netConnect } from 'node:net';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import type { DataSource, QueryRunner } from 'typeorm';
import { z } from 'zod';
import { defineTopic, dlqTopicOf, type Role, type RoleGrant, type TopicDefinition } from '@aoc/contracts';
import { Bus, InMemoryBroker, InMemoryTransport, KafkaTransport, PostgresBusStore, busTablesDdl, type ContractsView } from '@aoc/bus';
import { createServiceDataSource, startEmbeddedPostgres } from '@aoc/persistence';

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

const QUICK = process.env['BENCH_QUICK'] === '1';
const SKIP_KAFKA = process.env['BENCH_SKIP_KAFKA'] === '1';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

interface Sizes {
  /** latency samples */
  n: number;
  /** latency warm-up messages, not sampled */
  warm: number;
  /** throughput messages */
  m: number;
}

const BATCH = Math.max(1, intEnv('BENCH_BATCH', 50));
const PHASE_TIMEOUT_MS = intEnv('BENCH_PHASE_TIMEOUT_MS', 120_000);
const CLEANUP_TIMEOUT_MS = 20_000;
const MEM: Sizes = { n: intEnv('BENCH_N', QUICK ? 30 : 300), warm: intEnv('BENCH_WARMUP', QUICK ? 3 : 30), m: intEnv('BENCH_M', QUICK ? 200 : 2000) };
const KAFKA: Sizes = {
  n: intEnv('BENCH_KAFKA_N', QUICK ? 20 : 200),
  warm: intEnv('BENCH_KAFKA_WARMUP', QUICK ? 2 : 20),
  m: intEnv('BENCH_KAFKA_M', QUICK ? 200 : 2000),
};
const PARTITIONS = 6;
/** Store warm-up cycles (outbox insert + relay + inbox claim) before the bus is measured. */
const STORE_WARMUP = intEnv('BENCH_STORE_WARMUP', QUICK ? 100 : 300);
const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? process.env['AOC_KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',').map((b) => b.trim());
const ADMIN_SASL = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };
const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/aoc_test';
const RUN_TAG = randomUUID().replace(/-/g, '').slice(0, 8);

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Timeouts: one watchdog per phase (no per-message timers on the measured path)
// ---------------------------------------------------------------------------------------------

function seconds(limitMs: number): string {
  return limitMs >= 10_000 ? `${(limitMs / 1000).toFixed(0)} s` : `${limitMs} ms`;
}

/** If `started` resolves after we gave up waiting for it, release what it produced. */
function releaseIfLate<T>(started: Promise<T>, release: (value: T) => Promise<unknown>): void {
  started.then(release).catch(() => undefined);
}

class StallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StallError';
  }
}

class Phase {
  private readonly timer: NodeJS.Timeout;
  private readonly stalled: Promise<never>;
  private pending: string | (() => string) = 'start';

  constructor(
    readonly name: string,
    private readonly limitMs = PHASE_TIMEOUT_MS,
  ) {
    let fail: (error: Error) => void = () => undefined;
    this.stalled = new Promise<never>((_, reject) => (fail = reject));
    this.stalled.catch(() => undefined);
    this.timer = setTimeout(() => {
      const what = typeof this.pending === 'function' ? this.pending() : this.pending;
      fail(new StallError(`phase "${this.name}" stalled: ${what} not done after ${seconds(this.limitMs)}`));
    }, limitMs);
  }

  /** Awaits `work`, failing with a clear message if the phase exceeds its time limit. */
  wait<T>(work: Promise<T>, what: string | (() => string)): Promise<T> {
    this.pending = what;
    return Promise.race([work, this.stalled]);
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

async function inPhase<T>(name: string, body: (phase: Phase) => Promise<T>, limitMs = PHASE_TIMEOUT_MS): Promise<T> {
  const phase = new Phase(name, limitMs);
  try {
    return await body(phase);
  } finally {
    phase.end();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with the value, or rejects after `ms` (used for connection attempts and cleanup). */
async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${seconds(ms)}`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(errorText).join('; ') || error.message;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Teardown steps, run in reverse order, each bounded; failures are reported, not thrown. */
class Cleanup {
  private readonly steps: { what: string; run: () => Promise<unknown> }[] = [];

  add(what: string, run: () => Promise<unknown>): void {
    this.steps.push({ what, run });
  }

  async runAll(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await withTimeout(step.run(), CLEANUP_TIMEOUT_MS, `cleanup: ${step.what}`);
      } catch (error) {
        progress(`warning: ${errorText(error)}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Arrivals
// ---------------------------------------------------------------------------------------------

interface RangeWatch {
  lo: number;
  hi: number;
  need: number;
  count: number;
  resolve: () => void;
}

/** Records which message sequence numbers reached a handler, and wakes whoever waits for them. */
class Sink {
  private readonly seen = new Set<number>();
  private readonly waiters = new Map<number, () => void>();
  private ranges: RangeWatch[] = [];
  duplicates = 0;

  get received(): number {
    return this.seen.size;
  }

  arrive(seq: number): void {
    if (this.seen.has(seq)) {
      this.duplicates++;
      return;
    }
    this.seen.add(seq);
    const waiter = this.waiters.get(seq);
    if (waiter) {
      this.waiters.delete(seq);
      waiter();
    }
    if (this.ranges.length > 0) {
      for (const r of this.ranges) if (seq >= r.lo && seq < r.hi) r.count++;
      this.settleRanges();
    }
  }

  /** Resolves when `seq` has arrived (immediately if it already has). */
  next(seq: number): Promise<void> {
    if (this.seen.has(seq)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(seq, resolve));
  }

  /** Resolves once `need` distinct sequence numbers of [lo, hi) have arrived (default: all). */
  range(lo: number, hi: number, need = hi - lo): Promise<void> {
    return new Promise((resolve) => {
      let count = 0;
      for (let s = lo; s < hi; s++) if (this.seen.has(s)) count++;
      this.ranges.push({ lo, hi, need, count, resolve });
      this.settleRanges();
    });
  }

  countIn(lo: number, hi: number): number {
    let count = 0;
    for (let s = lo; s < hi; s++) if (this.seen.has(s)) count++;
    return count;
  }

  private settleRanges(): void {
    const done = this.ranges.filter((r) => r.count >= r.need);
    if (done.length === 0) return;
    this.ranges = this.ranges.filter((r) => r.count < r.need);
    for (const r of done) r.resolve();
  }
}

// ---------------------------------------------------------------------------------------------
// Private topics and a contracts view for them (as the bus tests do)
// ---------------------------------------------------------------------------------------------

const ROLE: Role = 'router';

function benchTopic(part: string) {
  return defineTopic({
    baseName: `bench${RUN_TAG}.${part}.ping`,
    version: 1,
    description: 'bus benchmark ping',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string().min(1), seq: z.number().int().nonnegative() }),
    producers: [ROLE],
    consumers: [ROLE],
    partitions: PARTITIONS,
  });
}

type BenchTopic = ReturnType<typeof benchTopic>;

function contractsFor(topics: TopicDefinition[]): ContractsView {
  return {
    findTopic: (name) => topics.find((t) => t.name === name),
    knownVersionsOf: (base) => topics.filter((t) => t.baseName === base).map((t) => t.version),
    grantOf: (role: Role): RoleGrant => {
      const subscribe = topics.filter((t) => t.consumers.includes(role)).map((t) => t.name);
      return { role, publish: topics.filter((t) => t.producers.includes(role)).map((t) => t.name), subscribe, deadLetter: subscribe.map(dlqTopicOf) };
    },
  };
}

const keyOf = (seq: number): string => `k${seq % 60}`;

/** The floor's message: an envelope-like JSON of the same shape a real consumer would parse. */
function floorValue(seq: number): string {
  return JSON.stringify({ messageId: randomUUID(), producedAt: new Date().toISOString(), payload: { key: keyOf(seq), seq } });
}

function floorSeq(value: Buffer | null): number {
  const parsed = JSON.parse((value ?? Buffer.alloc(0)).toString('utf8')) as { payload?: { seq?: unknown } };
  const seq = parsed.payload?.seq;
  if (typeof seq !== 'number') throw new Error('floor message without payload.seq');
  return seq;
}

// ---------------------------------------------------------------------------------------------
// SQL accounting (wraps the DataSource's query runners; the bus itself is untouched)
// ---------------------------------------------------------------------------------------------

interface SqlStats {
  statements: number;
  runners: number;
  /** summed time statements ran (sent -> result), ms */
  execMs: number;
  /** summed time statements waited for their runner's pooled connection, ms */
  acquireMs: number;
}

type LooseQuery = (query: string, parameters?: unknown, structured?: boolean) => Promise<unknown>;

function instrument(ds: DataSource): SqlStats {
  const stats: SqlStats = { statements: 0, runners: 0, execMs: 0, acquireMs: 0 };
  const create = ds.createQueryRunner.bind(ds);
  ds.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>): QueryRunner => {
    const runner = create(...args);
    stats.runners++;
    const query = runner.query.bind(runner) as LooseQuery;
    const counted: LooseQuery = async (sql, parameters, structured) => {
      stats.statements++;
      // runner.query() connects lazily (pool checkout); do it first to time the wait separately.
      const t0 = performance.now();
      await runner.connect();
      const t1 = performance.now();
      stats.acquireMs += t1 - t0;
      try {
        return await query(sql, parameters, structured);
      } finally {
        stats.execMs += performance.now() - t1;
      }
    };
    runner.query = counted as QueryRunner['query'];
    return runner;
  };
  return stats;
}

function snapshot(stats: SqlStats): SqlStats {
  return { ...stats };
}

function diff(after: SqlStats, before: SqlStats): SqlStats {
  return {
    statements: after.statements - before.statements,
    runners: after.runners - before.runners,
    execMs: after.execMs - before.execMs,
    acquireMs: after.acquireMs - before.acquireMs,
  };
}

interface WarmupStats {
  cycles: number;
  seconds: number;
  firstP50: number;
  lastP50: number;
}

/**
 * Runs the store's own statements (outbox insert, relay, inbox claim) before measuring. PGlite is
 * WebAssembly: V8 tiers its hot functions up in the background, so the first few hundred
 * transactions are several times slower than steady state; without this the bus numbers measure
 * the WASM warm-up, not the bus.
 */
async function warmStore(store: PostgresBusStore, cycles: number, phase: Phase): Promise<WarmupStats> {
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) {
    const c0 = performance.now();
    const message = { key: keyOf(i), value: floorValue(i), headers: { 'aoc-schema': 'bench.warmup' } };
    await phase.wait(
      store.transaction((tx) => store.appendOutbox(tx, 'aoc.bench-warmup.v1', message)),
      () => `store warm-up cycle ${i + 1}/${cycles} (outbox insert)`,
    );
    await phase.wait(
      store.relay(async () => undefined),
      () => `store warm-up cycle ${i + 1}/${cycles} (relay)`,
    );
    await phase.wait(
      store.transaction((tx) => store.claim(tx, 'aoc.bench-warmup', randomUUID(), 'aoc.bench-warmup.v1', 'processed')),
      () => `store warm-up cycle ${i + 1}/${cycles} (inbox claim)`,
    );
    times.push(performance.now() - c0);
  }
  const k = Math.max(1, Math.min(50, Math.floor(cycles / 4)));
  return { cycles, seconds: (performance.now() - t0) / 1000, firstP50: percentile(times.slice(0, k), 0.5), lastP50: percentile(times.slice(-k), 0.5) };
}

/** Round trip of a minimal transaction through TypeORM (BEGIN; SELECT 1; COMMIT). */
async function txRoundTrip(ds: DataSource, phase: Phase, samples = 50): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples + 5; i++) {
    const t0 = performance.now();
    await phase.wait(
      ds.transaction((m) => m.query('SELECT 1')),
      'BEGIN; SELECT 1; COMMIT',
    );
    if (i >= 5) out.push(performance.now() - t0);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measurement
// ---------------------------------------------------------------------------------------------

type TransportName = 'in-process' | 'kafka';
type VariantName = 'floor' | 'bus';

interface Subject {
  transport: TransportName;
  variant: VariantName;
  sink: Sink;
  publishOne(seq: number): Promise<void>;
  publishBatch(seqs: number[]): Promise<void>;
  sql?: SqlStats;
}

interface Result {
  transport: TransportName;
  variant: VariantName;
  n: number;
  m: number;
  /** publish -> handler ran, ms */
  latency: number[];
  /** publish call until it resolved (bus: transaction committed), ms */
  publish: number[];
  throughput: number;
  /** until the last batch/transaction was published, ms */
  sendMs: number;
  /** until the last message was consumed, ms */
  totalMs: number;
  /** SQL per message of the throughput run */
  sqlPerMessage?: SqlStats;
  /** SQL per hop of the (sequential) latency run */
  sqlPerHop?: SqlStats;
  /** this process: event-loop utilisation (0..1) and CPU ms per message, per run */
  process: { latencyElu: number; throughputElu: number; latencyCpuMs: number; throughputCpuMs: number };
  /** pg round trip of BEGIN; SELECT 1; COMMIT, ms */
  pgRoundTrip?: number[];
  warmup?: WarmupStats;
  duplicates: number;
}

let nextSeq = 0;
const allocate = (): number => nextSeq++;

function label(s: { transport: TransportName; variant: VariantName }): string {
  return `${s.transport} ${s.variant}`;
}

function perMessage(delta: SqlStats | undefined, count: number): SqlStats | undefined {
  if (!delta || count <= 0) return undefined;
  return { statements: delta.statements / count, runners: delta.runners / count, execMs: delta.execMs / count, acquireMs: delta.acquireMs / count };
}

async function measure(subject: Subject, sizes: Sizes): Promise<Result> {
  const name = label(subject);
  const latency: number[] = [];
  const publish: number[] = [];
  let hopsBefore: SqlStats | undefined;
  let eluBefore = performance.eventLoopUtilization();
  let cpuBefore = process.cpuUsage();
  progress(`${name}: latency, ${sizes.warm} warm-up + ${sizes.n} sequential messages`);
  await inPhase(`${name} latency`, async (phase) => {
    for (let i = 0; i < sizes.warm + sizes.n; i++) {
      const seq = allocate();
      if (i === sizes.warm) {
        if (subject.sql) hopsBefore = snapshot(subject.sql);
        eluBefore = performance.eventLoopUtilization();
        cpuBefore = process.cpuUsage();
      }
      const arrived = subject.sink.next(seq);
      const t0 = performance.now();
      await phase.wait(subject.publishOne(seq), () => `publish of message ${i + 1}/${sizes.warm + sizes.n}`);
      const t1 = performance.now();
      await phase.wait(arrived, () => `delivery of message ${i + 1}/${sizes.warm + sizes.n}`);
      const t2 = performance.now();
      if (i >= sizes.warm) {
        latency.push(t2 - t0);
        publish.push(t1 - t0);
      }
    }
  });

  const latencyElu = performance.eventLoopUtilization(eluBefore).utilization;
  const latencyCpu = process.cpuUsage(cpuBefore);
  const sqlPerHop = perMessage(subject.sql && hopsBefore ? diff(subject.sql, hopsBefore) : undefined, sizes.n);

  progress(`${name}: throughput, ${sizes.m} messages in batches of ${BATCH}`);
  const lo = nextSeq;
  const hi = lo + sizes.m;
  nextSeq = hi;
  const before = subject.sql ? snapshot(subject.sql) : undefined;
  const throughputEluBefore = performance.eventLoopUtilization();
  const throughputCpuBefore = process.cpuUsage();
  const { sendMs, totalMs } = await inPhase(`${name} throughput`, async (phase) => {
    const all = subject.sink.range(lo, hi);
    const t0 = performance.now();
    for (let s = lo; s < hi; s += BATCH) {
      const seqs: number[] = [];
      for (let q = s; q < Math.min(s + BATCH, hi); q++) seqs.push(q);
      await phase.wait(subject.publishBatch(seqs), () => `publishing batch starting at message ${s - lo + 1}/${sizes.m}`);
    }
    const t1 = performance.now();
    await phase.wait(all, () => `consumption (${subject.sink.countIn(lo, hi)}/${sizes.m} messages consumed)`);
    const t2 = performance.now();
    return { sendMs: t1 - t0, totalMs: t2 - t0 };
  });
  const sqlDelta = subject.sql && before ? diff(subject.sql, before) : undefined;
  const throughputElu = performance.eventLoopUtilization(throughputEluBefore).utilization;
  const throughputCpu = process.cpuUsage(throughputCpuBefore);
  const cpuMs = (usage: NodeJS.CpuUsage, count: number): number => (usage.user + usage.system) / 1000 / Math.max(1, count);
  return {
    transport: subject.transport,
    variant: subject.variant,
    n: sizes.n,
    m: sizes.m,
    latency,
    publish,
    throughput: sizes.m / (totalMs / 1000),
    sendMs,
    totalMs,
    sqlPerMessage: perMessage(sqlDelta, sizes.m),
    sqlPerHop,
    process: {
      latencyElu,
      throughputElu,
      latencyCpuMs: cpuMs(latencyCpu, sizes.n),
      throughputCpuMs: cpuMs(throughputCpu, sizes.m),
    },
    duplicates: subject.sink.duplicates,
  };
}

// ---------------------------------------------------------------------------------------------
// In-process
// ---------------------------------------------------------------------------------------------

async function inProcessFloor(): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    const broker = new InMemoryBroker();
    cleanup.add('close in-memory broker', async () => broker.close());
    const topic = `aoc.bench${RUN_TAG}.mem-floor.ping.v1`;
    broker.createTopic(topic, PARTITIONS);
    const sink = new Sink();
    const groupId = `aoc.${ROLE}.bench-floor`;
    const memberId = broker.join(groupId, [topic], async (raw) => sink.arrive(floorSeq(raw.value)));
    cleanup.add('leave floor group', async () => broker.leave(groupId, memberId));
    return await measure(
      {
        transport: 'in-process',
        variant: 'floor',
        sink,
        publishOne: async (seq) => broker.append(topic, [{ key: keyOf(seq), value: floorValue(seq), headers: {} }]),
        publishBatch: async (seqs) => broker.append(topic, seqs.map((seq) => ({ key: keyOf(seq), value: floorValue(seq), headers: {} }))),
      },
      MEM,
    );
  } finally {
    await cleanup.runAll();
  }
}

async function runBus(
  transportName: TransportName,
  bus: Bus,
  store: PostgresBusStore,
  topic: BenchTopic,
  sink: Sink,
  ds: DataSource,
  sql: SqlStats,
  sizes: Sizes,
  waitForJoin: boolean,
): Promise<Result> {
  progress(`${transportName} bus: store warm-up, ${STORE_WARMUP} outbox/relay/inbox cycles`);
  const warmup = await inPhase(`${transportName} store warm-up`, (phase) => warmStore(store, STORE_WARMUP, phase));
  bus.subscribe(topic, async (payload) => sink.arrive(payload.seq), { groupSuffix: `bench${RUN_TAG}` });
  await inPhase(`${transportName} bus start`, (phase) => phase.wait(bus.start(), 'bus.start()'));
  const publishOne = (seq: number): Promise<void> => bus.transaction((uow) => uow.publish(topic, { key: keyOf(seq), seq }));
  if (waitForJoin) await awaitFirstDelivery(`${transportName} bus`, sink, publishOne);
  const pgRoundTrip = await inPhase(`${transportName} postgres round trip`, (phase) => txRoundTrip(ds, phase));
  const result = await measure(
    {
      transport: transportName,
      variant: 'bus',
      sink,
      sql,
      publishOne,
      publishBatch: (seqs) =>
        bus.transaction(async (uow) => {
          for (const seq of seqs) await uow.publish(topic, { key: keyOf(seq), seq });
        }),
    },
    sizes,
  );
  return { ...result, pgRoundTrip, warmup };
}

async function inProcessBus(): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    progress('in-process bus: starting embedded Postgres (PGlite)');
    const starting = startEmbeddedPostgres();
    const pg = await inPhase('start PGlite', (phase) => phase.wait(starting, 'startEmbeddedPostgres()')).catch((error: unknown) => {
      releaseIfLate(starting, (late) => late.stop());
      throw error;
    });
    cleanup.add('stop PGlite', () => pg.stop());
    const ds = createServiceDataSource({ url: pg.url, schema: 'public', poolSize: 1, applicationName: 'aoc-bench' });
    const sql = instrument(ds);
    cleanup.add('close PGlite data source', async () => {
      if (ds.isInitialized) await ds.destroy();
    });
    const initializing = ds.initialize();
    await inPhase('connect to PGlite', (phase) => phase.wait(initializing, 'DataSource.initialize()')).catch((error: unknown) => {
      releaseIfLate(initializing, (late) => late.destroy());
      throw error;
    });
    const schema = `bench_${RUN_TAG}`;
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);

    const broker = new InMemoryBroker();
    cleanup.add('close in-memory broker', async () => broker.close());
    const topic = benchTopic('mem');
    broker.createTopic(topic.name, topic.partitions);
    const sink = new Sink();
    const store = new PostgresBusStore(ds, schema);
    const bus = new Bus({
      role: ROLE,
      transport: new InMemoryTransport(broker),
      store,
      publishes: [topic],
      contracts: contractsFor([topic]),
    });
    cleanup.add('stop in-process bus', () => bus.stop());
    return await runBus('in-process', bus, store, topic, sink, ds, sql, MEM, false);
  } finally {
    await cleanup.runAll();
  }
}

// ---------------------------------------------------------------------------------------------
// Kafka
// ---------------------------------------------------------------------------------------------

function hostPort(broker: string): { host: string; port: number } {
  const i = broker.lastIndexOf(':');
  return { host: broker.slice(0, i), port: Number(broker.slice(i + 1)) };
}

function tcpProbe(host: string, port: number, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TCP answer from ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(`cannot connect to ${host}:${port}: ${errorText(error)}`));
    });
  });
}

/** Publishes probe messages until one is consumed (consumer group joined), then drains them. */
async function awaitFirstDelivery(name: string, sink: Sink, publishOne: (seq: number) => Promise<void>): Promise<void> {
  progress(`${name}: waiting for the consumer group to join (probe messages until one arrives)`);
  await inPhase(`${name} consumer group join`, async (phase) => {
    const lo = nextSeq;
    const maxProbes = 1000;
    nextSeq += maxProbes;
    const first = sink.range(lo, lo + maxProbes, 1);
    let arrived = false;
    void first.then(() => (arrived = true));
    let sent = 0;
    const t0 = performance.now();
    while (!arrived && sent < maxProbes) {
      await phase.wait(publishOne(lo + sent), `publish of join probe ${sent + 1}`);
      sent++;
      await phase.wait(Promise.race([first, sleep(1000)]), 'first delivery');
    }
    await phase.wait(sink.range(lo, lo + sent), () => `delivery of all ${sent} join probes (${sink.countIn(lo, lo + sent)} arrived)`);
    progress(`${name}: first delivery after ${((performance.now() - t0) / 1000).toFixed(1)} s (${sent} probe(s))`);
  });
}

/** A part that failed after measuring something: keeps what it measured. */
class PartialFailure extends Error {
  constructor(
    readonly reason: unknown,
    readonly results: Result[],
    readonly notes: string[],
  ) {
    super(errorText(reason));
    this.name = 'PartialFailure';
  }
}

interface KafkaOutcome {
  results: Result[];
  notes: string[];
}

async function kafkaPart(): Promise<KafkaOutcome> {
  const notes: string[] = [];
  const results: Result[] = [];
  const cleanup = new Cleanup();
  try {
    const { host, port } = hostPort(KAFKA_BROKERS[0]);
    try {
      await tcpProbe(host, port);
    } catch (error) {
      notes.push(`kafka: SKIPPED (floor and bus): broker ${KAFKA_BROKERS.join(',')} unreachable: ${errorText(error)}`);
      return { results, notes };
    }
    const kafka = new Kafka({
      clientId: `aoc-bench-${RUN_TAG}`,
      brokers: KAFKA_BROKERS,
      sasl: { mechanism: 'plain', ...ADMIN_SASL },
      ssl: false,
      connectionTimeout: 5000,
      requestTimeout: 15000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
      logLevel: logLevel.NOTHING,
    });
    const admin: Admin = kafka.admin();
    try {
      await withTimeout(admin.connect(), 20_000, 'kafka admin connect');
    } catch (error) {
      await admin.disconnect().catch(() => undefined);
      notes.push(`kafka: SKIPPED (floor and bus): cannot connect as ${ADMIN_SASL.username} to ${KAFKA_BROKERS.join(',')}: ${errorText(error)}`);
      return { results, notes };
    }
    cleanup.add('disconnect kafka admin', () => admin.disconnect());

    const floorTopic = `aoc.bench${RUN_TAG}.kafka-floor.ping.v1`;
    const busTopic = benchTopic('kafka');
    const floorGroup = `aoc.bench.${RUN_TAG}.floor`;
    const busGroup = `aoc.${ROLE}.bench${RUN_TAG}`;
    progress(`kafka: creating private topics ${floorTopic}, ${busTopic.name} (${PARTITIONS} partitions each)`);
    await inPhase('kafka topic creation', (phase) =>
      phase.wait(
        admin.createTopics({
          waitForLeaders: true,
          topics: [
            { topic: floorTopic, numPartitions: PARTITIONS, replicationFactor: 1 },
            { topic: busTopic.name, numPartitions: PARTITIONS, replicationFactor: 1 },
            { topic: dlqTopicOf(busTopic.name), numPartitions: 1, replicationFactor: 1 },
          ],
        }),
        'admin.createTopics()',
      ),
    );
    cleanup.add('delete private kafka topics and groups', async () => {
      await admin.deleteGroups([floorGroup, busGroup]).catch(() => undefined);
      await admin.deleteTopics({ topics: [floorTopic, busTopic.name, dlqTopicOf(busTopic.name)], timeout: 10_000 });
    });

    results.push(await kafkaFloor(kafka, floorTopic, floorGroup));

    // Bus on Kafka needs a real Postgres.
    const ds = createServiceDataSource({ url: DATABASE_URL, schema: 'public', poolSize: 5, applicationName: 'aoc-bench' });
    const sql = instrument(ds);
    const initializing = ds.initialize();
    try {
      await withTimeout(initializing, 15_000, 'postgres connect');
    } catch (error) {
      releaseIfLate(initializing, (late) => late.destroy());
      notes.push(`kafka bus: SKIPPED: Postgres at ${redactUrl(DATABASE_URL)} unreachable: ${errorText(error)}`);
      return { results, notes };
    }
    cleanup.add('close postgres data source', () => ds.destroy());
    const schema = `bench_${RUN_TAG}`;
    cleanup.add(`drop schema ${schema}`, () => ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);

    const transport = new KafkaTransport({ clientId: `aoc-bench-bus-${RUN_TAG}`, brokers: KAFKA_BROKERS, sasl: ADMIN_SASL });
    const store = new PostgresBusStore(ds, schema);
    const bus = new Bus({
      role: ROLE,
      transport,
      store,
      publishes: [busTopic],
      contracts: contractsFor([busTopic]),
    });
    cleanup.add('stop kafka bus', () => bus.stop());
    results.push(await runBus('kafka', bus, store, busTopic, new Sink(), ds, sql, KAFKA, true));
    return { results, notes };
  } catch (error) {
    // Keep what was measured so far; the caller reports the failure.
    throw new PartialFailure(error, results, notes);
  } finally {
    await cleanup.runAll();
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

async function kafkaFloor(kafka: Kafka, topic: string, groupId: string): Promise<Result> {
  const cleanup = new Cleanup();
  try {
    const sink = new Sink();
    // Same producer/consumer settings as KafkaTransport, so the difference is the bus itself.
    const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1 });
    cleanup.add('disconnect floor producer', () => producer.disconnect());
    await inPhase('kafka floor producer connect', (phase) => phase.wait(producer.connect(), 'producer.connect()'));
    const consumer: Consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: 10000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 20000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5000 },
    });
    let joinedResolve: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (joinedResolve = resolve));
    const removeListener = consumer.on(consumer.events.GROUP_JOIN, () => joinedResolve());
    cleanup.add('disconnect floor consumer', async () => {
      removeListener();
      await consumer.disconnect();
    });
    progress('kafka floor: connecting consumer and waiting for GROUP_JOIN');
    await inPhase('kafka floor consumer group join', async (phase) => {
      await phase.wait(consumer.connect(), 'consumer.connect()');
      await phase.wait(consumer.subscribe({ topic, fromBeginning: true }), 'consumer.subscribe()');
      await phase.wait(
        consumer.run({
          autoCommit: true,
          partitionsConsumedConcurrently: 3,
          eachMessage: async ({ message }) => sink.arrive(floorSeq(message.value)),
        }),
        'consumer.run()',
      );
      await phase.wait(joined, 'GROUP_JOIN event');
    });
    const send = (seqs: number[]): Promise<void> =>
      producer.send({ topic, acks: -1, messages: seqs.map((seq) => ({ key: keyOf(seq), value: floorValue(seq), headers: {} })) }).then(() => undefined);
    return await measure({ transport: 'kafka', variant: 'floor', sink, publishOne: (seq) => send([seq]), publishBatch: send }, KAFKA);
  } finally {
    await cleanup.runAll();
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  return value.toFixed(1);
}

function rate(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1);
}

function ratio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 100) return `x${Math.round(value)}`;
  if (value >= 0.1) return `x${value.toFixed(value >= 10 ? 1 : 2).replace(/\.?0+$/, '') || '0'}`;
  return `x${value.toPrecision(2)}`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const right = new Set([2, 3, 4]);
  const line = (r: string[]) => r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(' | ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

function report(results: Result[], notes: string[], failures: string[]): void {
  const out: string[] = [];
  out.push('');
  out.push('== bus benchmark ==');
  out.push(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}, node ${process.version}`);
  out.push(
    `sizes: in-process N=${MEM.n} (warm-up ${MEM.warm}), M=${MEM.m}; kafka N=${KAFKA.n} (warm-up ${KAFKA.warm}), M=${KAFKA.m}; batch/transaction of ${BATCH}; store warm-up ${STORE_WARMUP} cycles; partitions ${PARTITIONS}${QUICK ? '; BENCH_QUICK=1' : ''}${SKIP_KAFKA ? '; BENCH_SKIP_KAFKA=1' : ''}`,
  );
  out.push('');
  const rows = [['transport', 'variant', 'p50 ms', 'p99 ms', 'msgs/s']];
  for (const r of results) rows.push([r.transport, r.variant, ms(percentile(r.latency, 0.5)), ms(percentile(r.latency, 0.99)), rate(r.throughput)]);
  out.push(results.length > 0 ? table(rows) : '(no results)');
  out.push('');
  for (const transport of ['in-process', 'kafka'] as const) {
    const floor = results.find((r) => r.transport === transport && r.variant === 'floor');
    const bus = results.find((r) => r.transport === transport && r.variant === 'bus');
    if (!floor || !bus) continue;
    out.push(
      `${transport} bus/floor: p50 ${ratio(percentile(bus.latency, 0.5) / percentile(floor.latency, 0.5))}, p99 ${ratio(
        percentile(bus.latency, 0.99) / percentile(floor.latency, 0.99),
      )}, throughput ${ratio(bus.throughput / floor.throughput)}`,
    );
  }
  const details: string[] = [];
  for (const r of results) {
    const name = label(r);
    const pub50 = percentile(r.publish, 0.5);
    const after = r.latency.map((l, i) => l - r.publish[i]);
    details.push(
      `${name}: publish call p50 ${ms(pub50)} ms, then handler p50 ${ms(percentile(after, 0.5))} ms later; mean hop ${ms(
        r.latency.reduce((a, b) => a + b, 0) / Math.max(1, r.latency.length),
      )} ms; throughput: all ${r.m} published after ${ms(r.sendMs)} ms, consumed after ${ms(r.totalMs)} ms${r.duplicates > 0 ? `; ${r.duplicates} duplicate deliveries` : ''}`,
    );
    details.push(
      `${name}: this node process: latency run ${ms(r.process.latencyCpuMs)} ms CPU per hop, event loop busy ${(r.process.latencyElu * 100).toFixed(0)}%; ` +
        `throughput run ${ms(r.process.throughputCpuMs)} ms CPU per message, event loop busy ${(r.process.throughputElu * 100).toFixed(0)}%` +
        (r.transport === 'in-process' && r.variant === 'bus' ? ' (PGlite runs on this thread: includes the database)' : ''),
    );
    if (r.warmup) {
      details.push(
        `${name}: store warm-up ${r.warmup.cycles} cycles in ${r.warmup.seconds.toFixed(1)} s; cycle p50 ${ms(r.warmup.firstP50)} ms at the start -> ${ms(r.warmup.lastP50)} ms at the end`,
      );
    }
    if (r.pgRoundTrip) details.push(`${name}: postgres round trip (BEGIN; SELECT 1; COMMIT via TypeORM) p50 ${ms(percentile(r.pgRoundTrip, 0.5))} ms`);
    if (r.sqlPerHop) {
      details.push(
        `${name}: per hop (latency run) ${r.sqlPerHop.statements.toFixed(2)} SQL statements in ${r.sqlPerHop.runners.toFixed(2)} query runners; ` +
          `summed ${ms(r.sqlPerHop.execMs)} ms executing SQL + ${ms(r.sqlPerHop.acquireMs)} ms waiting for a pooled connection, vs ${ms(
            r.latency.reduce((a, b) => a + b, 0) / Math.max(1, r.latency.length),
          )} ms mean hop`,
      );
    }
    if (r.sqlPerMessage) {
      const wallPerMsg = r.totalMs / Math.max(1, r.m);
      details.push(
        `${name}: per message (throughput run) ${r.sqlPerMessage.statements.toFixed(2)} SQL statements in ${r.sqlPerMessage.runners.toFixed(2)} query runners ` +
          `(pool checkouts); summed ${ms(r.sqlPerMessage.execMs)} ms executing SQL + ${ms(r.sqlPerMessage.acquireMs)} ms waiting for a pooled connection, ` +
          `vs ${ms(wallPerMsg)} ms wall time per message`,
      );
    }
  }
  if (details.length > 0) {
    out.push('');
    out.push('details:');
    for (const d of details) out.push(`  ${d}`);
  }
  if (notes.length > 0 || failures.length > 0) out.push('');
  for (const n of notes) out.push(n);
  for (const f of failures) out.push(`FAILED: ${f}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const results: Result[] = [];
  const notes: string[] = [];
  const failures: string[] = [];

  progress(`run ${RUN_TAG}: in-process part`);
  try {
    results.push(await inProcessFloor());
  } catch (error) {
    failures.push(`in-process floor: ${errorText(error)}`);
  }
  try {
    results.push(await inProcessBus());
  } catch (error) {
    failures.push(`in-process bus: ${errorText(error)}`);
  }

  if (SKIP_KAFKA) {
    notes.push('kafka: SKIPPED (floor and bus): BENCH_SKIP_KAFKA=1');
  } else {
    progress('kafka part');
    try {
      const outcome = await kafkaPart();
      results.push(...outcome.results);
      notes.push(...outcome.notes);
    } catch (error) {
      if (error instanceof PartialFailure) {
        results.push(...error.results);
        notes.push(...error.notes);
        failures.push(`kafka: ${errorText(error.reason)}`);
      } else {
        failures.push(`kafka: ${errorText(error)}`);
      }
    }
  }

  report(results, notes, failures);
  return failures.length > 0 ? 1 : 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${errorText(error)}\n`);
    return 1;
  })
  .then((code) => {
    process.exitCode = code;
    // Everything is disconnected above; if some library still holds a handle, do not hang.
    setTimeout(() => {
      progress('warning: handles still open 10 s after the end; forcing exit');
      process.exit(code);
    }, 10_000).unref();
  });
