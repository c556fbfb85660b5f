import type { Collection } from 'mongodb';
import { assertBusinessDate, latestByBusinessDate } from './business-days.ts';
import { toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** An operator's word on one business day's debit window: opened early or closed for the rest of the day. */
export type DebitWindowOverride = 'open' | 'closed';

export interface WindowOverride {
  /** The business date (`YYYY-MM-DD`, the windows' time zone). */
  businessDate: string;
  debit: DebitWindowOverride;
  /** Who said so (the authenticated operator), and when. */
  actor: string;
  at: Date;
}

export interface WindowOverrideDocument {
  _id: string;
  debit: DebitWindowOverride;
  actor: string;
  at: Date;
}

/**
 * What operators did to the windows, kept so that a scheduler that restarts (or crashes) honours it: an
 * opened window stays open, a closed one stays closed. One small document per business day, by `_id`.
 */
export class WindowOverrideRepository {
  readonly #collection: Collection<WindowOverrideDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<WindowOverrideDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  /** Records the day's override (the latest one wins). */
  async set(override: WindowOverride): Promise<void> {
    assertBusinessDate(override.businessDate);
    try {
      await this.#collection.updateOne(
        { _id: override.businessDate },
        { $set: { debit: override.debit, actor: override.actor, at: override.at } },
        { upsert: true, maxTimeMS: this.#limits.operationMaxTimeMs },
      );
    } catch (error) {
      throw toStoreError(error, `record the window override of ${override.businessDate}`);
    }
  }

  /** The overrides of the most recent business days, newest first. */
  async recent(limit: number): Promise<WindowOverride[]> {
    const documents = await latestByBusinessDate(this.#collection, limit, this.#limits, 'window overrides');
    return documents.map((document) => ({
      businessDate: document._id,
      debit: document.debit,
      actor: document.actor,
      at: document.at,
    }));
  }
}
