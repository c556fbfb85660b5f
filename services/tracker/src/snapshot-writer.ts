import type { Logger } from '@rp/runtime';
import type { TransactionDeliveryAttempt, TransactionRepository, TransactionStateChange } from '@rp/store';
import type { TrackerMetrics } from './metrics.ts';

export interface SnapshotWriterDeps {
  readonly transactions: Pick<TransactionRepository, 'applyChanges'>;
  readonly metrics: TrackerMetrics;
  readonly logger: Logger;
  /**
   * A snapshot held changes this process sequenced as new: another owner moved the transaction (a
   * partition hand-over). The caller forgets what it knows of it and reads it again.
   */
  readonly onConflict: (uetr: string) => void;
}

/** What waits for one transaction's next write. */
interface Waiting {
  changes: TransactionStateChange[];
  attempts: TransactionDeliveryAttempt[];
}

/**
 * Write-behind of the transaction snapshots. The tracker hands each batch's applied changes to `add`
 * once their postings are produced, and the delivery attempts it hears of to `addAttempts`; what one
 * transaction has waiting here goes to MongoDB together, in one guarded write, and the writes of every
 * transaction written at the same moment go in as few commands as the repository allows (see
 * `TransactionRepository.applyChanges`): when the consumer commits (`flush`, before every commit of its
 * offsets), when the tracker needs the snapshot itself (`write`: a transaction's first change, which
 * other services read back at once; a cache miss), or when too many wait. A journey's state changes arrive a few at a time
 * from different services, so most of them share a write with others of their transaction; a delivery
 * attempt arrives with the state change it led to, and rides in that change's write.
 *
 * Nothing is lost: the consumer commits a record's offset only after `flush` has written its changes,
 * so a crash re-delivers the records whose changes were still waiting (the tracker sequences them again
 * to the same postings and the same changes).
 *
 * One transaction's writes never overlap and never skip: each write takes what waits when it starts,
 * after the transaction's previous write ended, and a failed write puts its changes back in front of
 * what arrived meanwhile, for the next write: those of the transactions the repository did not report
 * written, so that a write failing part way records no delivery attempt twice.
 */
export class SnapshotWriter {
  readonly #deps: SnapshotWriterDeps;
  readonly #pending = new Map<string, Waiting>();
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(deps: SnapshotWriterDeps) {
    this.#deps = deps;
  }

  /** Transactions with changes waiting. */
  get size(): number {
    return this.#pending.size;
  }

  /** Hands changes over, in sequence order per transaction. */
  add(changes: readonly TransactionStateChange[]): void {
    for (const change of changes) this.#waiting(change.uetr).changes.push(change);
    this.#deps.metrics.snapshotsWaiting(this.#pending.size);
  }

  /** Hands delivery attempts over, in the order they were made per transaction; each once. */
  addAttempts(attempts: readonly { uetr: string; attempt: TransactionDeliveryAttempt }[]): void {
    for (const { uetr, attempt } of attempts) this.#waiting(uetr).attempts.push(attempt);
    this.#deps.metrics.snapshotsWaiting(this.#pending.size);
  }

  #waiting(uetr: string): Waiting {
    let waiting = this.#pending.get(uetr);
    if (waiting === undefined) {
      waiting = { changes: [], attempts: [] };
      this.#pending.set(uetr, waiting);
    }
    return waiting;
  }

  /** Writes what waits for these transactions now (and waits for their writes in flight). */
  async write(uetrs: Iterable<string>): Promise<void> {
    await this.#writeAll([...new Set(uetrs)]);
  }

  /**
   * Writes everything handed over before the call, and waits for every write in flight: once it
   * resolves, all of it is in MongoDB. Throws if any write failed (its changes wait for the next try).
   */
  async flush(): Promise<void> {
    await this.#writeAll([...new Set([...this.#pending.keys(), ...this.#inFlight.keys()])]);
  }

  /**
   * Writes what waits for these transactions in one repository call (which sends many transactions'
   * writes in one command), after the writes of theirs already in flight: those are waited for, and
   * what waits for their transactions then goes in the next round.
   */
  async #writeAll(uetrs: readonly string[]): Promise<void> {
    let failure: { error: unknown } | undefined;
    let remaining = uetrs;
    while (remaining.length > 0) {
      const busy: Promise<void>[] = [];
      const free: string[] = [];
      const later: string[] = [];
      for (const uetr of remaining) {
        const inFlight = this.#inFlight.get(uetr);
        if (inFlight === undefined) {
          if (this.#pending.has(uetr)) free.push(uetr);
        } else {
          busy.push(inFlight);
          later.push(uetr);
        }
      }
      const round = free.length === 0 ? [] : [this.#writeBatch(free)];
      const settled = await Promise.allSettled([...round, ...busy]);
      const written = settled[0];
      if (round.length > 0 && written?.status === 'rejected') failure ??= { error: written.reason };
      remaining = later;
    }
    if (failure) throw failure.error;
  }

  /** One write of what waits for these transactions (none of them in flight). */
  #writeBatch(uetrs: readonly string[]): Promise<void> {
    const taken = new Map<string, Waiting>();
    for (const uetr of uetrs) {
      const waiting = this.#pending.get(uetr);
      if (waiting === undefined) continue;
      taken.set(uetr, waiting);
      this.#pending.delete(uetr);
    }
    this.#deps.metrics.snapshotsWaiting(this.#pending.size);
    const write = this.#write(taken);
    for (const uetr of taken.keys()) this.#inFlight.set(uetr, write);
    void write
      .catch(() => undefined)
      .then(() => {
        for (const uetr of taken.keys()) if (this.#inFlight.get(uetr) === write) this.#inFlight.delete(uetr);
      });
    return write;
  }

  async #write(taken: ReadonlyMap<string, Waiting>): Promise<void> {
    const changes: TransactionStateChange[] = [];
    const attempts = new Map<string, TransactionDeliveryAttempt[]>();
    for (const [uetr, waiting] of taken) {
      changes.push(...waiting.changes);
      if (waiting.attempts.length > 0) attempts.set(uetr, waiting.attempts);
    }
    const written = new Set<string>();
    try {
      const result = await this.#deps.transactions.applyChanges(changes, attempts, {
        onWritten: (uetr) => written.add(uetr),
      });
      this.#deps.metrics.snapshotWrites(result.writes);
      if (result.skippedIn.length > 0) {
        this.#deps.metrics.snapshotConflicts(result.skippedIn.length);
        for (const uetr of result.skippedIn) {
          this.#deps.logger.error(
            { uetr },
            'snapshot already held changes sequenced as new; the transaction is read again',
          );
          this.#deps.onConflict(uetr);
        }
      }
    } catch (error) {
      // What was not written wholly waits again: its changes are guarded, its attempts may repeat.
      for (const [uetr, { changes: mine, attempts: theirs }] of taken) {
        if (written.has(uetr)) continue;
        const arrived = this.#pending.get(uetr);
        this.#pending.set(uetr, {
          changes: [...mine, ...(arrived?.changes ?? [])],
          attempts: [...theirs, ...(arrived?.attempts ?? [])],
        });
      }
      this.#deps.metrics.snapshotsWaiting(this.#pending.size);
      throw error;
    }
  }
}
