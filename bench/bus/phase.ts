// Bus benchmark: timeouts. One watchdog per phase, no per-message timers on the measured path.
import { CLEANUP_TIMEOUT_MS, PHASE_TIMEOUT_MS, progress } from './config';

export function seconds(limitMs: number): string {
  return limitMs >= 10_000 ? `${(limitMs / 1000).toFixed(0)} s` : `${limitMs} ms`;
}

/** If `started` resolves after we gave up waiting for it, release what it produced. */
export function releaseIfLate<T>(started: Promise<T>, release: (value: T) => Promise<unknown>): void {
  started.then(release).catch(() => undefined);
}

export class StallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StallError';
  }
}

export class Phase {
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

export async function inPhase<T>(name: string, body: (phase: Phase) => Promise<T>, limitMs = PHASE_TIMEOUT_MS): Promise<T> {
  const phase = new Phase(name, limitMs);
  try {
    return await body(phase);
  } finally {
    phase.end();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with the value, or rejects after `ms` (used for connection attempts and cleanup). */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
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

export function errorText(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(errorText).join('; ') || error.message;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Teardown steps, run in reverse order, each bounded; failures are reported, not thrown. */
export class Cleanup {
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
