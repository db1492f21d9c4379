// Pipeline benchmark: sizes and knobs, from the environment (endpoints and BENCH_QUICK come from bench/bus).
import { QUICK, intEnv } from '../bus/config';

export interface PipelineSizes {
  /** tickets run one at a time before anything is measured (JIT, PGlite, consumer group joins) */
  warm: number;
  /** tickets run one at a time, each alone in the platform: unloaded end-to-end latency */
  unloaded: number;
  /** tickets of the throughput run */
  tickets: number;
  /** at most this many of them in flight at once */
  inFlight: number;
}

function sizes(prefix: string, quick: PipelineSizes, full: PipelineSizes): PipelineSizes {
  const base = QUICK ? quick : full;
  return {
    warm: intEnv(`${prefix}_WARMUP`, base.warm),
    unloaded: intEnv(`${prefix}_UNLOADED`, base.unloaded),
    tickets: Math.max(1, intEnv(`${prefix}_N`, base.tickets)),
    inFlight: Math.max(1, intEnv(`${prefix}_IN_FLIGHT`, base.inFlight)),
  };
}

export const MEM_PIPELINE = sizes('BENCH_PIPELINE', { warm: 8, unloaded: 8, tickets: 40, inFlight: 16 }, { warm: 20, unloaded: 30, tickets: 200, inFlight: 16 });
export const KAFKA_PIPELINE = sizes('BENCH_PIPELINE_KAFKA', { warm: 3, unloaded: 5, tickets: 16, inFlight: 8 }, { warm: 5, unloaded: 15, tickets: 60, inFlight: 8 });

/** After the last run.published: how long the chain topics must stay quiet before messages are counted. */
export const SETTLE_QUIET_MS = { 'in-process': 300, kafka: 1500 } as const;
/** Kafka: how long to wait for every role's consumer group to catch up before the platform stops. */
export const DRAIN_TIMEOUT_MS = intEnv('BENCH_PIPELINE_DRAIN_TIMEOUT_MS', 60_000);
