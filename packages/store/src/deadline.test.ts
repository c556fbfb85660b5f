import type { Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { expiredWrites, guardWrites, withinDeadline } from './deadline.ts';
import { StoreError } from './errors.ts';

describe('withinDeadline', () => {
  it('passes a write that settles through, its result or its error, and counts nothing expired', async () => {
    const before = expiredWrites();
    await expect(withinDeadline(1_000, 'debit_queue.updateOne', Promise.resolve('done'))).resolves.toBe(
      'done',
    );
    const failure = new Error('refused');
    await expect(withinDeadline(1_000, 'debit_queue.updateOne', Promise.reject(failure))).rejects.toBe(
      failure,
    );
    expect(expiredWrites()).toBe(before);
  });

  it('fails a write that never settles as a retriable store outage naming the operation', async () => {
    const before = expiredWrites();
    const lost = new Promise<never>(() => undefined);
    const error = await withinDeadline(20, 'transactions.bulkWrite', lost).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ failure: 'unavailable', retriable: true });
    expect((error as Error).message).toContain('transactions.bulkWrite: no answer within 20 ms');
    expect(expiredWrites()).toBe(before + 1);
  });

  it('puts the writes of a collection under the deadline and leaves its reads as they are', async () => {
    // The collection's shape only: what the proxy does with a method, not what a server does.
    const collection = {
      collectionName: 'debit_queue',
      insertOne: () => new Promise<never>(() => undefined),
      updateOne: () => Promise.resolve({ modifiedCount: 1 }),
      findOne(this: { collectionName: string }) {
        return { readFrom: this.collectionName };
      },
    } as unknown as Collection<{ _id: string; b?: number }>;
    const guarded = guardWrites(collection, 20);
    expect(guarded.collectionName).toBe('debit_queue');
    await expect(guarded.updateOne({ _id: 'a' }, { $set: { b: 1 } })).resolves.toEqual({ modifiedCount: 1 });
    await expect(guarded.insertOne({ _id: 'a' })).rejects.toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('debit_queue.insertOne: no answer within 20 ms'),
    });
    // Not a write: the collection's own method, bound to it, its answer untouched (no promise around it).
    expect(guarded.findOne({ _id: 'a' })).toEqual({ readFrom: 'debit_queue' });
  });
});
