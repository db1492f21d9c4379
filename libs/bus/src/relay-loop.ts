/** Outbox rows one relay call sends at most; a shorter batch means the outbox is drained. */
export const RELAY_BATCH = 200;

/**
 * Drives the outbox relay: one pass at a time, each sending batches until one comes back short. A
 * kick during a pass asks for one more pass after it (rows may have been committed meanwhile)
 * instead of a second concurrent one, so rows of a topic leave in commit order.
 */
export class RelayLoop {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Sends up to `limit` rows; resolves with how many it sent. */
    private readonly relayBatch: (limit: number) => Promise<number>,
    /** A failed pass is reported here; the next kick (or tick) tries again. */
    private readonly onFailure: (error: unknown) => void,
  ) {}

  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          // A short batch means the outbox is drained; another pass would only find nothing.
          let sent: number;
          do {
            sent = await this.relayBatch(RELAY_BATCH);
          } while (sent === RELAY_BATCH);
        } while (this.again);
      } catch (error) {
        this.onFailure(error);
      } finally {
        this.running = null;
      }
    })();
  }

  /** Resolves once everything committed before the call has been through a pass. */
  async flush(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  /** Sweeps every `intervalMs` for leftovers (rows of a crashed process, a failed pass), starting now. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => this.kick(), intervalMs);
    // The sweep alone never keeps the process alive.
    this.timer.unref();
    this.kick();
  }

  stopSweeping(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
