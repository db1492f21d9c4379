import { ROLES, principalName, type Role } from '@aoc/contracts';
import { z } from 'zod';

// The chaos suite's pure parts: its settings, the random schedule of faults and tickets (from a
// seed, so a failing run can be replayed), and the verdict over what the topics and tables hold.
// The orchestration (processes, broker, database) is in chaos.ts.

const flag = z.enum(['0', '1', 'true', 'false']).optional().transform((v) => v === '1' || v === 'true');
const count = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

/** Most processes of one role a run starts (`CHAOS_REPLICAS`): the machine has 2 cores. */
export const MAX_REPLICAS = 4;

export const ChaosEnv = z.object({
  CHAOS_QUICK: flag,
  CHAOS_TICKETS: count(1, 500),
  CHAOS_KILLS_PER_ROLE: count(1, 20),
  CHAOS_MAX_PAUSE_MS: count(300, 600_000),
  CHAOS_QUIET_TIMEOUT_S: count(10, 3600),
  CHAOS_STALL_MS: count(0, 120_000),
  CHAOS_SEED: count(0, 2 ** 31 - 1),
  CHAOS_DATABASE: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a database name ([a-z_][a-z0-9_]*)').optional(),
  CHAOS_SKIP_BUILD: flag,
  CHAOS_REPLICAS: count(1, MAX_REPLICAS),
});

export interface ChaosSettings {
  quick: boolean;
  tickets: number;
  killsPerRole: number;
  brokerRestarts: number;
  postgresRestarts: number;
  /** How long the one stalled provider call waits (past the consumer session timeout). */
  stallMs: number;
  /** The consumer session timeout the stall must outlast (KafkaTransport's default). */
  sessionTimeoutMs: number;
  /** Longest pause between a step's tickets and its fault. */
  maxPauseMs: number;
  /** After the last fault: how long the system may take to become quiet. */
  quietTimeoutMs: number;
  seed: number;
  database: string;
  skipBuild: boolean;
  /** Processes per role, in the role's consumer groups; a kill hits one of them (the others carry on). */
  replicas: number;
}

export const SESSION_TIMEOUT_MS = 10_000;

/** Settings from the environment: `CHAOS_QUICK=1` is the CI variant (12 tickets, one fault of each kind). */
export function chaosSettings(env: Record<string, string | undefined>, randomSeed: () => number = () => Math.floor(Math.random() * 2 ** 31)): ChaosSettings {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(ChaosEnv.shape)) input[key] = env[key] === '' ? undefined : env[key];
  const parsed = ChaosEnv.safeParse(input);
  if (!parsed.success) throw new Error(`chaos: ${parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  const quick = e.CHAOS_QUICK;
  return {
    quick,
    tickets: e.CHAOS_TICKETS ?? (quick ? 12 : 36),
    killsPerRole: e.CHAOS_KILLS_PER_ROLE ?? (quick ? 1 : 3),
    brokerRestarts: 1,
    postgresRestarts: 1,
    stallMs: e.CHAOS_STALL_MS ?? Math.round(SESSION_TIMEOUT_MS * 1.5),
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    maxPauseMs: e.CHAOS_MAX_PAUSE_MS ?? (quick ? 4000 : 8000),
    quietTimeoutMs: (e.CHAOS_QUIET_TIMEOUT_S ?? (quick ? 150 : 600)) * 1000,
    seed: e.CHAOS_SEED ?? randomSeed(),
    database: e.CHAOS_DATABASE ?? 'aoc_chaos',
    skipBuild: e.CHAOS_SKIP_BUILD,
    replicas: e.CHAOS_REPLICAS ?? 1,
  };
}

/** mulberry32: a small, seedable generator (reproducible schedules). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A kill hits one replica (0-based) of the role; the role's other replicas keep running. */
export type ChaosEvent = { kind: 'kill'; role: Role; replica: number; downMs: number } | { kind: 'broker-restart'; downMs: number } | { kind: 'postgres-restart' };

export interface Submission {
  /** Index into the bundled examples. */
  example: number;
  ticketKey: string;
}

/** Tickets submitted (and accepted), then a random pause so their work is in flight, then one fault. */
export interface ChaosStep {
  submissions: Submission[];
  pauseMs: number;
  fault: ChaosEvent | null;
}

export interface ChaosPlan {
  steps: ChaosStep[];
}

/**
 * The random schedule: every role killed `killsPerRole` times, the broker and Postgres restarted,
 * in a shuffled order (the provider-executor's first kill in the second half, after the stalled
 * call). With replicas, each kill hits one replica of the role, the role's kills going round its
 * replicas from a random one, so the others carry on and take over its partitions. Before each fault a share of the tickets is submitted and a random pause lets their work
 * get under way, so every fault hits work in flight; the last share arrives after the last fault.
 */
export function chaosPlan(settings: ChaosSettings, examples: number): ChaosPlan {
  const random = seededRandom(settings.seed);
  const between = (from: number, to: number) => Math.round(from + random() * (to - from));
  const shuffle = <T>(items: T[]): T[] => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  };
  const faults: ChaosEvent[] = [];
  for (const role of ROLES) {
    // No draw with one replica: a seed gives the schedule it gave before replicas existed.
    const firstReplica = settings.replicas > 1 ? Math.floor(random() * settings.replicas) : 0;
    for (let k = 0; k < settings.killsPerRole; k++) faults.push({ kind: 'kill', role, replica: (firstReplica + k) % settings.replicas, downMs: between(300, 3000) });
  }
  for (let k = 0; k < settings.brokerRestarts; k++) faults.push({ kind: 'broker-restart', downMs: between(1000, 5000) });
  for (let k = 0; k < settings.postgresRestarts; k++) faults.push({ kind: 'postgres-restart' });
  shuffle(faults);
  const firstExecutorKill = faults.findIndex((f) => f.kind === 'kill' && f.role === 'provider-executor');
  const half = Math.floor(faults.length / 2);
  if (firstExecutorKill >= 0 && firstExecutorKill < half) {
    const j = between(half, faults.length - 1);
    [faults[firstExecutorKill], faults[j]] = [faults[j], faults[firstExecutorKill]];
  }

  const order = shuffle(Array.from({ length: examples }, (_, i) => i));
  const submissions: Submission[] = Array.from({ length: settings.tickets }, (_, i) => ({ example: order[i % order.length], ticketKey: `CHAOS-${i + 1}` }));
  const slots = faults.length + 1;
  const steps: ChaosStep[] = [];
  for (let i = 0; i < slots; i++) {
    const from = Math.floor((i * submissions.length) / slots);
    const to = Math.floor(((i + 1) * submissions.length) / slots);
    steps.push({ submissions: submissions.slice(from, to), pauseMs: between(300, settings.maxPauseMs), fault: faults[i] ?? null });
  }
  return { steps };
}

/** What one topic holds for one run: distinct messages (by message id) and records (a relay may send a message twice). */
export interface TopicTally {
  messageIds: Set<string>;
  records: number;
}

export interface ChaosObservation {
  tickets: number;
  /** Run ids the router's API returned. */
  acceptedByApi: string[];
  /** Every run in the router's table (the database is the suite's own): status and whether the Judge should judge it. */
  runs: { runId: string; status: string; expectJudged: boolean; openThreads: number }[];
  topics: { published: Map<string, TopicTally>; executionRecorded: Map<string, TopicTally>; judged: Map<string, TopicTally> };
  /** Rows per run in the consumers' tables. */
  tables: { reporterRuns: Map<string, number>; reporterExecutions: Map<string, number>; reporterEvaluations: Map<string, number>; judgeEvaluations: Map<string, number> };
  pendingOutbox: Record<string, number>;
  lag: Record<string, number>;
  deadLetters: { id: string; topic: string; errorCode: string; consumerGroup: string; reason: string }[];
}

export interface ChaosVerdict {
  counts: {
    tickets: number;
    accepted: number;
    published: number;
    executionRecorded: number;
    judged: number;
    expectedJudged: number;
    duplicates: number;
    lost: number;
    stuck: number;
    deadLetters: number;
    /** Records beyond the first of one message (at-least-once relay after a crash): expected, not a violation. */
    redundantRecords: number;
  };
  violations: string[];
}


/**
 * The invariants: every accepted run has exactly one `run.published` and one
 * `run.execution-recorded`, and exactly one `evaluation.judged` when its ticket holds a human
 * answer (none otherwise); the consumers' tables agree; nothing is left in a non-terminal status,
 * in an outbox, behind a consumer group or in a dead-letter queue.
 */
export function verifyChaos(o: ChaosObservation): ChaosVerdict {
  const violations: string[] = [];
  let duplicates = 0;
  let lost = 0;
  let redundant = 0;
  const known = new Set(o.runs.map((r) => r.runId));
  const missingRuns = o.acceptedByApi.filter((id) => !known.has(id));
  for (const id of missingRuns) violations.push(`lost: run ${id} was accepted by the API but is not in router.runs`);
  lost += missingRuns.length;

  const topic = (name: string, tallies: Map<string, TopicTally>, expected: (run: ChaosObservation['runs'][number]) => number) => {
    let distinct = 0;
    for (const run of o.runs) {
      const t = tallies.get(run.runId);
      const n = t?.messageIds.size ?? 0;
      distinct += n;
      redundant += t ? t.records - t.messageIds.size : 0;
      const want = expected(run);
      if (n > want) {
        duplicates += n - want;
        violations.push(`duplicate: ${n} distinct ${name} messages for run ${run.runId} (expected ${want})`);
      } else if (n < want) {
        lost += want - n;
        violations.push(`lost: no ${name} for run ${run.runId}`);
      }
    }
    for (const runId of tallies.keys()) if (!known.has(runId) && o.acceptedByApi.includes(runId)) violations.push(`${name} for run ${runId} unknown to router.runs`);
    return distinct;
  };
  const published = topic('run.published', o.topics.published, () => 1);
  const executionRecorded = topic('run.execution-recorded', o.topics.executionRecorded, () => 1);
  const judged = topic('evaluation.judged', o.topics.judged, (r) => (r.expectJudged ? 1 : 0));

  const table = (name: string, rows: Map<string, number>, expected: (run: ChaosObservation['runs'][number]) => number) => {
    for (const run of o.runs) {
      const n = rows.get(run.runId) ?? 0;
      const want = expected(run);
      if (n > want) {
        duplicates += n - want;
        violations.push(`duplicate: ${n} rows in ${name} for run ${run.runId} (expected ${want})`);
      } else if (n < want) {
        lost += want - n;
        violations.push(`lost: no row in ${name} for run ${run.runId}`);
      }
    }
  };
  table('reporter.published_runs', o.tables.reporterRuns, () => 1);
  table('reporter.run_executions', o.tables.reporterExecutions, () => 1);
  table('reporter.evaluations', o.tables.reporterEvaluations, (r) => (r.expectJudged ? 1 : 0));
  table('judge.evaluations (published)', o.tables.judgeEvaluations, (r) => (r.expectJudged ? 1 : 0));

  let stuck = 0;
  for (const run of o.runs) {
    if (run.status !== 'published') {
      stuck++;
      violations.push(`stuck: run ${run.runId} is ${run.status}`);
    } else if (run.openThreads > 0) {
      stuck++;
      violations.push(`stuck: run ${run.runId} is published with ${run.openThreads} scenario thread(s) not concluded`);
    }
  }
  for (const [schema, n] of Object.entries(o.pendingOutbox)) {
    if (n > 0) {
      stuck += n;
      violations.push(`stuck: ${n} unsent row(s) in ${schema}.bus_outbox`);
    }
  }
  for (const [group, n] of Object.entries(o.lag)) {
    if (n > 0) {
      stuck += n;
      violations.push(`stuck: consumer group ${group} is ${n} message(s) behind`);
    }
  }
  for (const d of o.deadLetters) violations.push(`dead letter ${d.id}: ${d.errorCode} in ${d.consumerGroup} (${d.reason})`);
  if (o.acceptedByApi.length < o.tickets) violations.push(`only ${o.acceptedByApi.length} of ${o.tickets} tickets were accepted`);

  return {
    counts: {
      tickets: o.tickets,
      accepted: o.runs.length,
      published,
      executionRecorded,
      judged,
      expectedJudged: o.runs.filter((r) => r.expectJudged).length,
      duplicates,
      lost,
      stuck,
      deadLetters: o.deadLetters.length,
      redundantRecords: redundant,
    },
    violations,
  };
}

/** Tallies the records of one topic by the run id of their payload, for the runs asked about. */
export function tallyByRun(values: readonly Buffer[], runs: ReadonlySet<string>): Map<string, TopicTally> {
  const out = new Map<string, TopicTally>();
  for (const value of values) {
    let envelope: { messageId?: unknown; payload?: { runId?: unknown } };
    try {
      envelope = JSON.parse(value.toString('utf8')) as typeof envelope;
    } catch {
      continue;
    }
    const runId = envelope.payload?.runId;
    if (typeof runId !== 'string' || !runs.has(runId) || typeof envelope.messageId !== 'string') continue;
    const t = out.get(runId) ?? { messageIds: new Set<string>(), records: 0 };
    t.messageIds.add(envelope.messageId);
    t.records++;
    out.set(runId, t);
  }
  return out;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Keys a parent environment may hold for a role; the suite sets its own and drops the rest. */
const ROLE_KEYS = /^(AOC_|KAFKA_|OTEL_|DATABASE_URL$|PORT$|MANAGEMENT_PORT$|DB_|LOG_LEVEL$)/;

/**
 * The environment of one role process: as deploy/local/run-distributed.sh starts it (Kafka with the
 * role's principal, the suite's database, replayed evidence), on a port of its own, with the
 * consumer start position explicit. Inherited role settings are dropped (AOC_CACHE_DIR is kept).
 */
export function roleEnvironment(
  role: Role,
  o: { port: number; databaseUrl: string; brokers: readonly string[]; credentials: Record<string, string>; base: Record<string, string | undefined> },
): Record<string, string> {
  const up = role.toUpperCase().replace(/-/g, '_');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.base)) if (v !== undefined && (!ROLE_KEYS.test(k) || k === 'AOC_CACHE_DIR')) env[k] = v;
  return {
    ...env,
    NODE_OPTIONS: '',
    AOC_TRANSPORT: 'kafka',
    KAFKA_BROKERS: o.brokers.join(','),
    KAFKA_SASL_USERNAME: o.credentials[`AOC_KAFKA_USERNAME_${up}`] ?? principalName(role),
    KAFKA_SASL_PASSWORD: o.credentials[`AOC_KAFKA_PASSWORD_${up}`] ?? `${role}-local-secret`,
    AOC_KAFKA_START_FROM: 'earliest',
    DATABASE_URL: o.databaseUrl,
    PORT: String(o.port),
    MANAGEMENT_PORT: String(o.port),
    LOG_LEVEL: 'info',
    AOC_EVIDENCE_MODE: 'replay',
    AOC_SHUTDOWN_TIMEOUT_MS: '15000',
  };
}
