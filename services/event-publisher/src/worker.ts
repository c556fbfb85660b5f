import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { BankGates } from './bank-gate.ts';
import type { Delivery } from './delivery.ts';
import type { DeliveryStore, Lane } from './delivery-store.ts';
import type { IndexedLane, LaneIndex } from './lane-index.ts';
import type { PublisherMetrics } from './metrics.ts';
import { hasExpired, nextAttempt, type RetrySchedule } from './retry-schedule.ts';
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
  readonly store: Pick<
    DeliveryStore,
    'claim' | 'getLane' | 'getPosting' | 'completeHead' | 'reschedule' | 'release' | 'deleteIfEmpty'
  >;
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

/**
 * Works the parked lanes of this process: takes a due lane from the index, claims it in MongoDB (a
 * lease, so two processes never work one lane), and delivers its postings head first. A head that
 * fails again is rescheduled by the retry schedule and the lane given up; one that is delivered, failed
 * for good or expired is popped and the next one follows at once. A lane that runs empty is deleted.
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
    let lane: Lane | null = await store.claim(entry.laneId, this.owner, now, options.leaseMs);
    if (!lane) {
      const existing = await store.getLane(entry.laneId);
      if (!existing) index.remove(entry.laneId);
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
    const dueAt = early
      ? lane.notBefore.getTime()
      : Math.max(lane.nextAttemptAt.getTime(), lane.notBefore.getTime());
    if (dueAt > now.getTime() && lane.count > 0) {
      await store.release(lane.laneId, this.owner);
      index.schedule(lane.laneId, dueAt, lane.notBefore.getTime(), lane.count);
      return;
    }

    /** Postings this claim delivered: a lane holding one twice (replayed while queued) sends it once. */
    const sent = new Set<string>();
    for (;;) {
      if (this.#stopping.signal.aborted) {
        await store.release(lane.laneId, this.owner);
        index.schedule(lane.laneId, clock.now().getTime(), lane.notBefore.getTime(), lane.count);
        return;
      }
      now = clock.now();
      const head = lane.pending[0];
      if (!head) {
        index.markEmptying(lane.laneId);
        if (await store.deleteIfEmpty(lane.laneId, this.owner)) {
          index.removeEmptied(lane.laneId, clock.now().getTime());
          return;
        }
        // Something was queued after the last read: read the lane again; it is still ours.
        const again = await store.getLane(lane.laneId);
        if (!again || again.leaseOwner !== this.owner) {
          index.schedule(lane.laneId, clock.now().getTime(), lane.notBefore.getTime());
          return;
        }
        lane = again;
        continue;
      }

      const complete = async (): Promise<boolean> => {
        const next = await store.completeHead(
          entry.laneId,
          this.owner,
          head.eventId,
          clock.now(),
          options.leaseMs,
        );
        index.addQueued(entry.laneId, -1);
        if (!next) {
          // The lease was lost (a long pause) or the head changed hands: the other holder goes on.
          index.schedule(entry.laneId, clock.now().getTime() + options.leaseMs, entry.notBefore);
          return false;
        }
        lane = next;
        return true;
      };

      if (sent.has(head.eventId)) {
        if (!(await complete())) return;
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
        if (!(await complete())) return;
        continue;
      }
      const posting = subscriber ? await store.getPosting(head.eventId) : null;
      if (!subscriber || !posting) {
        await delivery.giveUp(
          lane.memberId,
          { eventId: head.eventId, uetr: lane.uetr, eventName: head.eventName },
          'failed',
          subscriber ? 'the posting is no longer stored' : 'the bank no longer receives events',
        );
        if (!(await complete())) return;
        continue;
      }

      const ticket = gate.admit();
      if (!ticket) {
        await store.release(lane.laneId, this.owner);
        // Checked after the release: the bank may have recovered meanwhile, and then nothing releases it.
        if (gate.isOpen) index.hold(lane.laneId);
        else index.schedule(lane.laneId, clock.now().getTime(), lane.notBefore.getTime(), lane.count);
        return;
      }
      const { result, retryAfterMs } = await delivery.attempt(
        subscriber,
        {
          eventId: posting.eventId,
          uetr: posting.uetr,
          eventName: posting.eventName,
          body: posting.body,
          producedAt: posting.producedAt,
          ...(posting.traceparent ? { traceparent: posting.traceparent } : {}),
        },
        ticket,
        head.replay ? 'replay' : 'queued',
        // Not aborted on stop: an attempt in progress ends within the attempt timeout, and its answer counts.
        { retry: lane.headFailures > 0 },
      );
      if (result.kind === 'retryable') {
        const failures = lane.headFailures + 1;
        const next = nextAttempt(schedule, failures, clock.now(), retryAfterMs);
        await store.reschedule(lane.laneId, this.owner, {
          ...next,
          headFailures: failures,
          lastError: result.error,
        });
        index.schedule(lane.laneId, next.nextAttemptAt.getTime(), next.notBefore.getTime(), lane.count);
        // A paused bank's lanes wait for it to answer a probe rather than for their own schedules.
        if (gate.isOpen) index.hold(lane.laneId);
        transactionLogger(this.#deps.logger, { uetr: lane.uetr, messageIdentification: head.eventId }).debug(
          { memberId: lane.memberId, failures, nextAttemptAt: next.nextAttemptAt },
          'lane head rescheduled',
        );
        return;
      }
      sent.add(head.eventId);
      if (!(await complete())) return;
    }
  }
}
