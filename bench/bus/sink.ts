// Bus benchmark: arrivals. Which sequence numbers reached a handler, and who waits for them.

export interface RangeWatch {
  lo: number;
  hi: number;
  need: number;
  count: number;
  resolve: () => void;
}

/** Records which message sequence numbers reached a handler, and wakes whoever waits for them. */
export class Sink {
  private readonly seen = new Set<number>();
  private readonly waiters = new Map<number, () => void>();
  private ranges: RangeWatch[] = [];
  duplicates = 0;

  get received(): number {
    return this.seen.size;
  }

  arrive(seq: number): void {
    if (this.seen.has(seq)) {
      this.duplicates++;
      return;
    }
    this.seen.add(seq);
    const waiter = this.waiters.get(seq);
    if (waiter) {
      this.waiters.delete(seq);
      waiter();
    }
    if (this.ranges.length > 0) {
      for (const r of this.ranges) if (seq >= r.lo && seq < r.hi) r.count++;
      this.settleRanges();
    }
  }

  /** Resolves when `seq` has arrived (immediately if it already has). */
  next(seq: number): Promise<void> {
    if (this.seen.has(seq)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(seq, resolve));
  }

  /** Resolves once `need` distinct sequence numbers of [lo, hi) have arrived (default: all). */
  range(lo: number, hi: number, need = hi - lo): Promise<void> {
    return new Promise((resolve) => {
      let count = 0;
      for (let s = lo; s < hi; s++) if (this.seen.has(s)) count++;
      this.ranges.push({ lo, hi, need, count, resolve });
      this.settleRanges();
    });
  }

  countIn(lo: number, hi: number): number {
    let count = 0;
    for (let s = lo; s < hi; s++) if (this.seen.has(s)) count++;
    return count;
  }

  private settleRanges(): void {
    const done = this.ranges.filter((r) => r.count >= r.need);
    if (done.length === 0) return;
    this.ranges = this.ranges.filter((r) => r.count < r.need);
    for (const r of done) r.resolve();
  }
}
