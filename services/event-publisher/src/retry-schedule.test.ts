import { describe, expect, it } from 'vitest';
import {
  defaultRetrySchedule,
  failuresAfterAttempt,
  hasExpired,
  nextAttempt,
  parseRetryAfter,
  retryDelayMs,
  validateRetrySchedule,
} from './retry-schedule.ts';

const now = new Date('2026-03-02T08:00:00.000Z');
const noJitter = { ...defaultRetrySchedule, jitter: 0 };

describe('retry schedule', () => {
  it('is 1 s, 2 s, 5 s, 15 s, 1 min, 5 min, then every 15 min', () => {
    const delays = Array.from({ length: 10 }, (_, index) => retryDelayMs(noJitter, index + 1));
    expect(delays).toEqual([
      1_000, 2_000, 5_000, 15_000, 60_000, 300_000, 900_000, 900_000, 900_000, 900_000,
    ]);
    expect(defaultRetrySchedule.maxAgeMs).toBe(48 * 3_600_000);
  });

  it('spreads each delay by the jitter either way, never beyond', () => {
    expect(retryDelayMs(defaultRetrySchedule, 3, () => 0)).toBe(4_000);
    expect(retryDelayMs(defaultRetrySchedule, 3, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(defaultRetrySchedule, 3, () => 0.999_999)).toBe(6_000);
    for (let draw = 0; draw < 200; draw += 1) {
      const delay = retryDelayMs(defaultRetrySchedule, 7);
      expect(delay).toBeGreaterThanOrEqual(720_000);
      expect(delay).toBeLessThanOrEqual(1_080_000);
    }
  });

  it('counts a failed attempt made at or after its schedule, not one made early', () => {
    const due = new Date(now.getTime() + 60_000);
    // The first failure always counts; so does one at its time or later.
    expect(failuresAfterAttempt(0, now, due)).toBe(1);
    expect(failuresAfterAttempt(4, due, due)).toBe(5);
    expect(failuresAfterAttempt(4, new Date(due.getTime() + 1), due)).toBe(5);
    // Released before its schedule (its bank answered again) and refused: the same step again.
    expect(failuresAfterAttempt(4, now, due)).toBe(4);
    expect(nextAttempt(noJitter, failuresAfterAttempt(4, now, due), now).nextAttemptAt).toEqual(
      new Date(now.getTime() + 15_000),
    );
  });

  it('takes a Retry-After as a floor, cut to the longest honoured', () => {
    const shortAfter = nextAttempt(noJitter, 1, now, 30_000);
    expect(shortAfter.nextAttemptAt.getTime() - now.getTime()).toBe(30_000);
    expect(shortAfter.notBefore.getTime() - now.getTime()).toBe(30_000);
    const belowSchedule = nextAttempt(noJitter, 5, now, 1_000);
    expect(belowSchedule.nextAttemptAt.getTime() - now.getTime()).toBe(60_000);
    expect(belowSchedule.notBefore.getTime() - now.getTime()).toBe(1_000);
    const huge = nextAttempt(noJitter, 1, now, 10 * 86_400_000);
    expect(huge.notBefore.getTime() - now.getTime()).toBe(defaultRetrySchedule.maxRetryAfterMs);
    const none = nextAttempt(noJitter, 2, now);
    expect(none.notBefore).toEqual(now);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 02 Mar 2026 08:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Mon, 02 Mar 2026 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('expires a posting that waited the maximum age', () => {
    const queued = new Date(now.getTime() - 48 * 3_600_000);
    expect(hasExpired(defaultRetrySchedule, queued, now)).toBe(true);
    expect(hasExpired(defaultRetrySchedule, new Date(queued.getTime() + 1), now)).toBe(false);
  });

  it('refuses a schedule without delays or with a jitter of 100 %', () => {
    expect(() => validateRetrySchedule({ ...defaultRetrySchedule, delaysMs: [] })).toThrow(
      /at least one delay/,
    );
    expect(() => validateRetrySchedule({ ...defaultRetrySchedule, jitter: 1 })).toThrow(/jitter/);
  });
});
