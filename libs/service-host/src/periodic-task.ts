import type { Logger } from '@aoc/telemetry';

/**
 * A background pass run every `intervalMs` in this process: never two passes at once, a failing
 * pass is logged and the next one runs, and `stop()` waits for the pass in flight. The timer does
 * not keep the process alive on its own.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Runs `pass` every `intervalMs`; with `immediately`, once right away too. */
  start(intervalMs: number, pass: () => Promise<unknown>, options: { immediately?: boolean } = {}): void {
    const tick = () => {
      if (this.running) return;
      this.running = pass()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn(`${this.name} failed`, { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          this.running = null;
        });
    };
    if (options.immediately) tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
