// Pipeline benchmark: watches the chain's topics, counts each run's messages and notes when its answer is published.
import { performance } from 'node:perf_hooks';
import { Topics } from '@aoc/contracts';

/** The hops of the diagnosis chain, from intake to the published answer. */
export const CHAIN_TOPICS: readonly string[] = [
  Topics.ticketAnalysisRequested,
  Topics.scenarioSelected,
  Topics.evidenceRequested,
  Topics.evidenceBatchPlanned,
  Topics.evidenceBatchMaterialized,
  Topics.diagnosisHandoffConsumed,
  Topics.runPublished,
].map((t) => t.name);

/** Produced for each ticket alongside the chain but not on its path (nobody in the chain waits for them). */
export const SIDE_TOPICS: readonly string[] = [Topics.ticketTimelineUpdated, Topics.runExecutionRecorded].map((t) => t.name);

export const OBSERVED_TOPICS: readonly string[] = [...CHAIN_TOPICS, ...SIDE_TOPICS];

interface Envelope {
  runId?: string | null;
  payload?: { runId?: unknown; ticketKey?: unknown };
}

/**
 * Every message of the observed topics is attributed to its run (or, for the timeline, its
 * ticket) as it arrives, whoever produced it; the bench later keeps only its own runs. Keeping
 * all of them avoids a race: a run's first messages may arrive before `analyze()` returned its id.
 */
export class ChainObserver {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly published = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();
  private lastArrival = performance.now();
  observed = 0;

  arrive(topic: string, value: Buffer | null): void {
    const at = performance.now();
    let envelope: Envelope;
    try {
      envelope = JSON.parse((value ?? Buffer.alloc(0)).toString('utf8')) as Envelope;
    } catch {
      return;
    }
    const runId = envelope.runId ?? (typeof envelope.payload?.runId === 'string' ? envelope.payload.runId : undefined);
    const ticketKey = typeof envelope.payload?.ticketKey === 'string' ? envelope.payload.ticketKey : undefined;
    const owner = runId ?? (ticketKey ? `ticket:${ticketKey}` : undefined);
    if (!owner) return;
    this.observed++;
    this.lastArrival = at;
    const perTopic = this.counts.get(owner) ?? new Map<string, number>();
    perTopic.set(topic, (perTopic.get(topic) ?? 0) + 1);
    this.counts.set(owner, perTopic);
    if (topic === Topics.runPublished.name && runId && !this.published.has(runId)) {
      this.published.set(runId, at);
      const waiter = this.waiters.get(runId);
      if (waiter) {
        this.waiters.delete(runId);
        waiter(at);
      }
    }
  }

  /** Resolves with the time (performance.now()) the run's `run.published` was observed. */
  publishedAt(runId: string): Promise<number> {
    const at = this.published.get(runId);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.waiters.set(runId, resolve));
  }

  /** ms since the last observed message. */
  quietFor(): number {
    return performance.now() - this.lastArrival;
  }

  /** Messages per topic of the given runs and tickets. */
  tally(runIds: readonly string[], ticketKeys: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const owner of [...runIds, ...ticketKeys.map((k) => `ticket:${k}`)]) {
      for (const [topic, n] of this.counts.get(owner) ?? []) out.set(topic, (out.get(topic) ?? 0) + n);
    }
    return out;
  }
}

export function sumOver(counts: Map<string, number>, topics: readonly string[]): number {
  return topics.reduce((sum, t) => sum + (counts.get(t) ?? 0), 0);
}
