import type { Logger } from '@rp/runtime';
import type { TransactionDeliveryAttempt, TransactionRepository, TransactionStateChange } from '@rp/store';
import type { TrackerMetrics } from './metrics.ts';

export interface SnapshotWriterDeps {
  readonly transactions: Pick<TransactionRepository, 'applyChanges'>;
  readonly metrics: TrackerMetrics;
  readonly logger: Logger;
  /** Snapshot writes in flight at once during a flush. */
  readonly writeConcurrency: number;
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
 * transaction has waiting here goes to MongoDB together,
 * in one guarded write, when the consumer commits (`flush`, before every commit of its offsets), when
 * the tracker needs the snapshot itself (`write`: a transaction's first change, which other services read
 * back at once; a cache miss), or when too many wait. A journey's state changes arrive a few at a time
 * from different services, so most of them share a write with others of their transaction; a delivery
 * attempt arrives with the state change it led to, and rides in that change's write.
 *
 * Nothing is lost: the consumer commits a record's offset only after `flush` has written its changes,
 * so a crash re-delivers the records whose changes were still waiting (the tracker sequences them again
 * to the same postings and the same changes).
 *
 * One transaction's writes never overlap and never skip: each write takes what waits when it starts,
 * after the transaction's previous write ended, and a failed write puts its changes back in front of
 * what arrived meanwhile, for the next write.
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

  async #writeAll(uetrs: readonly string[]): Promise<void> {
    let failure: { error: unknown } | undefined;
    let next = 0;
    const worker = async () => {
      while (next < uetrs.length) {
        const uetr = uetrs[next] as string;
        next += 1;
        try {
          await this.#writeOne(uetr);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    const workers = Math.max(1, Math.min(this.#deps.writeConcurrency, uetrs.length));
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure) throw failure.error;
  }

  #writeOne(uetr: string): Promise<void> {
    const previous = this.#inFlight.get(uetr) ?? Promise.resolve();
    const write = previous
      .catch(() => undefined)
      .then(async () => {
        const waiting = this.#pending.get(uetr);
        if (!waiting) return;
        this.#pending.delete(uetr);
        this.#deps.metrics.snapshotsWaiting(this.#pending.size);
        const { changes, attempts } = waiting;
        try {
          const result = await this.#deps.transactions.applyChanges(
            changes,
            attempts.length === 0 ? undefined : new Map([[uetr, attempts]]),
          );
          this.#deps.metrics.snapshotWrites(result.writes);
          if (result.changesSkipped > 0) {
            this.#deps.metrics.snapshotConflicts(result.changesSkipped);
            this.#deps.logger.error(
              { uetr, skipped: result.changesSkipped },
              'snapshot already held changes sequenced as new; the transaction is read again',
            );
            this.#deps.onConflict(uetr);
          }
        } catch (error) {
          // A failed write may have applied some of it: the changes are guarded, the attempts may repeat.
          const arrived = this.#pending.get(uetr);
          this.#pending.set(uetr, {
            changes: [...changes, ...(arrived?.changes ?? [])],
            attempts: [...attempts, ...(arrived?.attempts ?? [])],
          });
          this.#deps.metrics.snapshotsWaiting(this.#pending.size);
          throw error;
        }
      });
    this.#inFlight.set(uetr, write);
    void write
      .catch(() => undefined)
      .then(() => {
        if (this.#inFlight.get(uetr) === write) this.#inFlight.delete(uetr);
      });
    return write;
  }
}
