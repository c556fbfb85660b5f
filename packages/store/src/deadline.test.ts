import { describe, expect, it } from 'vitest';
import { expiredWrites, withinDeadline } from './deadline.ts';
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
});
