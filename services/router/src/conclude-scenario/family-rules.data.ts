import { isMetricFamilyId } from '@aoc/metric-ontology';
import { readVersionedData } from '@aoc/versioned-data';
import { z } from 'zod';

/**
 * Family mechanism rules: versioned data the optimizer may change and replay
 * (`services/router/data/family-rules.json`, declared in the versioned-data manifest). The engine
 * in `family-rules.ts` reads these over metric families, so a rule fires on any exporter's names.
 * The advice texts and event families below stay in code: they are wording, not tunables.
 */
export const FAMILY_RULES_PATH = 'services/router/data/family-rules.json';

const Family = z.string().refine(isMetricFamilyId, 'must be a metric family of the ontology');
const Share = z.number().min(0).max(1);

export const FamilyRulesData = z
  .object({
    version: z.string().min(1).max(64),
    /** |robust shift| at which a series counts as deviating (the providers' reporting threshold). */
    deviationThreshold: z.number().min(1).max(20),
    /** And its level must move by at least this share of its usual level (when that is not 0). */
    minRelativeChange: Share,
    /**
     * Families that show what a problem looks like rather than why: the reported symptom (latency,
     * errors, availability), rollbacks and memory use. They lead only when nothing else moved, or
     * when they reached a limit or floor.
     */
    effectFamilies: z.array(Family).max(40),
    /** Throughput families: a drop in them is the workload stalling (an effect), a rise can be a cause. */
    throughputFamilies: z.array(Family).max(40),
    /**
     * Common causal paths between families: among changes that start together, one that usually
     * drives another is the cause and the other its effect (a path the red-herring rule also reads).
     */
    drives: z.record(Family, z.array(Family).max(40)),
    /** Changes that start within this share of the window (at least a minute) count as simultaneous. */
    simultaneity: z.object({ windowShare: Share, minMs: z.number().int().min(0).max(3_600_000) }).strict(),
    /** Changes starting this long before to this long after the customer's reported onset count as "around" it. */
    onsetWindow: z.object({ beforeMs: z.number().int().min(0).max(86_400_000), afterMs: z.number().int().min(0).max(86_400_000) }).strict(),
    /** A series is back to normal when its last value is within this share of its excursion from the baseline. */
    recoveredWithin: Share,
    /** A family approaching the family that bounds it (both measured): peak / limit at or above `ratio`. */
    limits: z.array(z.object({ family: Family, limit: Family, ratio: Share }).strict()).max(20),
    /** A utilisation in percent of its own capacity: a rise from below `from` to `at` or above is that capacity reached. */
    saturation: z.array(z.object({ family: Family, unit: z.literal('percent'), from: z.number().min(0).max(100), at: z.number().min(0).max(100) }).strict()).max(10),
    /** Session counts (gauges): a move smaller than `atLeast` sessions (4 -> 5 connections) is no change, whatever its ratio. */
    sessionMoves: z.object({ families: z.array(Family).max(10), atLeast: z.number().positive() }).strict(),
    /**
     * Levels too small to be a load on any database server whatever their change (a disk going
     * from 1 to 10 reads per second): a series of the family and unit whose peak stays below
     * `below` never deviates.
     */
    negligible: z.array(z.object({ family: Family, units: z.array(z.string().min(1).max(40)).min(1).max(8), below: z.number().positive() }).strict()).max(20),
    /** A family that runs out toward zero: its low falls to `ratio` of its starting value or below. */
    floors: z.array(z.object({ family: Family, ratio: Share }).strict()).max(20),
  })
  .strict();
export type FamilyRulesData = z.infer<typeof FamilyRulesData>;

const DATA = readVersionedData(FAMILY_RULES_PATH, FamilyRulesData);

export const FAMILY_RULES_VERSION = DATA.version;
export const DEVIATION_THRESHOLD = DATA.deviationThreshold;
export const MIN_RELATIVE_CHANGE = DATA.minRelativeChange;
export const EFFECT_FAMILIES: readonly string[] = DATA.effectFamilies;
export const THROUGHPUT_FAMILIES: readonly string[] = DATA.throughputFamilies;
export const DRIVES: Readonly<Record<string, readonly string[]>> = DATA.drives;
export const SIMULTANEITY = DATA.simultaneity;
export const ONSET_WINDOW = DATA.onsetWindow;
export const RECOVERED_WITHIN = DATA.recoveredWithin;
export const LIMITS: readonly { family: string; limit: string; ratio: number }[] = DATA.limits;
export const SATURATION: readonly { family: string; unit: 'percent'; from: number; at: number }[] = DATA.saturation;
export const FLOORS: readonly { family: string; ratio: number }[] = DATA.floors;
export const SESSION_MOVES: { families: readonly string[]; atLeast: number } = DATA.sessionMoves;
export const NEGLIGIBLE: readonly { family: string; units: readonly string[]; below: number }[] = DATA.negligible;

/** Families whose every move is an event: a start time moving forward is a restart, an uptime falling back is one too. */
export const EVENTS: readonly { family: string; when: 'rises' | 'resets'; says: string }[] = [
  { family: 'restarts', when: 'rises', says: 'the database restarted' },
  { family: 'uptime', when: 'resets', says: 'the database restarted (its uptime started again from zero)' },
];

export interface FamilyAdvice {
  /** What is still to be shown once the family is the leading cause. */
  openLink: string;
  mitigation: string;
}

/** Per-family open link and mitigation, in plain words; `default` for families not listed. */
export const FAMILY_ADVICE: Readonly<Record<string, FamilyAdvice>> = {
  connections: {
    openLink: 'which client, pool setting or deploy opened the extra connections',
    mitigation: 'Find the clients holding the connections (pg_stat_activity / SHOW PROCESSLIST by user and application), cap their pool size or put a connection pooler (PgBouncer, RDS Proxy, ProxySQL) in front; raise the connection limit only with memory headroom.',
  },
  active_sessions: {
    openLink: 'which statements keep the sessions busy',
    mitigation: 'Find the statements the active sessions run (top statements by total time) and index, batch or throttle them.',
  },
  storage_free: {
    openLink: 'what consumed the space (table growth, temporary files, WAL or binlog retention, a replication slot)',
    mitigation: 'Add storage now (or enable storage autoscaling), then find what grew: large tables, temporary files, retained WAL/binlogs or an inactive replication slot.',
  },
  storage_used: {
    openLink: 'what consumed the space (table growth, temporary files, WAL or binlog retention, a replication slot)',
    mitigation: 'Add storage now (or enable storage autoscaling), then find what grew: large tables, temporary files, retained WAL/binlogs or an inactive replication slot.',
  },
  replication_lag: {
    openLink: 'whether the replica is limited by its own resources, by long transactions on the primary, or by the write volume',
    mitigation: 'Check the replica\'s CPU and I/O and the primary\'s write rate; move long-running reads off the replica, or scale the replica class.',
  },
  cpu: {
    openLink: 'which statements consume the CPU, and whether they run more often or became more expensive',
    mitigation: 'Find the statements with the most CPU time (top statements by total time) and index, rewrite or throttle them, or scale the instance class.',
  },
  memory: {
    openLink: 'which sessions or caches took the memory',
    mitigation: 'Reduce per-session memory (work_mem / sort and join buffers), the connection count, or move to an instance class with more memory.',
  },
  swap: {
    openLink: 'which sessions or caches pushed the instance into swap',
    mitigation: 'Reduce memory use (per-session buffers, connection count) or move to an instance class with more memory; swapping slows every statement.',
  },
  iops: {
    openLink: 'which statements or jobs issue the extra I/O',
    mitigation: 'Find the statements reading or writing the most (full scans, bulk writes), index or throttle them, or provision more IOPS.',
  },
  io_throughput: {
    openLink: 'which statements or jobs move the extra data',
    mitigation: 'Find the job or statements moving the data (bulk loads, backups, full scans) and reschedule or throttle them, or provision more throughput.',
  },
  io_latency: {
    openLink: 'whether the storage hit its IOPS or throughput limit',
    mitigation: 'Check IOPS and throughput against the provisioned limits; move to faster storage or reduce the I/O the workload issues.',
  },
  io_queue: {
    openLink: 'whether the storage hit its IOPS or throughput limit',
    mitigation: 'Check IOPS and throughput against the provisioned limits; move to faster storage or reduce the I/O the workload issues.',
  },
  io_credits: {
    openLink: 'which workload drained the I/O burst credits',
    mitigation: 'Move to provisioned IOPS or a larger volume (more baseline IOPS), or reduce the sustained I/O.',
  },
  cpu_credits: {
    openLink: 'which workload drained the CPU credits',
    mitigation: 'Move off a burstable instance class (or enable unlimited mode), or reduce the sustained CPU load.',
  },
  lock_waits: {
    openLink: 'which transaction holds the locks the others wait for',
    mitigation: 'Find the blocking transaction (pg_locks with pg_blocking_pids / information_schema.innodb_lock_waits), end it, and shorten transactions or change their access order.',
  },
  locks: {
    openLink: 'which transaction holds the locks the others wait for',
    mitigation: 'Find the blocking transaction (pg_locks with pg_blocking_pids / information_schema.innodb_lock_waits), end it, and shorten transactions or change their access order.',
  },
  deadlocks: {
    openLink: 'which transactions deadlock and on which rows',
    mitigation: 'Read the deadlock report (the database log / SHOW ENGINE INNODB STATUS) and make the transactions take their locks in the same order.',
  },
  wal: {
    openLink: 'which writes generate the WAL / transaction log',
    mitigation: 'Find the bulk writes behind the log volume and batch or reschedule them; spread checkpoints (max_wal_size / innodb_log_file_size).',
  },
  checkpoints: {
    openLink: 'which writes force the frequent checkpoints or page flushing',
    mitigation: 'Spread checkpoints (raise max_wal_size or innodb_log_file_size, checkpoint_completion_target) and batch the bulk writes behind them.',
  },
  statement_rate: {
    openLink: 'which client or job sends the added statements',
    mitigation: 'Find the source of the added load (top statements, client applications), throttle or reschedule it, or scale the instance.',
  },
  commits: {
    openLink: 'which client or job sends the added transactions',
    mitigation: 'Find the source of the added transactions, batch or throttle it, or scale the instance.',
  },
  rows_read: {
    openLink: 'which statements read the extra rows (a missing index or a changed plan)',
    mitigation: 'Find the statements with the most rows examined and add the index they lack or fix the plan.',
  },
  rows_written: {
    openLink: 'which job writes the extra rows',
    mitigation: 'Find the bulk write job (an import, a restore, a backfill) and batch or reschedule it.',
  },
  network: {
    openLink: 'whether the network limit or a client moved the extra traffic',
    mitigation: 'Check the instance\'s network allowance and the clients moving the data; reduce result sizes or move to an instance class with more bandwidth.',
  },
  restarts: {
    openLink: 'why the database restarted (the database log, an out-of-memory kill, a maintenance or failover event)',
    mitigation: 'Read the database log and the provider\'s event list around the restart; make sure clients reconnect with retries.',
  },
  uptime: {
    openLink: 'why the database restarted (the database log, an out-of-memory kill, a maintenance or failover event)',
    mitigation: 'Read the database log and the provider\'s event list around the restart; make sure clients reconnect with retries.',
  },
  failover: {
    openLink: 'what triggered the failover (the provider\'s event list)',
    mitigation: 'Read the provider\'s event list for the failover cause; make sure clients reconnect to the cluster endpoint with retries.',
  },
  maintenance: {
    openLink: 'which maintenance job ran and whether it competed with the workload',
    mitigation: 'Move the maintenance job (vacuum, backup, analyze) to a quieter window or throttle it (vacuum cost limits, backup windows).',
  },
  errors: {
    openLink: 'which statements fail and with which error',
    mitigation: 'Read the error log for the failing statements and their error codes.',
  },
  default: {
    openLink: 'what drove this change and how it reaches the reported symptom',
    mitigation: 'Hand off to Support with the observations above to confirm what drove the change.',
  },
};
