import { EventEmitter } from 'node:events';
import type { Collection, MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { expiredWrites, guardWrites, PendingWrites, pendingWritesOf, withinDeadline } from './deadline.ts';
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
      db: { client: new EventEmitter() },
      insertOne: () => new Promise<never>(() => undefined),
      updateOne: () => Promise.resolve({ modifiedCount: 1 }),
      findOne(this: { collectionName: string }) {
        return { readFrom: this.collectionName };
      },
    } as unknown as Collection<{ _id: string; b?: number }>;
    const guarded = guardWrites(collection, { writeDeadlineMs: 20, writeGraceAfterConnectionFailureMs: 10 });
    expect(guarded.collectionName).toBe('debit_queue');
    await expect(guarded.updateOne({ _id: 'a' }, { $set: { b: 1 } })).resolves.toEqual({ modifiedCount: 1 });
    await expect(guarded.insertOne({ _id: 'a' })).rejects.toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('debit_queue.insertOne: no answer within 20 ms'),
    });
    // Not a write: the collection's own method, bound to it, its answer untouched (no promise around it).
    expect(guarded.findOne({ _id: 'a' })).toEqual({ readFrom: 'debit_queue' });
  });

  it('gives a write waiting when a connection fails the grace, not the rest of its deadline', async () => {
    const pending = new PendingWrites(20);
    const told: [number, string][] = [];
    pending.onCutShort((writes, reason) => told.push([writes, reason]));
    const lost = new Promise<never>(() => undefined);
    const started = performance.now();
    const waiting = withinDeadline(60_000, 'idempotency_keys.insertMany', lost, pending).catch(
      (caught: unknown) => caught,
    );
    expect(pending.size).toBe(1);
    pending.connectionFailed('a connection to the server could not be made');
    // Another failure while the grace runs: the write keeps its earlier end, and nobody is told again.
    pending.connectionFailed('a connection to the server could not be made');
    expect(told).toEqual([[1, 'a connection to the server could not be made']]);
    // Sent after the failure: a new connection, held to its own deadline.
    const later = withinDeadline(60_000, 'debit_queue.bulkWrite', Promise.resolve('done'), pending);
    const error = await waiting;
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(error).toMatchObject({ failure: 'unavailable', retriable: true });
    expect((error as Error).message).toContain(
      'idempotency_keys.insertMany: no answer within the 20 ms of grace after a connection to the server could not be made',
    );
    await expect(later).resolves.toBe('done');
    expect(pending.size).toBe(0);
  });

  it('leaves a write alone that a failure finds answered or nearer its own deadline than the grace', async () => {
    const pending = new PendingWrites(60_000);
    const told: number[] = [];
    pending.onCutShort((writes) => told.push(writes));
    const answered = withinDeadline(1_000, 'transactions.updateOne', Promise.resolve(1), pending);
    await expect(answered).resolves.toBe(1);
    const lost = new Promise<never>(() => undefined);
    const short = withinDeadline(20, 'transactions.bulkWrite', lost, pending).catch(
      (caught: unknown) => caught,
    );
    pending.connectionFailed('the connection pool was cleared');
    expect(told).toEqual([]);
    expect((await short) as Error).toMatchObject({
      message: expect.stringContaining('transactions.bulkWrite: no answer within 20 ms'),
    });
    expect(pending.size).toBe(0);
  });

  it("watches the collection's client: a connection failing cuts its guarded writes short, an idle one closing does not", async () => {
    const client = new EventEmitter();
    const collection = {
      collectionName: 'idempotency_keys',
      db: { client },
      insertMany: () => new Promise<never>(() => undefined),
    } as unknown as Collection<{ _id: string }>;
    const guarded = guardWrites(collection, {
      writeDeadlineMs: 60_000,
      writeGraceAfterConnectionFailureMs: 10,
    });
    const waiting = guarded.insertMany([{ _id: 'a' }]).catch((caught: unknown) => caught);
    const told: number[] = [];
    pendingWritesOf(client as unknown as MongoClient, 10).onCutShort((writes) => told.push(writes));
    // The driver's CMAP events, as the client emits them (synchronously): an idle connection closed, or a
    // check-out that timed out, is no failure of the server's connections.
    client.emit('connectionClosed', { reason: 'idle' });
    client.emit('connectionCheckOutFailed', { reason: 'timeout' });
    expect(told).toEqual([]);
    client.emit('connectionCheckOutFailed', { reason: 'connectionError' });
    expect(told).toEqual([1]);
    expect((await waiting) as Error).toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining(
        'idempotency_keys.insertMany: no answer within the 10 ms of grace after a connection to the server could not be made',
      ),
    });
  });
});
