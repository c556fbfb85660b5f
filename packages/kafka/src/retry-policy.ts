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

export type DeadLetterReason = 'retries-exhausted' | 'non-retriable' | 'poison';

export type FailureRoute =
  | { kind: 'retry'; tier: number; delayMs: number }
  | { kind: 'dead-letter'; reason: Exclude<DeadLetterReason, 'poison'> };

/** Where a record goes after its handler failed for the `failures`-th time. */
export function routeFailure(policy: RetryPolicy, failures: number, retriable: boolean): FailureRoute {
  if (!retriable) return { kind: 'dead-letter', reason: 'non-retriable' };
  if (failures >= policy.maxAttempts) return { kind: 'dead-letter', reason: 'retries-exhausted' };
  const tier = Math.min(failures, tierCount(policy));
  return { kind: 'retry', tier, delayMs: policy.delaysMs[tier - 1] ?? 0 };
}

/** A record of a parked key joins the queue on the first tier without having been tried. */
export function parkedRoute(policy: RetryPolicy): { tier: number; delayMs: number } {
  return { tier: 1, delayMs: policy.delaysMs[0] ?? 0 };
}
