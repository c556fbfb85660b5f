import type { Collection } from 'mongodb';
import { assertIsoDate, debitOrderKey } from './debit-order.ts';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';
import { chunk, mapBounded, type StoreLimits } from './limits.ts';

/** A debit waiting for its debit window. */
export interface DebitQueueItem {
  uetr: string;
  /** Business date (Africa/Johannesburg) of the debit window it waits for, `YYYY-MM-DD`. */
  windowDate: string;
  /** `YYYY-MM-DD`, from the debit. */
  requestedCollectionDate: string;
  creditorAgentMemberId: string;
  /** An on-us debit, or an off-us debit that came in from a clearing house. */
  origin: 'on-us' | 'inbound';
  enqueuedAt: Date;
  /** The debit message to dispatch, as JSON text. */
  messageJson: string;
}

export interface QueuedDebit extends DebitQueueItem {
  /** Its place in the window; see `debitOrderKey`. */
  orderKey: string;
}

export interface DrainOptions {
  /** Debits per yielded batch (also the cursor's batch size). Default 100, at most 1,000. */
  batchSize?: number;
}

interface DebitQueueDocument {
  _id: string;
  windowDate: string;
  orderKey: string;
  requestedCollectionDate: string;
  creditorAgentMemberId: string;
  origin: 'on-us' | 'inbound';
  enqueuedAt: Date;
  messageJson: string;
}

const maxDrainResumes = 3;

/**
 * The durable queue of debits held until their debit window: `_id` = UETR (so a redelivered debit is
 * queued once), drained per window in `orderKey` order through one cursor, removed in small batches
 * once dispatched.
 */
export class DebitQueueRepository {
  readonly #collection: Collection<DebitQueueDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<DebitQueueDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  /** Queues a debit once: a second enqueue of the same UETR leaves the first in place. */
  async enqueue(item: DebitQueueItem): Promise<{ outcome: 'enqueued' | 'already-queued'; orderKey: string }> {
    assertIsoDate(item.windowDate, 'windowDate');
    const orderKey = debitOrderKey(item);
    try {
      await this.#collection.insertOne(
        {
          _id: item.uetr,
          windowDate: item.windowDate,
          orderKey,
          requestedCollectionDate: item.requestedCollectionDate,
          creditorAgentMemberId: item.creditorAgentMemberId,
          origin: item.origin,
          enqueuedAt: item.enqueuedAt,
          messageJson: item.messageJson,
        },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return { outcome: 'enqueued', orderKey };
    } catch (error) {
      if (isDuplicateKey(error)) return { outcome: 'already-queued', orderKey };
      throw toStoreError(error, `enqueue debit ${item.uetr}`);
    }
  }

  /** Debits waiting for one window, or in the whole queue (an estimate from collection metadata). */
  async depth(windowDate?: string): Promise<number> {
    try {
      if (windowDate === undefined) {
        return await this.#collection.estimatedDocumentCount({ maxTimeMS: this.#limits.queryMaxTimeMs });
      }
      assertIsoDate(windowDate, 'windowDate');
      return await this.#collection.countDocuments(
        { windowDate },
        { maxTimeMS: this.#limits.queryMaxTimeMs },
      );
    } catch (error) {
      throw toStoreError(error, 'measure debit queue depth');
    }
  }

  /**
   * The window's debits in `orderKey` order, in batches of `batchSize`, streamed from one cursor so the
   * queue is never held in memory. Debits stay queued until `markDispatched`; a drain that stops half
   * way (crash, break) leaves the rest for the next drain, which starts again at the first one still
   * queued. If the cursor fails with a retriable error the drain resumes after the last debit yielded.
   * Debits queued for the window while a drain runs may or may not be seen by it: drain again until
   * `depth(windowDate)` is 0.
   */
  async *drain(
    windowDate: string,
    options: DrainOptions = {},
  ): AsyncGenerator<QueuedDebit[], void, undefined> {
    assertIsoDate(windowDate, 'windowDate');
    const batchSize = Math.min(Math.max(1, options.batchSize ?? 100), 1_000);
    let after: string | undefined;
    let resumes = 0;
    for (;;) {
      const cursor = this.#collection
        .find(after === undefined ? { windowDate } : { windowDate, orderKey: { $gt: after } }, {
          maxTimeMS: this.#limits.queryMaxTimeMs,
          batchSize,
        })
        .sort({ orderKey: 1 });
      try {
        let batch: QueuedDebit[] = [];
        for await (const document of cursor) {
          batch.push(toQueuedDebit(document));
          if (batch.length === batchSize) {
            after = document.orderKey;
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
        return;
      } catch (error) {
        const failure = toStoreError(error, `drain debit queue of window ${windowDate}`);
        if (!failure.retriable || resumes >= maxDrainResumes) throw failure;
        resumes += 1;
      } finally {
        await cursor.close().catch(() => undefined);
      }
    }
  }

  /** Takes dispatched debits off the queue. Returns how many were still queued. */
  async markDispatched(uetrs: readonly string[]): Promise<number> {
    return this.#delete(uetrs, 'mark debits dispatched');
  }

  /** Withdraws debits that will not be dispatched (e.g. cancelled before their window). */
  async remove(uetrs: readonly string[]): Promise<number> {
    return this.#delete(uetrs, 'remove debits from the queue');
  }

  async get(uetr: string): Promise<QueuedDebit | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: uetr },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : toQueuedDebit(document);
    } catch (error) {
      throw toStoreError(error, `read queued debit ${uetr}`);
    }
  }

  /**
   * Deletes by `_id` in bulk writes of at most `bulkBatchSize` deletes, a few bulks in flight: one round
   * trip per batch on MongoDB, and on the local server (which runs a bulk's deletes one after another)
   * still several batches at once. `deleteMany` with `$in` is avoided: the local server cannot use the
   * `_id` index for `$in` and scans the whole queue for every batch.
   */
  async #delete(uetrs: readonly string[], operation: string): Promise<number> {
    const batches = chunk([...new Set(uetrs)], this.#limits.bulkBatchSize);
    const parallel = Math.max(1, Math.floor(this.#limits.writeConcurrency / 4));
    try {
      const deleted = await mapBounded(batches, parallel, async (batch) => {
        const result = await this.#collection.bulkWrite(
          batch.map((uetr) => ({ deleteOne: { filter: { _id: uetr } } })),
          { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
        );
        return result.deletedCount;
      });
      return deleted.reduce((sum, count) => sum + count, 0);
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }
}

function toQueuedDebit(document: DebitQueueDocument): QueuedDebit {
  if (typeof document.orderKey !== 'string') {
    throw new StoreError('inconsistent', `queued debit ${document._id} has no order key`);
  }
  return {
    uetr: document._id,
    windowDate: document.windowDate,
    orderKey: document.orderKey,
    requestedCollectionDate: document.requestedCollectionDate,
    creditorAgentMemberId: document.creditorAgentMemberId,
    origin: document.origin,
    enqueuedAt: document.enqueuedAt,
    messageJson: document.messageJson,
  };
}

export type { DebitQueueDocument };
