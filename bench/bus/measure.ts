// Bus benchmark: per-hop latency and throughput of one subject (floor or bus).
import { performance } from 'node:perf_hooks';
import { BATCH, progress, type Sizes } from './config';
import { inPhase } from './phase';
import type { Sink } from './sink';
import { diff, snapshot, type SqlStats, type WarmupStats } from './sql-stats';

export type TransportName = 'in-process' | 'kafka';
export type VariantName = 'floor' | 'bus';

export interface Subject {
  transport: TransportName;
  variant: VariantName;
  sink: Sink;
  publishOne(seq: number): Promise<void>;
  publishBatch(seqs: number[]): Promise<void>;
  sql?: SqlStats;
}

export interface Result {
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
export const allocate = (): number => nextSeq++;

/** Reserves `count` consecutive sequence numbers and returns the first. */
export function reserve(count: number): number {
  const lo = nextSeq;
  nextSeq += count;
  return lo;
}

export function label(s: { transport: TransportName; variant: VariantName }): string {
  return `${s.transport} ${s.variant}`;
}

export function perMessage(delta: SqlStats | undefined, count: number): SqlStats | undefined {
  if (!delta || count <= 0) return undefined;
  return { statements: delta.statements / count, runners: delta.runners / count, execMs: delta.execMs / count, acquireMs: delta.acquireMs / count };
}

export async function measure(subject: Subject, sizes: Sizes): Promise<Result> {
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
  const lo = reserve(sizes.m);
  const hi = lo + sizes.m;
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
