// Pipeline benchmark: what one transport's part measured, and its floors from bench/bus.
import type { Sizes } from '../bus/config';
import { PartialFailure, type KafkaOutcome } from '../bus/kafka';
import type { Result, TransportName } from '../bus/measure';
import { errorText } from '../bus/phase';
import type { PipelineResult } from './drive';

export interface Part {
  transport: TransportName;
  pipeline?: PipelineResult;
  /** bench/bus "floor": the raw transport, no-op handler */
  raw?: Result;
  /** bench/bus "bus": the platform bus (validation, outbox, relay, inbox in Postgres), no-op handler */
  bus?: Result;
  notes: string[];
  failures: string[];
}

export type FloorRun = () => Promise<KafkaOutcome>;

/**
 * Runs bench/bus's floors with their throughput run sized to the chain messages of the pipeline's
 * throughput run (same transport, same number of messages, a no-op handler). Their latency runs
 * keep bench/bus's sizes.
 */
export async function measureFloors(part: Part, sizes: Sizes, runs: FloorRun[]): Promise<void> {
  if (!part.pipeline) return;
  sizes.m = Math.max(1, part.pipeline.chainMessages);
  for (const run of runs) {
    try {
      keep(part, await run());
    } catch (error) {
      if (error instanceof PartialFailure) keep(part, { results: error.results, notes: error.notes });
      part.failures.push(`${part.transport} floor: ${errorText(error instanceof PartialFailure ? error.reason : error)}`);
    }
  }
}

function keep(part: Part, outcome: KafkaOutcome): void {
  for (const r of outcome.results) {
    if (r.variant === 'floor') part.raw = r;
    else part.bus = r;
  }
  part.notes.push(...outcome.notes);
}

export const single =
  (run: () => Promise<Result>): FloorRun =>
  async () => ({ results: [await run()], notes: [] });
