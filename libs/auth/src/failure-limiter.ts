/**
 * Slows token guessing: after `limit` refused credentials from one address within `windowMs`,
 * that address is refused outright until the window passes. In memory, per process.
 */
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limit = 20, private readonly windowMs = 60_000, private readonly now: () => number = Date.now) {}

  record(key: string): void {
    const recent = this.recent(key);
    recent.push(this.now());
    this.failures.set(key, recent);
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value as string);
  }

  blocked(key: string): boolean {
    return this.recent(key).length >= this.limit;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(key) ?? []).filter((t) => t > since);
  }
}
