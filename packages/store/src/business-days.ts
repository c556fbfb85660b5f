import type { Collection, Document, WithId } from 'mongodb';
import { StoreError, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

const businessDatePattern = /^\d{4}-\d{2}-\d{2}$/;

/** Refuses (`invalid-input`) anything but a business date `YYYY-MM-DD`, a document's `_id` by day. */
export function assertBusinessDate(date: string): void {
  if (!businessDatePattern.test(date)) throw new StoreError('invalid-input', `not a business date: ${date}`);
}

/**
 * The documents of the latest business days (`_id` = the date), newest first: at least one, at most a
 * year's. `what` names them in the error when the store does not answer.
 */
export async function latestByBusinessDate<T extends Document & { _id: string }>(
  collection: Collection<T>,
  limit: number,
  limits: StoreLimits,
  what: string,
): Promise<WithId<T>[]> {
  try {
    return await collection
      .find({}, { maxTimeMS: limits.queryMaxTimeMs })
      .sort({ _id: -1 })
      .limit(Math.min(Math.max(1, limit), 366))
      .toArray();
  } catch (error) {
    throw toStoreError(error, `read the ${what}`);
  }
}
