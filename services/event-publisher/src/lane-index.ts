import type { LaneKey } from './delivery-store.ts';

/** What the process knows of one parked lane: a cache of its MongoDB document, never the truth. */
export interface IndexedLane extends LaneKey {
  /** When the worker should look at it (epoch milliseconds). */
  dueAt: number;
  /** The bank's Retry-After (epoch milliseconds): even a recovered bank is not called before. */
  notBefore: number;
  /** Postings waiting in it, as far as this process knows (for the parked gauges). */
  queued: number;
  /** Waiting for its bank's breaker to close, outside the schedule. */
  held: boolean;
  /** A worker of this process has it. */
  working: boolean;
  /** Postings were queued while a worker had it (it may have been emptied and created again). */
  appendedWhileWorking: boolean;
  /** Released from hold when its bank recovered: due at once, whatever its own schedule said. */
  early: boolean;
  /** Scheduled by its head's failed attempt (`scheduleRetry`): its bank's recovery makes it due too. */
  retrying: boolean;
  /** Its bank recovered while a worker had it (`giveBackUnattempted`): nothing released it then. */
  recoveredWhileWorking: boolean;
  version: number;
}

interface HeapEntry {
  readonly dueAt: number;
  readonly laneId: string;
  readonly version: number;
}

/**
 * The parked lanes of this process: those its consumer parked, those it found in MongoDB when it took a
 * partition over, those an operator's replay queued here. The consumer asks it whether a transaction is
 * parked at a bank (so the common case, nothing parked, costs no read), and the worker takes the due
 * lanes from it in due order.
 *
 * It is bounded: `capacity` lanes (each a few hundred bytes). The consumer waits for room before it
 * parks one more lane, so a long outage holds the rest of the backlog in Kafka rather than in memory.
 * Entries may be stale (a lane another process drained); the worker drops them when it finds the lane
 * gone.
 */
export class LaneIndex {
  readonly #capacity: number;
  readonly #lanes = new Map<string, IndexedLane>();
  readonly #heap: HeapEntry[] = [];
  /** Held lanes per bank. */
  readonly #held = new Map<string, Set<string>>();
  /** Lanes per bank scheduled by a failed attempt since the bank last recovered (some may be stale). */
  readonly #retrying = new Map<string, Set<string>>();
  readonly #roomWaiters: (() => void)[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#lanes.size;
  }

  get capacity(): number {
    return this.#capacity;
  }

  get isFull(): boolean {
    return this.#lanes.size >= this.#capacity;
  }

  has(laneId: string): boolean {
    return this.#lanes.has(laneId);
  }

  get(laneId: string): IndexedLane | undefined {
    return this.#lanes.get(laneId);
  }

  /** Resolves once there is room for one more lane. */
  async waitForRoom(signal?: AbortSignal): Promise<void> {
    while (this.isFull && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        this.#roomWaiters.push(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  /**
   * Adds a lane, or updates one already known: a lane known to be held or worked stays so; otherwise the
   * earlier due time wins, so that news of a lane never postpones it.
   */
  add(key: LaneKey, dueAt: number, notBefore: number, queued: number): IndexedLane {
    const known = this.#lanes.get(key.laneId);
    if (known) {
      known.queued = Math.max(0, known.queued + queued);
      known.notBefore = Math.max(known.notBefore, notBefore);
      if (known.working) known.appendedWhileWorking = true;
      else if (!known.held && dueAt < known.dueAt) this.#push(known, dueAt);
      return known;
    }
    const lane: IndexedLane = {
      laneId: key.laneId,
      memberId: key.memberId,
      uetr: key.uetr,
      topic: key.topic,
      partition: key.partition,
      dueAt,
      notBefore,
      queued,
      held: false,
      working: false,
      appendedWhileWorking: false,
      early: false,
      retrying: false,
      recoveredWhileWorking: false,
      version: 0,
    };
    this.#lanes.set(key.laneId, lane);
    this.#push(lane, dueAt);
    return lane;
  }

  /** Counts postings added to a known lane (the parked gauges); no rescheduling. */
  addQueued(laneId: string, queued: number): void {
    const lane = this.#lanes.get(laneId);
    if (!lane) return;
    lane.queued = Math.max(0, lane.queued + queued);
    if (lane.working && queued > 0) lane.appendedWhileWorking = true;
  }

  /** The worker is done with the lane for now: look at it again at `dueAt`. */
  schedule(laneId: string, dueAt: number, notBefore: number, queued?: number): void {
    this.#schedule(laneId, dueAt, notBefore, queued, false);
  }

  /**
   * The lane's head failed and waits out the retry schedule until `dueAt`, unless its bank recovers
   * first (`releaseHeld`): a failure that did not open the bank's breaker may still have been the bank's.
   */
  scheduleRetry(laneId: string, dueAt: number, notBefore: number, queued?: number): void {
    this.#schedule(laneId, dueAt, notBefore, queued, true);
  }

  #schedule(
    laneId: string,
    dueAt: number,
    notBefore: number,
    queued: number | undefined,
    retrying: boolean,
  ): void {
    const lane = this.#lanes.get(laneId);
    if (!lane) return;
    lane.working = false;
    lane.early = false;
    lane.recoveredWhileWorking = false;
    lane.retrying = retrying;
    if (retrying) addToBank(this.#retrying, lane.memberId, laneId);
    lane.notBefore = notBefore;
    if (queued !== undefined) lane.queued = queued;
    if (lane.held) return;
    this.#push(lane, dueAt);
  }

  /** The lane's bank is paused: the lane waits for `releaseHeld` instead of its schedule. */
  hold(laneId: string): void {
    const lane = this.#lanes.get(laneId);
    if (!lane) return;
    lane.working = false;
    lane.early = false;
    lane.recoveredWhileWorking = false;
    lane.held = true;
    lane.version += 1;
    addToBank(this.#held, lane.memberId, lane.laneId);
  }

  /**
   * The bank answers again: its held lanes are due now (or at their Retry-After), and so are its lanes
   * waiting out a failed attempt. A bank that fails every call for a while but answers now and then
   * (its breaker opening and closing) leaves lanes whose heads failed while the breaker was closed: their
   * schedules grow to minutes, and without this they would wait them out after the bank is back. Each
   * is tried once more; one whose posting the bank refuses alone goes back to its schedule.
   */
  releaseHeld(memberId: string, now: number): number {
    let released = 0;
    const held = this.#held.get(memberId);
    this.#held.delete(memberId);
    for (const laneId of held ?? []) {
      const lane = this.#lanes.get(laneId);
      if (!lane?.held) continue;
      lane.held = false;
      lane.early = true;
      this.#push(lane, Math.max(now, lane.notBefore));
      released += 1;
    }
    const retrying = this.#retrying.get(memberId);
    this.#retrying.delete(memberId);
    for (const laneId of retrying ?? []) {
      // A lane due anyway is added again if its next attempt fails too. One a worker has is marked: a
      // worker that finds its head not due yet releases it then (`giveBackUnattempted`).
      const lane = this.#lanes.get(laneId);
      if (!lane?.retrying || lane.held) continue;
      if (lane.working) {
        lane.recoveredWhileWorking = true;
        continue;
      }
      if (lane.dueAt <= now) continue;
      this.#releaseEarly(lane, now);
      released += 1;
    }
    return released;
  }

  /**
   * The worker gives back a lane it did not attempt (its failed head not due yet): it waits out its
   * schedule like `scheduleRetry`, unless its bank recovered while the worker had it (the recovery
   * passed over it): then it is due at once, early.
   */
  giveBackUnattempted(laneId: string, dueAt: number, notBefore: number, queued: number, now: number): void {
    const recovered = this.#lanes.get(laneId)?.recoveredWhileWorking ?? false;
    this.scheduleRetry(laneId, dueAt, notBefore, queued);
    const lane = this.#lanes.get(laneId);
    if (recovered && lane && !lane.held) this.#releaseEarly(lane, now);
  }

  #releaseEarly(lane: IndexedLane, now: number): void {
    lane.retrying = false;
    lane.early = true;
    this.#push(lane, Math.max(now, lane.notBefore));
  }

  /**
   * Forgets a lane the worker emptied and deleted, unless postings were queued in it meanwhile (the
   * append created it again): then it is due at once.
   */
  removeEmptied(laneId: string, now: number): void {
    const lane = this.#lanes.get(laneId);
    if (lane?.appendedWhileWorking) {
      lane.appendedWhileWorking = false;
      this.schedule(laneId, now, lane.notBefore);
      return;
    }
    this.remove(laneId);
  }

  /** The worker is about to delete the lane: from here on, appends are noticed. */
  markEmptying(laneId: string): void {
    const lane = this.#lanes.get(laneId);
    if (lane) lane.appendedWhileWorking = false;
  }

  /**
   * One held lane of the bank is due at once, early (the probe of a paused bank): its head is tried
   * whatever its own schedule says, and an early attempt that fails is not a step of that schedule. Without
   * that, a bank whose held lanes all wait out steps of minutes (a long outage, no new transaction since)
   * would be probed only when the first of those came round, and the backlog of a bank back after hours
   * would wait up to a step for it. A lane whose Retry-After has passed is taken first; else the one whose
   * Retry-After ends soonest, when it does. False when none is held.
   */
  releaseOne(memberId: string, now: number): boolean {
    const held = this.#held.get(memberId);
    if (!held) return false;
    let probe: IndexedLane | undefined;
    for (const laneId of held) {
      const lane = this.#lanes.get(laneId);
      if (!lane?.held) {
        held.delete(laneId);
        continue;
      }
      if (probe === undefined || lane.notBefore < probe.notBefore) probe = lane;
      if (lane.notBefore <= now) break;
    }
    if (probe === undefined) return false;
    held.delete(probe.laneId);
    probe.held = false;
    probe.early = true;
    this.#push(probe, Math.max(now, probe.notBefore));
    return true;
  }

  heldCount(memberId: string): number {
    return this.#held.get(memberId)?.size ?? 0;
  }

  remove(laneId: string): void {
    const lane = this.#lanes.get(laneId);
    if (!lane) return;
    this.#lanes.delete(laneId);
    lane.version += 1;
    this.#held.get(lane.memberId)?.delete(laneId);
    this.#retrying.get(lane.memberId)?.delete(laneId);
    const waiters = this.#roomWaiters.splice(0);
    for (const wake of waiters) wake();
  }

  /** Lanes due by `now`, earliest first, at most `limit`; they are marked as being worked. */
  takeDue(now: number, limit: number): IndexedLane[] {
    const due: IndexedLane[] = [];
    while (due.length < limit && this.#heap.length > 0) {
      const top = this.#heap[0] as HeapEntry;
      if (top.dueAt > now) break;
      this.#pop();
      const lane = this.#lanes.get(top.laneId);
      if (!lane || lane.version !== top.version || lane.held || lane.working) continue;
      lane.working = true;
      lane.version += 1;
      due.push(lane);
    }
    return due;
  }

  /** When the next lane is due, if any. */
  nextDueAt(): number | undefined {
    while (this.#heap.length > 0) {
      const top = this.#heap[0] as HeapEntry;
      const lane = this.#lanes.get(top.laneId);
      if (lane && lane.version === top.version && !lane.held && !lane.working) return top.dueAt;
      this.#pop();
    }
    return undefined;
  }

  /** Lanes and postings parked per bank, as this process knows them. */
  parkedByBank(): Map<string, { lanes: number; postings: number }> {
    const counts = new Map<string, { lanes: number; postings: number }>();
    for (const lane of this.#lanes.values()) {
      const entry = counts.get(lane.memberId) ?? { lanes: 0, postings: 0 };
      entry.lanes += 1;
      entry.postings += lane.queued;
      counts.set(lane.memberId, entry);
    }
    return counts;
  }

  #push(lane: IndexedLane, dueAt: number): void {
    if (this.#heap.length > 4 * this.#lanes.size + 1_000) this.#compact();
    lane.version += 1;
    lane.dueAt = dueAt;
    const heap = this.#heap;
    heap.push({ dueAt, laneId: lane.laneId, version: lane.version });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heap[parent] as HeapEntry).dueAt <= (heap[index] as HeapEntry).dueAt) break;
      [heap[parent], heap[index]] = [heap[index] as HeapEntry, heap[parent] as HeapEntry];
      index = parent;
    }
  }

  /** Drops the heap's stale entries (rescheduled or removed lanes) by rebuilding it. */
  #compact(): void {
    const live: IndexedLane[] = [...this.#lanes.values()].filter((lane) => !lane.held && !lane.working);
    this.#heap.length = 0;
    for (const lane of live) {
      lane.version += 1;
      this.#heap.push({ dueAt: lane.dueAt, laneId: lane.laneId, version: lane.version });
    }
    this.#heap.sort((a, b) => a.dueAt - b.dueAt);
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop() as HeapEntry;
    if (heap.length === 0) return;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && (heap[left] as HeapEntry).dueAt < (heap[smallest] as HeapEntry).dueAt)
        smallest = left;
      if (right < heap.length && (heap[right] as HeapEntry).dueAt < (heap[smallest] as HeapEntry).dueAt)
        smallest = right;
      if (smallest === index) return;
      [heap[smallest], heap[index]] = [heap[index] as HeapEntry, heap[smallest] as HeapEntry];
      index = smallest;
    }
  }
}

/** Adds a lane to its bank's set in a per-bank index. */
function addToBank(index: Map<string, Set<string>>, memberId: string, laneId: string): void {
  const lanes = index.get(memberId);
  if (lanes) lanes.add(laneId);
  else index.set(memberId, new Set([laneId]));
}
