// Bus benchmark: SQL accounting. Wraps the DataSource's query runners; the bus itself is untouched.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DataSource, QueryRunner } from 'typeorm';
import type { PostgresBusStore } from '@aoc/bus';
import type { Phase } from './phase';
import { floorValue, keyOf } from './bench-topics';
import { percentile } from './report';

export interface SqlStats {
  statements: number;
  runners: number;
  /** summed time statements ran (sent -> result), ms */
  execMs: number;
  /** summed time statements waited for their runner's pooled connection, ms */
  acquireMs: number;
}

export type LooseQuery = (query: string, parameters?: unknown, structured?: boolean) => Promise<unknown>;

export function instrument(ds: DataSource): SqlStats {
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

export function snapshot(stats: SqlStats): SqlStats {
  return { ...stats };
}

export function diff(after: SqlStats, before: SqlStats): SqlStats {
  return {
    statements: after.statements - before.statements,
    runners: after.runners - before.runners,
    execMs: after.execMs - before.execMs,
    acquireMs: after.acquireMs - before.acquireMs,
  };
}

export interface WarmupStats {
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
export async function warmStore(store: PostgresBusStore, cycles: number, phase: Phase): Promise<WarmupStats> {
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
export async function txRoundTrip(ds: DataSource, phase: Phase, samples = 50): Promise<number[]> {
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
