import { describe, expect, test } from 'vitest';
import { parkedRoute, retryHintOf, retryPolicy, routeFailure, tierCount } from './retry-policy.ts';

describe('routeFailure', () => {
  const policy = retryPolicy({ delaysMs: [100, 1_000], maxAttempts: 4 });

  test('walks up the tiers and repeats the last one', () => {
    expect(routeFailure(policy, 1, true)).toEqual({ kind: 'retry', tier: 1, delayMs: 100 });
    expect(routeFailure(policy, 2, true)).toEqual({ kind: 'retry', tier: 2, delayMs: 1_000 });
    expect(routeFailure(policy, 3, true)).toEqual({ kind: 'retry', tier: 2, delayMs: 1_000 });
  });

  test('dead-letters after maxAttempts handler calls', () => {
    expect(routeFailure(policy, 4, true)).toEqual({ kind: 'dead-letter', reason: 'retries-exhausted' });
  });

  test('dead-letters a non-retriable failure at once', () => {
    expect(routeFailure(policy, 1, false)).toEqual({ kind: 'dead-letter', reason: 'non-retriable' });
  });

  test('maxAttempts 1 never retries and needs no tiers', () => {
    const once = retryPolicy({ delaysMs: [], maxAttempts: 1 });
    expect(tierCount(once)).toBe(0);
    expect(routeFailure(once, 1, true)).toEqual({ kind: 'dead-letter', reason: 'retries-exhausted' });
  });

  test('uses no more tiers than retries', () => {
    expect(tierCount(retryPolicy({ delaysMs: [1, 2, 3], maxAttempts: 2 }))).toBe(1);
    expect(tierCount(retryPolicy({ delaysMs: [1, 2], maxAttempts: 9 }))).toBe(2);
  });

  test("with the handler's hint, the tier that brings the record back when it can succeed, whatever its failures", () => {
    const tiers = retryPolicy({ delaysMs: [1_000, 5_000, 15_000, 30_000, 60_000], maxAttempts: 100 });
    // Failed twenty times, due again in 4 s (a bank's pause): the 1 s tier, not the minute.
    expect(routeFailure(tiers, 20, true, 4_000)).toEqual({ kind: 'retry', tier: 1, delayMs: 1_000 });
    expect(routeFailure(tiers, 1, true, 20_000)).toEqual({ kind: 'retry', tier: 3, delayMs: 15_000 });
    expect(routeFailure(tiers, 1, true, 600_000)).toEqual({ kind: 'retry', tier: 5, delayMs: 60_000 });
    expect(routeFailure(tiers, 3, true, 0)).toEqual({ kind: 'retry', tier: 1, delayMs: 1_000 });
    // The hint never keeps a record past maxAttempts, nor retries what is not retriable.
    expect(routeFailure(tiers, 100, true, 1_000)).toEqual({
      kind: 'dead-letter',
      reason: 'retries-exhausted',
    });
    expect(routeFailure(tiers, 1, false, 1_000)).toEqual({ kind: 'dead-letter', reason: 'non-retriable' });
  });

  test('reads the hint from an error that carries a retryInMs of zero or more', () => {
    expect(retryHintOf(Object.assign(new Error('paused'), { retryInMs: 2_500 }))).toBe(2_500);
    expect(retryHintOf(Object.assign(new Error('odd'), { retryInMs: -1 }))).toBeUndefined();
    expect(retryHintOf(Object.assign(new Error('odd'), { retryInMs: '5' }))).toBeUndefined();
    expect(retryHintOf(new Error('plain'))).toBeUndefined();
    expect(retryHintOf(undefined)).toBeUndefined();
  });

  test('a parked record waits on tier 1', () => {
    expect(parkedRoute(policy)).toEqual({ tier: 1, delayMs: 100 });
  });
});

describe('retryPolicy', () => {
  test('refuses nonsense', () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => retryPolicy({ maxAttempts: 3, delaysMs: [] })).toThrow(/at least one tier/);
    expect(() => retryPolicy({ delaysMs: [-1] })).toThrow(/not a valid delay/);
  });

  test('defaults to three tiers and four attempts', () => {
    expect(retryPolicy()).toEqual({ delaysMs: [1_000, 10_000, 60_000], maxAttempts: 4 });
  });
});
