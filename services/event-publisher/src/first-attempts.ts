import type { DeliveryLogRepository, EventDeliveryRecord } from '@rp/store';

export interface FirstAttemptLogDeps {
  readonly deliveryLog: Pick<DeliveryLogRepository, 'recordFirstAttempts'>;
  /** Records waiting at most; past this, `whenRoom` waits for a write. */
  readonly maxWaiting: number;
  /** Told how many records wait (not counting a write in progress) each time that changes. */
  readonly onWaiting?: (waiting: number) => void;
  /** Told how many records each write wrote, once it has. */
  readonly onWritten?: (records: number) => void;
}

/**
 * Write-behind of the delivery log records of the postings the consumer sent at once. The consumer hands
 * each batch's records to `add` and goes on; they go to MongoDB together, many batches and partitions in
 * one insert command, when the consumer commits (`flush`, before every commit of its offsets), or when
 * too many wait (`whenRoom`).
 *
 * Nothing is lost: the consumer commits a record's offset only after `flush` has written the log records
 * of its postings, so a crash re-delivers the records whose log records were still waiting, and their
 * postings are sent again (the bank drops the repeat by webhook-id) and logged then. Writes go one after
 * another; a failed write puts its records back in front of what arrived meanwhile, for the next write.
 * Until it is written a record is known only here, so the log shows a posting sent at once up to a
 * commit interval after its delivery.
 */
export class FirstAttemptLog {
  readonly #deps: FirstAttemptLogDeps;
  #waiting: EventDeliveryRecord[] = [];
  /** The last write: each write starts once the one before it has ended. */
  #written: Promise<void> = Promise.resolve();

  constructor(deps: FirstAttemptLogDeps) {
    this.#deps = deps;
  }

  /** Records waiting for a write (not counting a write in progress). */
  get size(): number {
    return this.#waiting.length;
  }

  /**
   * Hands records over. One the log refuses whatever the write (no event id or UETR) is not kept: it
   * would fail every write it is part of, and hold every commit. Returns the records not kept.
   */
  add(records: readonly EventDeliveryRecord[]): EventDeliveryRecord[] {
    const refused: EventDeliveryRecord[] = [];
    for (const record of records) {
      if (record.posting.eventId && record.posting.uetr) this.#waiting.push(record);
      else refused.push(record);
    }
    this.#deps.onWaiting?.(this.#waiting.length);
    return refused;
  }

  /**
   * Writes every record added before the call: once it resolves, all of them are in MongoDB. Throws if
   * the write failed (its records wait for the next).
   */
  flush(): Promise<void> {
    const write = this.#written
      .catch(() => undefined)
      .then(async () => {
        const batch = this.#waiting;
        if (batch.length === 0) return;
        this.#waiting = [];
        this.#deps.onWaiting?.(0);
        try {
          await this.#deps.deliveryLog.recordFirstAttempts(batch);
          this.#deps.onWritten?.(batch.length);
        } catch (error) {
          this.#waiting = [...batch, ...this.#waiting];
          this.#deps.onWaiting?.(this.#waiting.length);
          throw error;
        }
      });
    this.#written = write;
    return write;
  }

  /**
   * Resolves at once while fewer than `maxWaiting` records wait; else once a write has brought them under
   * it, writing again every `retryMs` while writes fail, until `signal` aborts (then it throws). While it
   * waits it calls `heartbeat` every `heartbeatMs`: a consumer whose handlers all wait here would
   * otherwise be taken for dead by its group, and lose its partitions.
   */
  async whenRoom(options: {
    readonly signal: AbortSignal;
    readonly heartbeat: () => Promise<void>;
    readonly onFailure: (error: unknown) => void;
    readonly retryMs?: number;
    readonly heartbeatMs?: number;
  }): Promise<void> {
    if (this.#waiting.length < this.#deps.maxWaiting) return;
    const { signal } = options;
    const beating = setInterval(() => {
      options.heartbeat().catch(() => undefined);
    }, options.heartbeatMs ?? 1_000);
    try {
      while (this.#waiting.length >= this.#deps.maxWaiting) {
        signal.throwIfAborted();
        try {
          await this.flush();
        } catch (error) {
          options.onFailure(error);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, options.retryMs ?? 1_000);
            function done() {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              resolve();
            }
            signal.addEventListener('abort', done, { once: true });
          });
        }
      }
    } finally {
      clearInterval(beating);
    }
  }
}
