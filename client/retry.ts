// When to send a request again, per the spec's error table: 429 after `retry_after`, 500 with
// backoff 1, 2, 4, 8 s (each wait at most 30 s), 503 after 5 to 10 s, never another 4xx.
import { ApiError, TransportError } from './errors.ts';

export interface RetryPolicy {
  /** Retries after a 500 (waits 1, 2, 4, 8 s, doubling, each at most `maxBackoffMs`). */
  readonly internalErrorRetries: number;
  readonly maxBackoffMs: number;
  /** Retries after a 429 (each after its `retry_after`). */
  readonly rateLimitRetries: number;
  /** Retries after a 503 (each after 5 to 10 s, spread at random so clients do not return together). */
  readonly unavailableRetries: number;
  /** Retries after a connection failure (backoff as for 500). */
  readonly connectionRetries: number;
  /** How to wait; tests pass one that records the delays. */
  readonly sleep: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the 503 spread. */
  readonly random: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  internalErrorRetries: 4,
  maxBackoffMs: 30_000,
  rateLimitRetries: 3,
  unavailableRetries: 3,
  connectionRetries: 2,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** No retries at all (a CLI that prefers to fail fast, tests of the first answer). */
export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY, internalErrorRetries: 0, rateLimitRetries: 0, unavailableRetries: 0, connectionRetries: 0 };

/**
 * The wait before retry number `attempt` (0-based count of retries of this kind so far) after
 * `err`, or null when the error is final.
 */
export function retryDelay(policy: RetryPolicy, err: unknown, attempt: number): number | null {
  if (err instanceof ApiError) {
    switch (err.status) {
      case 429:
        return attempt < policy.rateLimitRetries ? Math.max(0, err.retryAfter ?? 1) * 1000 : null;
      case 500:
        return attempt < policy.internalErrorRetries ? Math.min(1000 * 2 ** attempt, policy.maxBackoffMs) : null;
      case 503:
        return attempt < policy.unavailableRetries ? 5000 + Math.floor(policy.random() * 5000) : null;
      default:
        return null; // every other 4xx (and unknown status): fix the request, do not retry
    }
  }
  if (err instanceof TransportError) return attempt < policy.connectionRetries ? Math.min(1000 * 2 ** attempt, policy.maxBackoffMs) : null;
  return null;
}

/** Runs `send` until it succeeds or `retryDelay` says stop; counts retries per status. */
export async function withRetries<T>(policy: RetryPolicy, send: () => Promise<T>): Promise<T> {
  const attempts = new Map<string, number>();
  for (;;) {
    try {
      return await send();
    } catch (err) {
      const kind = err instanceof ApiError ? String(err.status) : err instanceof TransportError ? 'transport' : 'other';
      const n = attempts.get(kind) ?? 0;
      const wait = retryDelay(policy, err, n);
      if (wait === null) throw err;
      attempts.set(kind, n + 1);
      await policy.sleep(wait);
    }
  }
}
