import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counterIncrease, RateTracker, ratePerSecond } from './rates.ts';

describe('counterIncrease and ratePerSecond', () => {
  it('is the difference, or the new value after a reset', () => {
    expect(counterIncrease(10, 25)).toBe(15);
    expect(counterIncrease(10, 10)).toBe(0);
    expect(counterIncrease(100, 7)).toBe(7);
  });

  it('divides by the seconds between the samples; no rate over no time', () => {
    expect(ratePerSecond({ at: 1_000, value: 10 }, { at: 3_000, value: 30 })).toBe(10);
    expect(ratePerSecond({ at: 1_000, value: 10 }, { at: 1_500, value: 11 })).toBe(2);
    expect(ratePerSecond({ at: 1_000, value: 10 }, { at: 1_000, value: 30 })).toBeUndefined();
    expect(ratePerSecond({ at: 2_000, value: 10 }, { at: 1_000, value: 30 })).toBeUndefined();
  });
});

describe('RateTracker', () => {
  it('has no rate for the first sample, then the rate since the previous poll', () => {
    const rates = new RateTracker();
    expect(rates.observe('received', 0, 100)).toBeNull();
    expect(rates.observe('received', 2_000, 110)).toBe(5);
    expect(rates.observe('received', 4_000, 110)).toBe(0);
    expect(rates.observe('received', 6_000, 150)).toBe(20);
  });

  it('keeps series apart', () => {
    const rates = new RateTracker();
    rates.observe('a', 0, 0);
    rates.observe('b', 0, 1_000);
    expect(rates.observe('a', 1_000, 3)).toBe(3);
    expect(rates.observe('b', 1_000, 1_000)).toBe(0);
    expect(rates.size).toBe(2);
  });

  it('measures over at least the minimum interval, so pages polling out of step agree', () => {
    const rates = new RateTracker({ minIntervalMs: 1_000 });
    rates.observe('s', 0, 0);
    rates.observe('s', 2_000, 20); // 10/s
    // A second page polls 100 ms later: measured against the sample at 0, not over 100 ms.
    expect(rates.observe('s', 2_100, 21)).toBeCloseTo(10, 10);
    // 1 s after the 2 000 ms sample: against it (the newest one old enough).
    expect(rates.observe('s', 3_000, 30)).toBe(10);
  });

  it('treats a counter that went down as reset by a restart', () => {
    const rates = new RateTracker();
    rates.observe('s', 0, 500);
    expect(rates.observe('s', 2_000, 6)).toBe(3);
    expect(rates.observe('s', 4_000, 10)).toBe(2);
  });

  it('ignores samples older than the newest, and values that are not finite', () => {
    const rates = new RateTracker();
    rates.observe('s', 5_000, 10);
    expect(rates.observe('s', 4_000, 1)).toBeNull();
    expect(rates.observe('s', 7_000, Number.NaN)).toBeNull();
    expect(rates.observe('s', 7_000, 30)).toBe(10);
  });

  it('forgets samples past the retention, and series that were not seen for a long time', () => {
    const rates = new RateTracker({ retentionMs: 10_000, idleMs: 60_000, minIntervalMs: 1_000 });
    rates.observe('gone', 0, 1);
    rates.observe('s', 0, 0);
    rates.observe('s', 1_000, 0);
    // A service that did not answer for 30 s: the rate covers the whole gap, against the newest sample.
    expect(rates.observe('s', 31_000, 300)).toBe(10);
    rates.observe('s', 70_000, 300);
    expect(rates.size).toBe(1);
  });

  it('bounds the samples it keeps per series', () => {
    const rates = new RateTracker({ maxSamples: 4, minIntervalMs: 1_000 });
    for (let second = 0; second < 100; second += 1) rates.observe('s', second * 1_000, second * 2);
    expect(rates.observe('s', 100_000, 200)).toBe(2);
  });

  it('never answers a negative rate, and a steady counter gives its slope', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: -1_000, max: 1_000 })), {
          minLength: 2,
          maxLength: 50,
        }),
        (steps) => {
          const rates = new RateTracker();
          let at = 0;
          let value = 0;
          rates.observe('s', at, value);
          for (const [gap, change] of steps) {
            at += gap;
            value = Math.max(0, value + change);
            const rate = rates.observe('s', at, value);
            if (rate !== null) expect(rate).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 1_000, max: 10_000 }),
        (slope, gap) => {
          const rates = new RateTracker();
          rates.observe('s', 0, 0);
          const rate = rates.observe('s', gap, (slope * gap) / 1_000);
          expect(rate).toBeCloseTo(slope, 6);
        },
      ),
    );
  });
});
