import { createLogger } from '@rp/runtime';
import { describe, expect, it } from 'vitest';
import { deliveryLogRetention, postingRetention, purgeDeliveryLog, purgePostings } from './purge.ts';

const logger = createLogger({ service: 'purge-test', level: 'silent' });
const hour = 3_600_000;

describe('posting purge', () => {
  it('keeps postings a day past the retry schedule by default, and refuses a retention within it', () => {
    expect(postingRetention(undefined, 48 * hour)).toBe(72 * hour);
    expect(postingRetention(50 * hour, 48 * hour)).toBe(50 * hour);
    expect(() => postingRetention(48 * hour, 48 * hour)).toThrow(/maximum age/);
  });

  it('deletes in rounds until one finds fewer than a batch, counting from now less the retention', async () => {
    const now = new Date(Date.UTC(2026, 10, 26, 12));
    const calls: { before: Date; limit: number }[] = [];
    const left = [3, 3, 1];
    let purged = 0;
    const total = await purgePostings({
      store: {
        purgePostings: async (before, limit) => {
          calls.push({ before, limit });
          return left.shift() ?? 0;
        },
      },
      clock: { now: () => now },
      logger,
      metrics: { purged: (count) => (purged += count) },
      retentionMs: 72 * hour,
      batch: 3,
    });
    expect(total).toBe(7);
    expect(purged).toBe(7);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({ before: new Date(now.getTime() - 72 * hour), limit: 3 });
  });

  it('stops at a failure and says so, for the next purge to try again', async () => {
    const total = await purgePostings({
      store: {
        purgePostings: async () => {
          throw new Error('store away');
        },
      },
      clock: { now: () => new Date() },
      logger,
      metrics: { purged: () => undefined },
      retentionMs: hour,
      batch: 10,
    });
    expect(total).toBe(0);
  });

  it('keeps the delivery log unless a retention is set, and refuses one within the retry schedule', () => {
    expect(deliveryLogRetention(undefined, 48 * hour)).toBeUndefined();
    expect(deliveryLogRetention(90 * 24 * hour, 48 * hour)).toBe(90 * 24 * hour);
    expect(() => deliveryLogRetention(48 * hour, 48 * hour)).toThrow(/delivery log retention.*maximum age/);
  });

  it('purges the delivery log in rounds while they are full, counting postings apart from the stored ones', async () => {
    const now = new Date(Date.UTC(2026, 11, 3, 12));
    const cuts: Date[] = [];
    // A round's limit is in documents: one that took its two (an entry and a batch of 49) goes on.
    const left = [
      { deleted: 50, full: true },
      { deleted: 1, full: false },
    ];
    const counted = { postings: 0, log: 0 };
    const total = await purgeDeliveryLog({
      deliveryLog: {
        purge: async (before, limit) => {
          cuts.push(before);
          expect(limit).toBe(2);
          return left.shift() ?? { deleted: 0, full: false };
        },
      },
      clock: { now: () => now },
      logger,
      metrics: { deliveryLogPurged: (count) => (counted.log += count) },
      retentionMs: 30 * 24 * hour,
      batch: 2,
    });
    expect(total).toBe(51);
    expect(counted).toEqual({ postings: 0, log: 51 });
    expect(cuts).toEqual([
      new Date(now.getTime() - 30 * 24 * hour),
      new Date(now.getTime() - 30 * 24 * hour),
    ]);
  });

  it('stops before a round once it is asked to', async () => {
    const stop = new AbortController();
    stop.abort();
    let rounds = 0;
    const total = await purgeDeliveryLog(
      {
        deliveryLog: {
          purge: async () => {
            rounds += 1;
            return { deleted: 5, full: true };
          },
        },
        clock: { now: () => new Date() },
        logger,
        metrics: { deliveryLogPurged: () => undefined },
        retentionMs: hour,
        batch: 5,
      },
      stop.signal,
    );
    expect([total, rounds]).toEqual([0, 0]);
  });
});
