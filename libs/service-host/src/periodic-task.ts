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

  start(intervalMs: number, pass: () => Promise<unknown>): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = pass()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn(`${this.name} failed`, { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          this.running = null;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
