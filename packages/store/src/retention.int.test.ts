import type { Collection } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { defaultStoreLimits } from './limits.ts';
import { deleteFoundById } from './retention.ts';

interface Kept {
  _id: string;
  updatedAt: Date;
  entries: number;
}

describe('deleteFoundById', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('retention');
  });
  afterEach(async () => {
    await context.dispose();
  });

  const old = new Date('2026-11-01T08:00:00.000Z');
  const cut = new Date('2026-11-02T00:00:00.000Z');

  it('leaves a document that changed or was made again between the read and its delete', async () => {
    const collection = context.raw.db(context.databaseName).collection<Kept>('retention_probe');
    await collection.insertMany(
      Array.from({ length: 6 }, (_, index) => ({ _id: `doc-${index}`, updatedAt: old, entries: 2 })),
    );
    // The real collection, except that the purge's delete command meets two writes of others first: one
    // document changed (a replay's attempt), one taken by another purge and claimed again since.
    const racing = new Proxy(collection, {
      get(target, property, receiver) {
        if (property !== 'bulkWrite') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Collection<Kept>['bulkWrite']>) => {
          await target.updateOne({ _id: 'doc-1' }, { $set: { updatedAt: new Date() } });
          await target.deleteOne({ _id: 'doc-4' });
          await target.insertOne({ _id: 'doc-4', updatedAt: new Date(), entries: 1 });
          return target.bulkWrite(...args);
        };
      },
    });

    const deleted = await deleteFoundById(
      racing,
      { updatedAt: { $lt: cut } },
      {
        limit: 10,
        chunkSize: 25,
        limits: defaultStoreLimits,
        weigh: { projection: { entries: 1 }, of: (document) => document.entries },
      },
    );

    // Four of the six found went; the two written since stay, so the command's count is taken as is.
    expect(deleted).toBe(4);
    expect((await collection.find({}).toArray()).map((document) => document._id).sort()).toEqual([
      'doc-1',
      'doc-4',
    ]);
    expect(await collection.countDocuments({ updatedAt: { $lt: cut } })).toBe(0);
  });

  it('counts what each document found weighs when every one of them went', async () => {
    const collection = context.raw.db(context.databaseName).collection<Kept>('retention_probe');
    await collection.insertMany([
      { _id: 'a', updatedAt: old, entries: 3 },
      { _id: 'b', updatedAt: old, entries: 5 },
      { _id: 'c', updatedAt: new Date(), entries: 7 },
    ]);
    const sent: string[][] = [];
    const deleted = await deleteFoundById(
      collection,
      { updatedAt: { $lt: cut } },
      {
        limit: 10,
        chunkSize: 1,
        limits: defaultStoreLimits,
        weigh: { projection: { entries: 1 }, of: (document) => document.entries },
        onDeleted: (ids) => sent.push([...ids]),
      },
    );
    expect(deleted).toBe(8);
    expect(sent.flat().sort()).toEqual(['a', 'b']);
    expect(sent).toHaveLength(2);
    expect(await collection.countDocuments({})).toBe(1);
  });
});
