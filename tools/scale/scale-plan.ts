import { readFileSync, readdirSync } from 'node:fs';
import { ROLES } from '@aoc/contracts';
import { z } from 'zod';
import { MAX_REPLICAS } from '../chaos/chaos-plan';

// The scale benchmark's pure parts: its settings, the interleaved order of its rounds, CPU time
// from /proc, and the summary over the rounds. The orchestration is in scale.ts.

const count = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

export const ScaleEnv = z.object({
  /** Tickets posted per round (the router takes 60 a minute per caller and process). */
  SCALE_TICKETS: count(1, 60),
  /** Rounds of each replica count, interleaved. */
  SCALE_ROUNDS: count(1, 10),
  /** The scaled-out replica count compared with one replica per role. */
  SCALE_REPLICAS: count(2, MAX_REPLICAS),
  SCALE_TIMEOUT_S: count(30, 3600),
  /** Seconds of measured idleness before the tickets are posted (what the replicas cost doing nothing). */
  SCALE_IDLE_S: count(1, 120),
  SCALE_DATABASE: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a database name ([a-z_][a-z0-9_]*)').optional(),
});

export interface ScaleSettings {
  tickets: number;
  rounds: number;
  replicas: number;
  timeoutMs: number;
  idleMs: number;
  database: string;
}

export function scaleSettings(env: Record<string, string | undefined>): ScaleSettings {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(ScaleEnv.shape)) input[key] = env[key] === '' ? undefined : env[key];
  const parsed = ScaleEnv.safeParse(input);
  if (!parsed.success) throw new Error(`bench:scale: ${parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  return {
    tickets: e.SCALE_TICKETS ?? 24,
    rounds: e.SCALE_ROUNDS ?? 2,
    replicas: e.SCALE_REPLICAS ?? 2,
    timeoutMs: (e.SCALE_TIMEOUT_S ?? 600) * 1000,
    idleMs: (e.SCALE_IDLE_S ?? 5) * 1000,
    database: e.SCALE_DATABASE ?? 'aoc_scale',
  };
}

/** Replicas per role of each round: 1, N, 1, N, ... so that background load falls on both alike. */
export function roundOrder(s: Pick<ScaleSettings, 'rounds' | 'replicas'>): number[] {
  return Array.from({ length: s.rounds * 2 }, (_, i) => (i % 2 === 0 ? 1 : s.replicas));
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** utime + stime of a `/proc/<pid>/stat` line, in clock ticks (the command name may hold spaces and parentheses). */
export function statTicks(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime and stime are fields 14 and 15.
  return Number(rest[11]) + Number(rest[12]);
}

/** Busy and total ticks of all CPUs from the first line of /proc/stat (idle and iowait are not busy). */
export function machineTicks(procStat: string): { busy: number; total: number } {
  const fields = procStat.split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

/** CPU ticks of each live process (pid -> ticks) and of the machine, at one moment. */
export interface CpuSnapshot {
  at: number;
  pids: Map<number, number>;
  comm: Map<number, string>;
  machine: { busy: number; total: number };
}

export function cpuSnapshot(): CpuSnapshot {
  const pids = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      pids.set(Number(entry), statTicks(stat));
      comm.set(Number(entry), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      // gone meanwhile
    }
  }
  return { at: Date.now(), pids, comm, machine: machineTicks(readFileSync('/proc/stat', 'utf8')) };
}

/** Ticks the given processes used between two snapshots (a process born meanwhile counts from 0; one that died is lost). */
export function ticksBetween(from: CpuSnapshot, to: CpuSnapshot, pids: Iterable<number>): number {
  let n = 0;
  for (const pid of pids) {
    const end = to.pids.get(pid);
    if (end !== undefined) n += end - (from.pids.get(pid) ?? 0);
  }
  return n;
}

/** One measured round. CPU in seconds over the measured window, by who used it. */
export interface RoundResult {
  replicas: number;
  tickets: number;
  seconds: number;
  cpu: Record<string, number>;
  /** Busy share of all cores over the window (1 = every core busy the whole time). */
  busy: number;
  idle: { cpu: Record<string, number>; busy: number; seconds: number };
}

export interface ScaleSummary {
  replicas: number[];
  median: Map<number, { ticketsPerSecond: number; seconds: number; busy: number; idleBusy: number; cpu: Record<string, number>; cpuPerTicket: number; idleCpu: Record<string, number> }>;
  /** Median tickets/s with N replicas per role over the median with one. */
  ratio: number;
}

/** What serves the tickets: the roles, the broker and Postgres (not this process, not the rest of the machine). */
const SYSTEM = new Set<string>([...ROLES, 'kafka', 'postgres']);

const medianOfEach = (records: Record<string, number>[]): Record<string, number> => {
  const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => [k, median(records.map((r) => r[k] ?? 0))]));
};

export function summarize(results: readonly RoundResult[]): ScaleSummary {
  const replicas = [...new Set(results.map((r) => r.replicas))].sort((a, b) => a - b);
  const out: ScaleSummary['median'] = new Map();
  for (const n of replicas) {
    const rs = results.filter((r) => r.replicas === n);
    const cpu = medianOfEach(rs.map((r) => r.cpu));
    out.set(n, {
      ticketsPerSecond: median(rs.map((r) => r.tickets / r.seconds)),
      seconds: median(rs.map((r) => r.seconds)),
      busy: median(rs.map((r) => r.busy)),
      idleBusy: median(rs.map((r) => r.idle.busy)),
      cpu,
      cpuPerTicket: median(rs.map((r) => Object.entries(r.cpu).reduce((a, [k, v]) => a + (SYSTEM.has(k) ? v : 0), 0) / r.tickets)),
      idleCpu: medianOfEach(rs.map((r) => Object.fromEntries(Object.entries(r.idle.cpu).map(([k, v]) => [k, v / r.idle.seconds])))),
    });
  }
  const one = out.get(1)?.ticketsPerSecond ?? Number.NaN;
  const most = out.get(replicas[replicas.length - 1])?.ticketsPerSecond ?? Number.NaN;
  return { replicas, median: out, ratio: most / one };
}
