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
  /**
   * Told the `_id`s of each bulk command once it is answered (to forget them in a cache, say); one that
   * changed since it was found is among them, though it stayed.
   */
  onDeleted?: (ids: readonly string[]) => void;
  /**
   * What a document found counts for in the returned total (default 1 each), from the fields `projection`
   * reads besides `_id`. A command that deletes fewer than it was sent (another purge took some, or some
   * changed since they were found) counts what it deleted as one each.
   */
  weigh?: { readonly projection: Record<string, 1>; readonly of: (document: T) => number };
}

/**
 * Finds at most `limit` documents matching `filter` (their `_id`s and what `weigh` reads) and deletes
 * them, `chunkSize` a command; returns how many went. Each delete names its document's `_id` and repeats
 * `filter`, so a document changed between the read and its delete (a posting stored again, a log entry a
 * replay added to, a key claimed again after another purge took it) stays when it no longer matches.
 * The `_id` keeps each delete an index lookup on the local MongoDB-compatible server too, which checks
 * the rest of the filter on the one document it finds (a delete without `_id` scans the collection
 * there). Errors are the driver's: the caller names the operation.
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
      ids.map((id) => ({ deleteOne: { filter: { ...filter, _id: id } as Filter<{ _id: string }> } })),
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
