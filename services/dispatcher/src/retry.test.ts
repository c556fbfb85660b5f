import { describe, expect, test } from 'vitest';
import { backoffDelay, classifyStatus, nextAttemptAt, parseRetryAfter } from './retry.ts';

describe('what an answer means', () => {
  test.each([
    [202, 'ACKNOWLEDGED'],
    [500, 'RETRYABLE_FAILURE'],
    [502, 'RETRYABLE_FAILURE'],
    [503, 'RETRYABLE_FAILURE'],
    [599, 'RETRYABLE_FAILURE'],
    [408, 'RETRYABLE_FAILURE'],
    [425, 'RETRYABLE_FAILURE'],
    [429, 'RETRYABLE_FAILURE'],
    [400, 'FINAL_FAILURE'],
    [401, 'FINAL_FAILURE'],
    [404, 'FINAL_FAILURE'],
    [409, 'FINAL_FAILURE'],
    [422, 'FINAL_FAILURE'],
    [200, 'FINAL_FAILURE'],
    [204, 'FINAL_FAILURE'],
    [301, 'FINAL_FAILURE'],
  ])('%i is %s', (status, result) => {
    expect(classifyStatus(status)).toBe(result);
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-11-23T08:00:00Z');
  test.each([
    ['3', 3_000],
    [' 120 ', 120_000],
    ['0', 0],
    ['Mon, 23 Nov 2026 08:00:30 GMT', 30_000],
    ['Mon, 23 Nov 2026 07:00:00 GMT', 0],
    ['999999', 3_600_000],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s is %s ms', (value, ms) => {
    expect(parseRetryAfter(value, now, 3_600_000)).toBe(ms);
  });
});

describe('exponential backoff with full jitter', () => {
  const policy = { baseMs: 1_000, maxMs: 60_000 };
  test.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000],
    [50, 60_000],
  ])('after attempt %i the delay is below %i ms', (attempt, ceiling) => {
    expect(backoffDelay(policy, attempt, () => 0)).toBe(0);
    expect(backoffDelay(policy, attempt, () => 0.999_999)).toBe(ceiling - 1);
    expect(backoffDelay(policy, attempt, () => 0.5)).toBe(ceiling / 2);
  });

  test('draws spread over the whole range', () => {
    const delays = Array.from({ length: 1_000 }, () => backoffDelay(policy, 4));
    expect(Math.min(...delays)).toBeLessThan(1_000);
    expect(Math.max(...delays)).toBeGreaterThan(7_000);
    expect(Math.max(...delays)).toBeLessThan(8_000);
  });

  const now = new Date('2026-11-23T15:59:00Z');
  const deadline = new Date('2026-11-23T16:00:00Z');
  test('Retry-After wins over a shorter backoff', () => {
    expect(nextAttemptAt(policy, 1, now, deadline, 30_000, () => 0.5)?.toISOString()).toBe(
      '2026-11-23T15:59:30.000Z',
    );
    expect(nextAttemptAt(policy, 1, now, deadline, undefined, () => 0.5)?.toISOString()).toBe(
      '2026-11-23T15:59:00.500Z',
    );
  });

  test('no attempt at or after the deadline', () => {
    expect(nextAttemptAt(policy, 1, now, deadline, 60_000)).toBeUndefined();
    expect(nextAttemptAt(policy, 1, now, deadline, 59_999, () => 0)?.toISOString()).toBe(
      '2026-11-23T15:59:59.999Z',
    );
  });
});
