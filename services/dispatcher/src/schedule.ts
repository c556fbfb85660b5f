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
export class RetrySchedule {
  readonly #max: number;
  readonly #states = new Map<string, RetryState>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#states.size;
  }

  get(key: string): RetryState | undefined {
    const state = this.#states.get(key);
    if (state) {
      this.#states.delete(key);
      this.#states.set(key, state);
    }
    return state;
  }

  set(key: string, state: RetryState): void {
    this.#states.delete(key);
    this.#states.set(key, state);
    if (this.#states.size > this.#max) {
      const oldest = this.#states.keys().next();
      if (!oldest.done) this.#states.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.#states.delete(key);
  }
}
