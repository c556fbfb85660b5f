import type { Collection, Filter, IndexDescription } from 'mongodb';
import { toStoreError } from './errors.ts';
import { chunk, type StoreLimits } from './limits.ts';

/** How a purge finds what it deletes, and how much it takes at once. */
export interface DeleteFoundOptions<T = { _id: string }> {
  /** Most documents found, and so deleted, by one call. */
  limit: number;
  /** Most deletes in one bulk command (the local MongoDB-compatible server stalls above a few dozen). */
  chunkSize: number;
  limits: StoreLimits;
  /** Told the `_id`s of each bulk command once it is answered (to forget them in a cache, say). */
  onDeleted?: (ids: readonly string[]) => void;
  /**
   * What a document found counts for in the returned total (default 1 each), from the fields `projection`
   * reads besides `_id`. A command that deletes fewer than it was sent (another purge took some) counts
   * what it deleted as one each.
   */
  weigh?: { readonly projection: Record<string, 1>; readonly of: (document: T) => number };
}

/**
 * Finds at most `limit` documents matching `filter` (their `_id`s alone) and deletes them by `_id`,
 * `chunkSize` a command; returns how many went. Deleting by `_id` alone keeps each delete an index
 * lookup on the local MongoDB-compatible server, where a delete filtered by more than `_id` scans. The
 * price: a document changed between the read and its delete goes too, so `filter` must pick documents
 * no one changes any more. Errors are the driver's: the caller names the operation.
 */
export async function deleteFoundById<T extends { _id: string }>(
  collection: Collection<T>,
  filter: Filter<T>,
  options: DeleteFoundOptions<T>,
): Promise<number> {
  const untyped = collection as unknown as Collection<{ _id: string }>;
  const found = (await untyped
    .find(filter as Filter<{ _id: string }>, {
      projection: { ...options.weigh?.projection, _id: 1 },
      limit: options.limit,
      maxTimeMS: options.limits.queryMaxTimeMs,
    })
    .toArray()) as unknown as T[];
  let deleted = 0;
  for (const group of chunk(found, options.chunkSize)) {
    const ids = group.map((document) => document._id);
    const result = await untyped.bulkWrite(
      ids.map((id) => ({ deleteOne: { filter: { _id: id } } })),
      { ordered: false, maxTimeMS: options.limits.operationMaxTimeMs },
    );
    const weigh = options.weigh;
    deleted +=
      weigh === undefined || result.deletedCount < group.length
        ? result.deletedCount
        : group.reduce((sum, document) => sum + weigh.of(document), 0);
    options.onDeleted?.(ids);
  }
  return deleted;
}

/**
 * Creates `index` on `collection` unless one of its name is there: for an index only a deployment with a
 * retention needs (a purge's), which every write would otherwise pay for (on the local stand-in twice,
 * with the GIN twin its stack gives each index's leading key). `what` names it in an error.
 */
export async function ensureIndexOnce<T extends { _id: string }>(
  collection: Collection<T>,
  index: IndexDescription & { name: string },
  limits: StoreLimits,
  what: string,
): Promise<void> {
  try {
    const present = (await collection.listIndexes().toArray()).some(
      (existing) => existing.name === index.name,
    );
    if (!present) await collection.createIndexes([index], { maxTimeMS: limits.queryMaxTimeMs });
  } catch (error) {
    throw toStoreError(error, `ensure ${what}`);
  }
}
