/**
 * How a consumer retries a record its handler failed. Attempt 1 is the delivery from the source topic;
 * after failure n (n < maxAttempts) the record waits on retry tier min(n, delaysMs.length) for that tier's
 * delay; after failure maxAttempts, or any failure that says `retriable: false`, it is dead-lettered.
 */
export interface RetryPolicy {
  /** Delay of each retry tier: tier i (1-based) waits `delaysMs[i - 1]`. The last tier repeats. */
  delaysMs: readonly number[];
  /** Handler invocations per record, the first delivery included. 1 means straight to the dead-letter topic. */
  maxAttempts: number;
}

export const defaultRetryPolicy: RetryPolicy = { delaysMs: [1_000, 10_000, 60_000], maxAttempts: 4 };

/**
 * For consumers whose records must never be dead-lettered for an outage (a debit that would never join
 * its queue, a bank's report that would never complete its debit): retried practically without end, at
 * most every 30 s, through an outage of MongoDB or Kafka longer than a business day. A failure that says
 * it is not retriable still goes to the dead-letter topic at once.
 */
export const outageRetryPolicy: RetryPolicy = { delaysMs: [1_000, 5_000, 30_000], maxAttempts: 100_000 };

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`retry maxAttempts must be a whole number of at least 1, not ${policy.maxAttempts}`);
  }
  if (policy.maxAttempts > 1 && policy.delaysMs.length === 0) {
    throw new RangeError('retry delaysMs needs at least one tier when maxAttempts is above 1');
  }
  for (const delay of policy.delaysMs) {
    if (!Number.isFinite(delay) || delay < 0)
      throw new RangeError(`retry delay ${delay} ms is not a valid delay`);
  }
  return policy;
}

/** Number of retry topics the policy needs (none when nothing is retried). */
export function tierCount(policy: RetryPolicy): number {
  return policy.maxAttempts > 1 ? Math.min(policy.delaysMs.length, policy.maxAttempts - 1) : 0;
}

/** Why a record was dead-lettered: its retries ran out, its handler refused it for good, or it is unreadable. */
export const deadLetterReasons = ['retries-exhausted', 'non-retriable', 'poison'] as const;
export type DeadLetterReason = (typeof deadLetterReasons)[number];

export type FailureRoute =
  | { kind: 'retry'; tier: number; delayMs: number }
  | { kind: 'dead-letter'; reason: Exclude<DeadLetterReason, 'poison'> };

/**
 * When a failed record can succeed again, as its handler knows it (a bank's pause, a backoff): an error
 * with a `retryInMs` of zero or more. Without one, the record's tier follows its failure count.
 */
export function retryHintOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('retryInMs' in error)) return undefined;
  const hint = (error as { retryInMs: unknown }).retryInMs;
  return typeof hint === 'number' && Number.isFinite(hint) && hint >= 0 ? hint : undefined;
}

/**
 * Where a record goes after its handler failed for the `failures`-th time. With `retryInMs`, the tier
 * with the longest delay that is not longer than it (the first tier when every delay is), so that the
 * record is looked at again when it can succeed, not a minute later because it failed often: at worst
 * a little early, and then it waits again for what is left. Without it, tier min(failures, tiers).
 */
export function routeFailure(
  policy: RetryPolicy,
  failures: number,
  retriable: boolean,
  retryInMs?: number,
): FailureRoute {
  if (!retriable) return { kind: 'dead-letter', reason: 'non-retriable' };
  if (failures >= policy.maxAttempts) return { kind: 'dead-letter', reason: 'retries-exhausted' };
  const tiers = tierCount(policy);
  const tier = retryInMs === undefined ? Math.min(failures, tiers) : tierWithin(policy, tiers, retryInMs);
  return { kind: 'retry', tier, delayMs: policy.delaysMs[tier - 1] ?? 0 };
}

function tierWithin(policy: RetryPolicy, tiers: number, retryInMs: number): number {
  let chosen: number | undefined;
  let shortest = 1;
  for (let tier = 1; tier <= tiers; tier += 1) {
    const delay = policy.delaysMs[tier - 1] ?? 0;
    if (delay <= retryInMs && (chosen === undefined || delay > (policy.delaysMs[chosen - 1] ?? 0))) {
      chosen = tier;
    }
    if (delay < (policy.delaysMs[shortest - 1] ?? 0)) shortest = tier;
  }
  return chosen ?? shortest;
}

/** A record of a parked key joins the queue on the first tier without having been tried. */
export function parkedRoute(policy: RetryPolicy): { tier: number; delayMs: number } {
  return { tier: 1, delayMs: policy.delaysMs[0] ?? 0 };
}
