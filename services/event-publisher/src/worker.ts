import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { BankGates } from './bank-gate.ts';
import type { Delivery, DeliveryRecords } from './delivery.ts';
import {
  type DeliveryStore,
  type Lane,
  type LaneSettlement,
  type StoredPosting,
  sourceOf,
} from './delivery-store.ts';
import type { IndexedLane, LaneIndex } from './lane-index.ts';
import type { PublisherMetrics } from './metrics.ts';
import { failuresAfterAttempt, hasExpired, nextAttempt, type RetrySchedule } from './retry-schedule.ts';
import type { Subscriptions } from './subscribers.ts';

export interface LaneWorkerOptions {
  /** Lanes worked at the same time. */
  readonly concurrency: number;
  /** Longest wait between two looks at the index. */
  readonly tickMs: number;
  /** How long a claimed lane stays ours without renewal (several attempt timeouts). */
  readonly leaseMs: number;
  /** Wait before a lane is looked at again after MongoDB failed. */
  readonly errorBackoffMs: number;
  /** How often the parked gauges are refreshed. */
  readonly gaugeIntervalMs: number;
}

export interface LaneWorkerDeps {
  readonly store: Pick<DeliveryStore, 'claim' | 'getLane' | 'getPostings' | 'settle' | 'release'>;
  readonly index: LaneIndex;
  readonly delivery: Delivery;
  readonly subscriptions: Subscriptions;
  readonly gates: BankGates;
  readonly schedule: RetrySchedule;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: PublisherMetrics;
  readonly options: LaneWorkerOptions;
}

/** Entries handled before the lane is written: their removal and the lease's renewal in one write. */
const settleEvery = 64;
/** Entries whose postings are read in one query. */
const postingReadAhead = 64;

/**
 * Works the parked lanes of this process: takes a due lane from the index, claims it in MongoDB (a
 * lease, so two processes never work one lane), and delivers its postings head first. A head that
 * fails again is rescheduled by the retry schedule and the lane given up; once one is delivered, failed
 * for good or expired the next one follows at once. The heads handled are removed together, their
 * delivery log records written first: when the entries read run out, every `settleEvery` entries, every
 * quarter of the lease (which the same write renews), and with the write that reschedules or releases
 * the lane. A lane that runs empty is deleted by that write.
 */
export class LaneWorker {
  readonly #deps: LaneWorkerDeps;
  /** Lease owner name: unique per process and start. */
  readonly owner = `event-publisher-${randomUUID()}`;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #lastGauges = 0;

  constructor(deps: LaneWorkerDeps) {
    this.#deps = deps;
    deps.gates.onRecovered((memberId) => {
      const released = deps.index.releaseHeld(memberId, deps.clock.now().getTime());
      deps.metrics.bankOpen(memberId, false);
      deps.logger.info({ memberId, lanes: released }, 'bank answers again; its parked lanes are due');
      this.wake();
    });
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops taking lanes, lets the attempts in progress end and gives their lanes up. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#stopping.abort();
    this.wake();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
  }

  wake(): void {
    const wake = this.#wakeUp;
    this.#wakeUp = undefined;
    wake?.();
  }

  async #run(): Promise<void> {
    const { index, clock, options } = this.#deps;
    while (this.#running) {
      const now = clock.now().getTime();
      const free = options.concurrency - this.#inFlight.size;
      if (free > 0) {
        for (const lane of index.takeDue(now, free)) {
          const work = this.#work(lane).finally(() => {
            this.#inFlight.delete(work);
            this.wake();
          });
          this.#inFlight.add(work);
        }
      }
      this.#probePausedBanks(now);
      this.#refreshGauges(now);
      const next = index.nextDueAt();
      const waitMs =
        this.#inFlight.size >= options.concurrency || next === undefined
          ? options.tickMs
          : Math.min(options.tickMs, Math.max(0, next - clock.now().getTime()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.#wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** A paused bank whose pause is over gets one of its held lanes as a probe. */
  #probePausedBanks(now: number): void {
    for (const [memberId, gate] of this.#deps.gates.entries()) {
      if (gate.probeDue && this.#deps.index.releaseOne(memberId, now)) this.wake();
    }
  }

  #refreshGauges(now: number): void {
    if (now - this.#lastGauges < this.#deps.options.gaugeIntervalMs) return;
    this.#lastGauges = now;
    this.#deps.metrics.parkedGauges(this.#deps.index.parkedByBank());
    for (const [memberId, gate] of this.#deps.gates.entries())
      this.#deps.metrics.bankOpen(memberId, gate.isOpen);
  }

  async #work(entry: IndexedLane): Promise<void> {
    const { index, clock, options, logger } = this.#deps;
    try {
      await this.#deliverLane(entry);
    } catch (error) {
      logger.warn(
        { err: error, memberId: entry.memberId, uetr: entry.uetr },
        'parked lane not worked; it is looked at again later',
      );
      const retryAt = clock.now().getTime() + options.errorBackoffMs;
      index.schedule(entry.laneId, retryAt, entry.notBefore);
      await this.#deps.store.release(entry.laneId, this.owner).catch(() => undefined);
    } finally {
      const known = index.get(entry.laneId);
      if (known?.working)
        index.schedule(entry.laneId, clock.now().getTime() + options.errorBackoffMs, known.notBefore);
    }
  }

  async #deliverLane(entry: IndexedLane): Promise<void> {
    const { store, index, clock, gates, schedule, delivery, subscriptions, options } = this.#deps;
    const gate = gates.of(entry.memberId);
    if (gate.isOpen && gate.resumeInMs > 0) {
      index.hold(entry.laneId);
      return;
    }
    const early = entry.early;
    let now = clock.now();
    const claimed = await store.claim(entry.laneId, this.owner, now, options.leaseMs);
    if (!claimed) {
      // From here an append to the lane is noticed: one whose document the read below misses (its
      // upsert applied after the read, answered before it) must not leave a lane the index forgets.
      index.markEmptying(entry.laneId);
      const existing = await store.getLane(entry.laneId);
      if (!existing) index.removeEmptied(entry.laneId, clock.now().getTime());
      else {
        // Another process holds it: look again once its lease or its schedule is over.
        const at = Math.max(
          existing.leaseUntil.getTime(),
          existing.nextAttemptAt.getTime(),
          now.getTime() + 1,
        );
        index.schedule(entry.laneId, at, existing.notBefore.getTime(), existing.count);
      }
      return;
    }
    let lane: Lane = claimed;
    const dueAt = early
      ? lane.notBefore.getTime()
      : Math.max(lane.nextAttemptAt.getTime(), lane.notBefore.getTime());
    if (dueAt > now.getTime() && lane.count > 0) {
      await store.release(lane.laneId, this.owner);
      // A head that failed still waits out its schedule unless its bank answers again first: a probe of
      // a paused bank passing over this lane (its Retry-After not over) must not make it forget that, and
      // a recovery while the lane was here (nothing released it then) makes it due now.
      if (lane.headFailures > 0) {
        const notBefore = lane.notBefore.getTime();
        index.giveBackUnattempted(lane.laneId, dueAt, notBefore, lane.count, clock.now().getTime());
      } else index.schedule(lane.laneId, dueAt, lane.notBefore.getTime(), lane.count);
      return;
    }

    /** Postings this claim delivered: a lane holding one twice (replayed while queued) sends it once. */
    const sent = new Set<string>();
    /** The stored postings of the lane's entries, read together as the worker gets to them. */
    const postings = new Map<string, StoredPosting | null>();
    /** Entries at the lane's head handled since the last write, and the log records of their attempts. */
    let done = 0;
    /**
     * The attempts on postings that were tried before (a head that failed, a replay): each appended to
     * its posting's log entry. The others are the first attempts of postings parked without one (their
     * bank paused, or a lane ahead of them), whose entries are created together in one insert.
     */
    const records: DeliveryRecords = [];
    const firsts: DeliveryRecords = [];
    let renewedAt = now.getTime();

    /**
     * Writes what this claim did since the last write: the delivery log first (a posting is never
     * removed before its attempt is logged), then the lane, in one write each. Null when the lease was
     * lost (whoever holds the lane now goes on with it).
     */
    const settle = async (then: LaneSettlement): Promise<Lane | 'deleted' | null> => {
      await delivery.record(records.splice(0), firsts.splice(0));
      const handled = done;
      const settled = await store.settle(lane, this.owner, handled, then);
      done = 0;
      index.addQueued(entry.laneId, -handled);
      if (settled === null) {
        // The lease was lost (a long pause) or the lane changed hands: the other holder goes on.
        index.schedule(entry.laneId, clock.now().getTime() + options.leaseMs, entry.notBefore);
      }
      return settled;
    };

    for (;;) {
      if (this.#stopping.signal.aborted) {
        const settled = await settle({ kind: 'release', now: clock.now() });
        if (settled === 'deleted') index.removeEmptied(entry.laneId, clock.now().getTime());
        else if (settled) {
          index.schedule(entry.laneId, clock.now().getTime(), settled.notBefore.getTime(), settled.count);
        }
        return;
      }
      now = clock.now();
      const head = lane.pending[done];
      if (!head || done >= settleEvery || now.getTime() - renewedAt >= options.leaseMs / 4) {
        // Every entry read is handled (the lane is deleted unless one was appended since), or enough are
        // to write them and renew the lease.
        if (!head) index.markEmptying(entry.laneId);
        const settled = await settle({ kind: 'renew', now, leaseMs: options.leaseMs });
        if (settled === 'deleted') {
          index.removeEmptied(entry.laneId, clock.now().getTime());
          return;
        }
        if (settled === null) return;
        lane = settled;
        renewedAt = now.getTime();
        continue;
      }

      if (sent.has(head.eventId)) {
        done += 1;
        continue;
      }
      const subscriber = subscriptions.subscriber(lane.memberId);
      if (hasExpired(schedule, head.queuedAt, now)) {
        await delivery.giveUp(
          lane.memberId,
          { eventId: head.eventId, uetr: lane.uetr, eventName: head.eventName },
          'expired',
          `not delivered within ${Math.round(schedule.maxAgeMs / 60_000)} minutes of being queued`,
        );
        done += 1;
        continue;
      }
      const posting = subscriber ? await this.#posting(postings, lane, done) : null;
      if (!subscriber || !posting) {
        await delivery.giveUp(
          lane.memberId,
          { eventId: head.eventId, uetr: lane.uetr, eventName: head.eventName },
          'failed',
          subscriber ? 'the posting is no longer stored' : 'the bank no longer receives events',
        );
        done += 1;
        continue;
      }

      const ticket = gate.admit();
      if (!ticket) {
        const settled = await settle({ kind: 'release', now });
        if (settled === null || settled === 'deleted') return;
        // Checked after the release: the bank may have recovered meanwhile, and then nothing releases it.
        if (gate.isOpen) index.hold(entry.laneId);
        else index.schedule(entry.laneId, clock.now().getTime(), settled.notBefore.getTime(), settled.count);
        return;
      }
      const headFailures = done === 0 ? lane.headFailures : 0;
      const { result, retryAfterMs } = await delivery.attempt(
        subscriber,
        {
          eventId: posting.eventId,
          uetr: posting.uetr,
          eventName: posting.eventName,
          body: posting.body,
          producedAt: posting.producedAt,
          ...(posting.traceparent ? { traceparent: posting.traceparent } : {}),
          source: sourceOf(posting),
        },
        ticket,
        head.replay ? 'replay' : 'queued',
        // Not aborted on stop: an attempt in progress ends within the attempt timeout, and its answer counts.
        { retry: headFailures > 0, records: headFailures > 0 || head.replay ? records : firsts },
      );
      if (result.kind === 'retryable') {
        const failures = failuresAfterAttempt(headFailures, now, lane.nextAttemptAt);
        const next = nextAttempt(schedule, failures, clock.now(), retryAfterMs);
        const settled = await settle({
          kind: 'reschedule',
          schedule: { ...next, headFailures: failures, lastError: result.error },
        });
        if (settled === null || settled === 'deleted') return;
        index.scheduleRetry(
          entry.laneId,
          next.nextAttemptAt.getTime(),
          next.notBefore.getTime(),
          settled.count,
        );
        // A paused bank's lanes wait for it to answer a probe rather than for their own schedules.
        if (gate.isOpen) index.hold(entry.laneId);
        transactionLogger(this.#deps.logger, { uetr: lane.uetr, messageIdentification: head.eventId }).debug(
          { memberId: lane.memberId, failures, nextAttemptAt: next.nextAttemptAt },
          'lane head rescheduled',
        );
        return;
      }
      sent.add(head.eventId);
      done += 1;
    }
  }

  /**
   * The stored posting of the lane's entry at `position`. The first time one is missing, the postings
   * of the next `postingReadAhead` entries are read in one query.
   */
  async #posting(
    postings: Map<string, StoredPosting | null>,
    lane: Lane,
    position: number,
  ): Promise<StoredPosting | null> {
    const eventId = lane.pending[position]?.eventId;
    if (eventId === undefined) return null;
    if (!postings.has(eventId)) {
      const wanted = lane.pending
        .slice(position, position + postingReadAhead)
        .map((entry) => entry.eventId)
        .filter((id) => !postings.has(id));
      const found = await this.#deps.store.getPostings(lane.uetr, wanted);
      for (const id of wanted) postings.set(id, found.get(id) ?? null);
    }
    return postings.get(eventId) ?? null;
  }
}
