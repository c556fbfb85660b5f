import type { Logger } from '@rp/runtime';
import type { TransactionRepository, TransactionStateChange } from '@rp/store';
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

/**
 * Write-behind of the transaction snapshots. The tracker hands each batch's applied changes to `add`
 * once their postings are produced; the changes of one transaction wait here and go to MongoDB together,
 * in one guarded write, when the consumer commits (`flush`, before every commit of its offsets), when
 * the tracker needs the snapshot itself (`write`: a transaction's first change, which other services read
 * back at once; a cache miss), or when too many wait. A journey's state changes arrive a few at a time
 * from different services, so most of them share a write with others of their transaction.
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
  readonly #pending = new Map<string, TransactionStateChange[]>();
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
    for (const change of changes) {
      const waiting = this.#pending.get(change.uetr);
      if (waiting) waiting.push(change);
      else this.#pending.set(change.uetr, [change]);
    }
    this.#deps.metrics.snapshotsWaiting(this.#pending.size);
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
        const changes = this.#pending.get(uetr);
        if (!changes) return;
        this.#pending.delete(uetr);
        this.#deps.metrics.snapshotsWaiting(this.#pending.size);
        try {
          const result = await this.#deps.transactions.applyChanges(changes);
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
          const arrived = this.#pending.get(uetr) ?? [];
          this.#pending.set(uetr, [...changes, ...arrived]);
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
