// Bus benchmark: sizes, knobs and endpoints, from the environment.
import { randomUUID } from 'node:crypto';

export const QUICK = process.env['BENCH_QUICK'] === '1';
export const SKIP_KAFKA = process.env['BENCH_SKIP_KAFKA'] === '1';

export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

export interface Sizes {
  /** latency samples */
  n: number;
  /** latency warm-up messages, not sampled */
  warm: number;
  /** throughput messages */
  m: number;
}

export const BATCH = Math.max(1, intEnv('BENCH_BATCH', 50));
export const PHASE_TIMEOUT_MS = intEnv('BENCH_PHASE_TIMEOUT_MS', 120_000);
export const CLEANUP_TIMEOUT_MS = 20_000;
export const MEM: Sizes = { n: intEnv('BENCH_N', QUICK ? 30 : 300), warm: intEnv('BENCH_WARMUP', QUICK ? 3 : 30), m: intEnv('BENCH_M', QUICK ? 200 : 2000) };
export const KAFKA: Sizes = {
  n: intEnv('BENCH_KAFKA_N', QUICK ? 20 : 200),
  warm: intEnv('BENCH_KAFKA_WARMUP', QUICK ? 2 : 20),
  m: intEnv('BENCH_KAFKA_M', QUICK ? 200 : 2000),
};
export const PARTITIONS = 6;
/** Store warm-up cycles (outbox insert + relay + inbox claim) before the bus is measured. */
export const STORE_WARMUP = intEnv('BENCH_STORE_WARMUP', QUICK ? 100 : 300);
export const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? process.env['AOC_KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',').map((b) => b.trim());
export const ADMIN_SASL = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };
export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/aoc_test';
export const RUN_TAG = randomUUID().replace(/-/g, '').slice(0, 8);

export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
