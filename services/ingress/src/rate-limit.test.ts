import { describe, expect, test } from 'vitest';
import { SenderRateLimiter } from './rate-limit.ts';

describe('SenderRateLimiter', () => {
  test('lets a burst through, then one message per token, and says how long to wait', () => {
    const limiter = new SenderRateLimiter({ perSecond: 10, burst: 3 });
    expect([1, 2, 3].map(() => limiter.take('250655', 0).ok)).toEqual([true, true, true]);
    expect(limiter.take('250655', 0)).toEqual({ ok: false, retryAfterMs: 100 });
    expect(limiter.take('250655', 40)).toEqual({ ok: false, retryAfterMs: 60 });
    expect(limiter.take('250655', 100)).toEqual({ ok: true });
    expect(limiter.take('250655', 100)).toEqual({ ok: false, retryAfterMs: 100 });
  });

  test('one sender flooding does not take another sender’s share', () => {
    const limiter = new SenderRateLimiter({ perSecond: 1, burst: 1 });
    expect(limiter.take('A', 0).ok).toBe(true);
    expect(limiter.take('A', 0).ok).toBe(false);
    expect(limiter.take('B', 0).ok).toBe(true);
  });

  test('a quiet sender is back to a full burst, never more', () => {
    const limiter = new SenderRateLimiter({ perSecond: 100, burst: 2 });
    limiter.take('A', 0);
    limiter.take('A', 0);
    const after = [0, 1, 2].map(() => limiter.take('A', 60_000).ok);
    expect(after).toEqual([true, true, false]);
  });

  test('forgets the least recently seen sender beyond its bound (which then starts full)', () => {
    const limiter = new SenderRateLimiter({ perSecond: 1, burst: 1, maxSenders: 2 });
    limiter.take('A', 0);
    limiter.take('B', 0);
    limiter.take('C', 0);
    expect(limiter.take('A', 0).ok).toBe(true);
    expect(limiter.take('C', 0).ok).toBe(false);
  });

  test('refuses a rate that makes no sense', () => {
    expect(() => new SenderRateLimiter({ perSecond: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new SenderRateLimiter({ perSecond: 1, burst: 0 })).toThrow(RangeError);
  });
});
