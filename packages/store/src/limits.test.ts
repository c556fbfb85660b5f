import { describe, expect, it } from 'vitest';
import { chunk, mapBounded } from './limits.ts';

describe('chunk', () => {
  it('splits into slices of at most the size, in order', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 25)).toEqual([]);
  });
});

describe('mapBounded', () => {
  it('never has more than the limit in flight and keeps input order', async () => {
    let inFlight = 0;
    let highest = 0;
    const results = await mapBounded(
      Array.from({ length: 50 }, (_, index) => index),
      4,
      async (value) => {
        inFlight += 1;
        highest = Math.max(highest, inFlight);
        await new Promise<void>((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return value * 2;
      },
    );
    expect(highest).toBe(4);
    expect(results).toEqual(Array.from({ length: 50 }, (_, index) => index * 2));
  });

  it('rejects with the first failure after the started calls settle, starting no more', async () => {
    const started: number[] = [];
    let settled = 0;
    const run = mapBounded([0, 1, 2, 3, 4, 5, 6, 7], 2, async (value) => {
      started.push(value);
      await new Promise<void>((resolve) => setImmediate(resolve));
      settled += 1;
      if (value === 1) throw new Error('boom');
      return value;
    });
    await expect(run).rejects.toThrow('boom');
    expect(settled).toBe(started.length);
    expect(started.length).toBeLessThan(8);
  });
});
