import {
  type Collection,
  type Document,
  MongoBulkWriteError,
  MongoServerError,
  type OptionalUnlessRequiredId,
} from 'mongodb';
import { DUPLICATE_KEY, toStoreError } from './errors.ts';

/** What became of one document: stored, or its `_id` was there already (nothing was written). */
export type GroupedInsertResult = 'inserted' | 'duplicate';

export interface GroupedInsertOptions {
  /** Most documents in one insert command. */
  readonly maxBatch: number;
  /** Most insert commands in flight at once; what waits meanwhile joins the next one. */
  readonly maxInFlight: number;
  readonly maxTimeMs: number;
  /** Names the operation in errors. */
  readonly operation: string;
}

interface Waiting<D> {
  readonly document: D;
  readonly resolve: (result: GroupedInsertResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit of single-document inserts: the inserts asked for while the event loop turns (and while
 * `maxInFlight` commands are out) go to the server as one unordered `insertMany`, and each caller learns
 * its own document's fate: inserted, a duplicate `_id`, or an error. Unordered, so one document's
 * failure never holds the others back.
 *
 * An insert costs the MongoDB-compatible server of the local stack about a tenth as much in a batch as
 * alone (measured: 0.12 ms of machine CPU a document in batches of 50, 1.2 ms one by one), and saves a
 * round trip on MongoDB. Under light load every batch holds one document and nothing waits longer than
 * before; the batches grow with the load.
 */
export class GroupedInserts<D extends Document & { _id: string }> {
  readonly #collection: Collection<D>;
  readonly #options: GroupedInsertOptions;
  #waiting: Waiting<D>[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(collection: Collection<D>, options: GroupedInsertOptions) {
    this.#collection = collection;
    this.#options = options;
  }

  insert(document: D): Promise<GroupedInsertResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ document, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0 || this.#inFlight >= this.#options.maxInFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#waiting.length > 0 && this.#inFlight < this.#options.maxInFlight) {
        const batch = this.#waiting.splice(0, this.#options.maxBatch);
        this.#inFlight += 1;
        void this.#send(batch).finally(() => {
          this.#inFlight -= 1;
          this.#schedule();
        });
      }
    });
  }

  async #send(batch: readonly Waiting<D>[]): Promise<void> {
    try {
      await this.#collection.insertMany(
        batch.map((entry) => entry.document as OptionalUnlessRequiredId<D>),
        { ordered: false, maxTimeMS: this.#options.maxTimeMs },
      );
      for (const entry of batch) entry.resolve('inserted');
      return;
    } catch (error) {
      settleFailedBatch(batch, error, this.#options.operation);
    }
  }
}

/**
 * After an unordered insert failed: the documents the server named in its write errors failed (a
 * duplicate `_id` is an answer, not a failure), the others were stored. An error without per-document
 * detail (the connection, a timeout, a write concern) fails every document of the batch: the caller
 * retries, and a retried insert of a stored document comes back as a duplicate.
 */
function settleFailedBatch<D>(batch: readonly Waiting<D>[], error: unknown, operation: string): void {
  const perDocument =
    error instanceof MongoBulkWriteError && error.writeConcernError === undefined
      ? new Map(
          (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).map((writeError) => [
            writeError.index,
            writeError,
          ]),
        )
      : undefined;
  if (perDocument === undefined || perDocument.size === 0) {
    const failure = toStoreError(error, operation);
    for (const entry of batch) entry.reject(failure);
    return;
  }
  batch.forEach((entry, index) => {
    const writeError = perDocument.get(index);
    if (writeError === undefined) entry.resolve('inserted');
    else if (writeError.code === DUPLICATE_KEY || writeError.code === 11001) entry.resolve('duplicate');
    else {
      // As a server error, so that its code (or a backing-database failure in its message) is classified.
      const serverError = new MongoServerError({ message: writeError.errmsg ?? '', code: writeError.code });
      entry.reject(toStoreError(serverError, operation));
    }
  });
}
