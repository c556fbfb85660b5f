import type { Collection } from 'mongodb';
import { assertBusinessDate, latestByBusinessDate } from './business-days.ts';
import { StoreError, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** One business day's reconciliation close, as it has run. */
export interface ReconciliationClose {
  /** The business date (`YYYY-MM-DD`, the windows' time zone) whose window closed. */
  businessDate: string;
  /** The instant the window closed: its scheduled close, or when an operator closed it. Kept from the first run. */
  closedAt: Date;
  /** When the close ran first and last (an operator may run it again; nothing is raised twice). */
  firstRunAt: Date;
  lastRunAt: Date;
  runs: number;
  /** Items raised over all its runs. */
  raised: number;
}

export interface ReconciliationCloseDocument {
  _id: string;
  closedAt: Date;
  firstRunAt: Date;
  lastRunAt: Date;
  runs: number;
  raised: number;
}

/**
 * The reconciliation closes that have run, one small document per business day by `_id`: a scheduler
 * that starts again knows which days it has closed, so it neither runs a day's close again after a
 * restart nor misses one that came while it was down.
 */
export class ReconciliationCloseRepository {
  readonly #collection: Collection<ReconciliationCloseDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<ReconciliationCloseDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  /** Records a run of the day's close: the first run's instants are kept, the runs and items added up. */
  async record(close: { businessDate: string; closedAt: Date; ranAt: Date; raised: number }): Promise<void> {
    assertBusinessDate(close.businessDate);
    if (!Number.isSafeInteger(close.raised) || close.raised < 0) {
      throw new StoreError('invalid-input', `raised must be a whole number of items, got ${close.raised}`);
    }
    try {
      await this.#collection.updateOne(
        { _id: close.businessDate },
        {
          $setOnInsert: { closedAt: close.closedAt, firstRunAt: close.ranAt },
          $set: { lastRunAt: close.ranAt },
          $inc: { runs: 1, raised: close.raised },
        },
        { upsert: true, maxTimeMS: this.#limits.operationMaxTimeMs },
      );
    } catch (error) {
      throw toStoreError(error, `record the reconciliation close of ${close.businessDate}`);
    }
  }

  /** The closes of the most recent business days, newest first. */
  async recent(limit: number): Promise<ReconciliationClose[]> {
    const documents = await latestByBusinessDate(
      this.#collection,
      limit,
      this.#limits,
      'reconciliation closes',
    );
    return documents.map((document) => ({
      businessDate: document._id,
      closedAt: document.closedAt,
      firstRunAt: document.firstRunAt,
      lastRunAt: document.lastRunAt,
      runs: document.runs,
      raised: document.raised,
    }));
  }
}
