import type { DeliveryResult } from '@rp/contracts';

/**
 * What an HTTP answer means for a delivery (spec section 7 and the architecture's delivery semantics):
 * 202 is the bank's acknowledgement; 408, 425, 429 and 5xx are retried; every other 4xx is final, since
 * sending the same message again cannot change the answer. Any other status (1xx, 2xx other than 202,
 * 3xx) is not an acknowledgement either, and retrying would not change it: final, and visible to
 * operators as a delivery failure.
 */
export function classifyStatus(status: number): Exclude<DeliveryResult, 'UNKNOWN'> {
  if (status === 202) return 'ACKNOWLEDGED';
  if (status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599)) {
    return 'RETRYABLE_FAILURE';
  }
  return 'FINAL_FAILURE';
}

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 10.2.3). Undefined
 * when absent or unreadable; never negative; capped at `maxMs` so a bank cannot park a message for days.
 */
export function parseRetryAfter(value: string | undefined, now: Date, maxMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1_000, maxMs);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), maxMs);
}

export interface BackoffPolicy {
  /** Upper bound of the first retry's delay. */
  readonly baseMs: number;
  /** Largest upper bound any retry's delay has. */
  readonly maxMs: number;
}

/**
 * Exponential backoff with full jitter: the delay after failed attempt `attempt` (1-based) is uniform in
 * [0, min(max, base * 2^(attempt-1))), so retries of many messages spread out instead of arriving at a
 * recovering bank together.
 */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 30));
  return Math.floor(random() * ceiling);
}

/**
 * When the next attempt is due after failed attempt `attempt`: the jittered backoff, but never before the
 * bank's Retry-After. Undefined when that is at or past the deadline (the reconciliation window's close):
 * retries stop and the transaction is left for reconciliation.
 */
export function nextAttemptAt(
  policy: BackoffPolicy,
  attempt: number,
  now: Date,
  deadline: Date,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): Date | undefined {
  const delay = Math.max(backoffDelay(policy, attempt, random), retryAfterMs ?? 0);
  const at = new Date(now.getTime() + delay);
  return at >= deadline ? undefined : at;
}
