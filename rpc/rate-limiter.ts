// Token buckets, one per key (an IP, an address, an API key): capacity = the burst, refilled
// continuously at the rate per minute; a request takes its weight. Idle buckets are dropped.
// rpc/limits.ts builds every scope of the API's rate limits on this.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep: number;
  /** Tokens refilled per millisecond. */
  private readonly rate: number;

  constructor(
    /** Tokens refilled per minute; 0 turns the limiter off (everything passes). */
    readonly perMinute: number,
    private readonly now: () => number = () => Date.now(),
    /** Bucket capacity: the most a client may send at once after idling (default: a minute's worth). */
    readonly burst: number = perMinute,
  ) {
    this.lastSweep = now();
    this.rate = perMinute / 60_000;
  }

  get enabled(): boolean {
    return this.perMinute > 0 && this.burst > 0;
  }

  /**
   * Takes `weight` tokens: 0 when the request may go; otherwise the whole seconds to wait before
   * it would (nothing is taken then). A weight above the burst waits for a full bucket.
   */
  take(key: string, weight = 1): number {
    if (!this.enabled) return 0;
    const w = Math.min(weight, this.burst);
    const b = this.refill(key);
    if (b.tokens >= w) {
      b.tokens -= w;
      return 0;
    }
    return Math.max(1, Math.ceil((w - b.tokens) / this.rate / 1000));
  }

  /**
   * Takes `weight` more tokens after the fact (a response that turned out large), whatever is
   * left: the bucket may go below zero, so the client's next requests wait for it.
   */
  charge(key: string, weight: number): void {
    if (!this.enabled || weight <= 0) return;
    const b = this.refill(key);
    b.tokens = Math.max(b.tokens - weight, -this.burst);
  }

  private refill(key: string): { tokens: number; at: number } {
    const now = this.now();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    let b = this.buckets.get(key);
    if (b === undefined) this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    b.tokens = Math.min(this.burst, b.tokens + Math.max(0, now - b.at) * this.rate);
    b.at = now;
    return b;
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) * this.rate >= this.burst) this.buckets.delete(key);
  }
}
