// Per-IP request budgets of the HTTP API (the spec's Limits: `/info` 1,200 requests a minute per
// IP): a token bucket per IP that refills continuously; idle buckets are dropped.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep: number;

  constructor(
    /** Requests allowed per minute (also the burst). */
    private readonly perMinute: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.lastSweep = now();
  }

  /** 0 when the request may go; otherwise the seconds to wait before retrying. */
  take(ip: string): number {
    const now = this.now();
    const rate = this.perMinute / 60_000;
    if (now - this.lastSweep > 60_000) this.sweep(now, rate);
    let b = this.buckets.get(ip);
    if (b === undefined) this.buckets.set(ip, (b = { tokens: this.perMinute, at: now }));
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  private sweep(now: number, rate: number): void {
    this.lastSweep = now;
    for (const [ip, b] of this.buckets) if (b.tokens + (now - b.at) * rate >= this.perMinute) this.buckets.delete(ip);
  }
}
