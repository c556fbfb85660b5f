import { RecentMap } from '@rp/runtime';

/** What this process knows of one message in store-and-forward. */
export interface RetryState {
  /** HTTP attempts made so far. */
  attempts: number;
  /** Not before this instant (backoff with jitter, or the bank's Retry-After). */
  nextAttemptAt?: Date;
  /** The first-attempt state change (…_DELIVERY_PENDING) is acknowledged. */
  pendingEmitted: boolean;
}

/**
 * The retry state of messages in store-and-forward, bounded (least recently used out first). It is a
 * hint, not the record: the message itself waits on the consumer's retry tiers. A process that lost the
 * hint (restart, eviction) makes the next attempt when the tier hands the record back, emits the
 * (idempotent) first-attempt state change again, and counts attempts from the record's delivery count.
 */
export class RetrySchedule extends RecentMap<string, RetryState> {}
