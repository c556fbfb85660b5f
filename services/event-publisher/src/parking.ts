import type { Clock } from '@rp/runtime';
import type { DeliveryStore, Lane, LaneEntry, LaneKey, LaneSchedule } from './delivery-store.ts';
import type { LaneIndex } from './lane-index.ts';
import type { PublisherMetrics } from './metrics.ts';
import { nextAttempt, type RetrySchedule } from './retry-schedule.ts';

/** The attempt that failed on the posting that becomes the new lane's head. */
export interface FailedHead {
  readonly error: string;
  readonly retryAfterMs?: number;
}

export interface ParkingDeps {
  readonly store: Pick<DeliveryStore, 'append' | 'lanesOf'>;
  readonly index: LaneIndex;
  readonly schedule: RetrySchedule;
  readonly clock: Clock;
  readonly metrics: PublisherMetrics;
  /** Tells the worker that a lane may be due earlier than it thought. */
  readonly wake: () => void;
}

/**
 * Puts postings in their (bank, transaction) lane: in MongoDB first, then in this process's index, so a
 * posting is never known only in memory. A lane is created due at once, or, when its head has just
 * failed, at the schedule's first retry.
 */
export class Parking {
  readonly #deps: ParkingDeps;
  /** Lanes a park of this process is writing, not yet in the index (parks in progress per lane). */
  readonly #parking = new Map<string, number>();

  constructor(deps: ParkingDeps) {
    this.#deps = deps;
  }

  /**
   * Queues `entries` (in order) at the end of the lane. `failedHead`: the first entry was just tried and
   * failed. `waitForRoom`: the consumer waits while the index is full; a replay does not (it is bounded).
   */
  async park(
    key: LaneKey,
    entries: readonly LaneEntry[],
    options: { failedHead?: FailedHead; waitForRoom?: boolean; signal?: AbortSignal } = {},
  ): Promise<void> {
    const { store, index, clock, metrics } = this.#deps;
    if (entries.length === 0) return;
    if (options.waitForRoom !== false && !index.has(key.laneId)) await index.waitForRoom(options.signal);
    const now = clock.now();
    const schedule: LaneSchedule = options.failedHead
      ? {
          ...nextAttempt(this.#deps.schedule, 1, now, options.failedHead.retryAfterMs),
          headFailures: 1,
          lastError: options.failedHead.error,
        }
      : { nextAttemptAt: now, notBefore: now };
    const known = index.has(key.laneId);
    this.#parking.set(key.laneId, (this.#parking.get(key.laneId) ?? 0) + 1);
    try {
      const created = await store.append(key, entries, schedule, now);
      if (created || !known) {
        // A lane this process did not know of (another process parked it, or a worker just emptied it) is
        // looked at now; the worker then follows the document's own schedule.
        const dueAt = created ? schedule.nextAttemptAt.getTime() : now.getTime();
        index.add(key, dueAt, schedule.notBefore.getTime(), entries.length);
        this.#deps.wake();
      } else {
        index.addQueued(key.laneId, entries.length);
      }
    } finally {
      const left = (this.#parking.get(key.laneId) ?? 1) - 1;
      if (left > 0) this.#parking.set(key.laneId, left);
      else this.#parking.delete(key.laneId);
    }
    metrics.parked(key.memberId, entries.length);
  }

  /** Learns the lanes parked on a partition from MongoDB: what a consumer taking it over must know. */
  async loadPartition(topic: string, partition: number): Promise<number> {
    const added = this.#learn(await this.#deps.store.lanesOf(topic, partition)).length;
    this.#deps.metrics.partitionLoaded(added);
    return added;
  }

  /**
   * Learns every lane parked on the topic that this process does not know yet: at start, and now and
   * then, so that a lane whose process died is worked (by whichever process claims it first) even when
   * its partition carries no new postings. Stops at the index's capacity. Returns the lanes it added:
   * after the start, lanes another instance parked, or lanes this process lost track of.
   */
  async loadAll(topic: string): Promise<Lane[]> {
    const room = this.#deps.index.capacity - this.#deps.index.size;
    if (room <= 0) return [];
    return this.#learn(await this.#deps.store.lanesOf(topic, undefined, room + 1_000));
  }

  /** Adds the lanes the index does not know; returns those it added. */
  #learn(lanes: readonly Lane[]): Lane[] {
    const added: Lane[] = [];
    for (const lane of lanes) {
      // A lane a park of this process is writing is left to it: it is in the index a moment later.
      if (this.#deps.index.has(lane.laneId) || this.#parking.has(lane.laneId) || this.#deps.index.isFull)
        continue;
      this.#deps.index.add(lane, lane.nextAttemptAt.getTime(), lane.notBefore.getTime(), lane.count);
      added.push(lane);
    }
    if (added.length > 0) this.#deps.wake();
    return added;
  }
}
