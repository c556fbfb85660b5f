import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { toStoreError } from './errors.ts';
import { storeIndexes } from './indexes.ts';
import { connectStore } from './store.ts';

describe('Store', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('store');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('answers ping for readiness', async () => {
    const latency = await context.store.ping();
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThan(5_000);
  });

  it('creates every index, and creating them again changes nothing', async () => {
    const first = await context.store.listIndexes();
    await context.store.ensureIndexes();
    const second = await context.store.listIndexes();
    expect(second).toEqual(first);
    for (const [collection, indexes] of Object.entries(storeIndexes)) {
      expect(first[collection as keyof typeof first]).toEqual(
        ['_id_', ...indexes.map((index) => index.name)].sort(),
      );
    }
  });

  it('reports an unreachable server as a retriable StoreError', async () => {
    await expect(
      connectStore({
        uri: 'mongodb://127.0.0.1:1/',
        database: 'unreachable',
        appName: 'store-test',
        serverSelectionTimeoutMs: 300,
      }),
    ).rejects.toMatchObject({ failure: 'unavailable', code: 'STORE_UNAVAILABLE', retriable: true });
  });

  it('reports a duplicate key outside the idempotent paths as a non-retriable StoreError', async () => {
    const db = context.raw.db(context.databaseName);
    const error = await db
      .collection('debit_queue')
      .insertMany([{ _id: 'a' as never }, { _id: 'a' as never }])
      .catch((caught: unknown) => toStoreError(caught, 'insert'));
    expect(error).toMatchObject({ failure: 'duplicate-key', code: 'CONFLICT', retriable: false });
  });
});
