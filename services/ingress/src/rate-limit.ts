/** The answer for one message: go ahead, or wait this long before trying again. */
export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

export interface RateLimitOptions {
  /** Messages per second each sender may send, sustained. */
  readonly perSecond: number;
  /** Messages a sender may send at once after being quiet. */
  readonly burst: number;
  /** Senders remembered; the least recently seen are forgotten first (a forgotten one starts full). */
  readonly maxSenders?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per sender (a bank's member id or a scheme's id): one sender's flood cannot take the
 * capacity the others need. Time is passed in, so the decisions are exact and testable.
 */
export class SenderRateLimiter {
  readonly #options: Required<RateLimitOptions>;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions) {
    if (!(options.perSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError('a rate limit needs a positive rate and a burst of at least one');
    }
    this.#options = { maxSenders: 10_000, ...options };
  }

  take(sender: string, nowMs: number): RateDecision {
    const { perSecond, burst } = this.#options;
    const bucket = this.#buckets.get(sender) ?? { tokens: burst, at: nowMs };
    this.#buckets.delete(sender);
    bucket.tokens = Math.min(burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * perSecond);
    bucket.at = nowMs;
    this.#buckets.set(sender, bucket);
    if (this.#buckets.size > this.#options.maxSenders) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / perSecond) * 1000) };
  }
}
