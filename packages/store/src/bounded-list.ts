import type { Collection, Document } from 'mongodb';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';

export interface BoundedPush {
  id: string;
  /** The array that holds the newest entries. */
  arrayField: string;
  /** Counts every entry ever pushed; also the guard of the trimming write. */
  countField: string;
  entry: Document;
  /** Readers show the newest `keep`; the document holds at most `2 * keep`. */
  keep: number;
  /** Other changes made in the same write. `$setOnInsert` applies only when the push creates the document. */
  set?: Document;
  max?: Document;
  setOnInsert?: Document;
  maxTimeMs: number;
  operation: string;
}

const maxTrimAttempts = 3;

/**
 * Appends an entry to a bounded list in one write while the list has room, which is nearly always.
 *
 * `$push` with `$slice` would do this in one write on MongoDB, but the local MongoDB-compatible server
 * accepts `$slice` and ignores it, so the list would grow without limit there. Instead the push is
 * filtered on the list having fewer than `2 * keep` entries; when it is full, the filter fails, the
 * upsert collides with the existing `_id`, and the list is rewritten to its newest `keep` entries by a
 * write guarded on the entry count (so a concurrent push is never lost). That costs three round trips
 * once every `keep` pushes.
 */
export async function pushBounded(collection: Collection<Document>, push: BoundedPush): Promise<void> {
  const capacity = 2 * push.keep;
  try {
    await collection.updateOne(
      { _id: push.id, [`${push.arrayField}.${capacity - 1}`]: { $exists: false } } as Document,
      {
        $push: { [push.arrayField]: push.entry },
        $inc: { [push.countField]: 1 },
        ...(push.set === undefined ? {} : { $set: push.set }),
        ...(push.max === undefined ? {} : { $max: push.max }),
        ...(push.setOnInsert === undefined ? {} : { $setOnInsert: push.setOnInsert }),
      } as Document,
      { upsert: true, maxTimeMS: push.maxTimeMs },
    );
    return;
  } catch (error) {
    if (!isDuplicateKey(error)) throw toStoreError(error, push.operation);
  }
  for (let attempt = 1; attempt <= maxTrimAttempts; attempt += 1) {
    try {
      const document = await collection.findOne({ _id: push.id } as Document, {
        projection: { [push.arrayField]: 1, [push.countField]: 1 },
        maxTimeMS: push.maxTimeMs,
      });
      const current: unknown = document?.[push.arrayField];
      const count: unknown = document?.[push.countField];
      if (!Array.isArray(current) || typeof count !== 'number') {
        throw new StoreError(
          'inconsistent',
          `${push.operation}: ${push.id} has no ${push.arrayField} list to trim`,
        );
      }
      const kept = [...(push.keep > 1 ? current.slice(-(push.keep - 1)) : []), push.entry];
      const result = await collection.updateOne(
        { _id: push.id, [push.countField]: count } as Document,
        {
          $set: { ...push.set, [push.arrayField]: kept },
          $inc: { [push.countField]: 1 },
          ...(push.max === undefined ? {} : { $max: push.max }),
        },
        { maxTimeMS: push.maxTimeMs },
      );
      if (result.matchedCount === 1) return;
    } catch (error) {
      throw toStoreError(error, push.operation);
    }
  }
  throw new StoreError(
    'inconsistent',
    `${push.operation}: ${push.id} kept changing while its list was trimmed`,
  );
}
