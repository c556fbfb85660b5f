import { defaultRetryPolicy, type RetryPolicy } from '@rp/kafka';
import { describe, expect, it } from 'vitest';
import { schedulerRetryPolicy } from './service.ts';

/** How long a record that keeps failing retriably waits in the retry tiers before it is dead-lettered. */
function retriedForMs({ delaysMs, maxAttempts }: RetryPolicy): number {
  let waited = 0;
  for (let failure = 1; failure < maxAttempts; failure += 1) {
    waited += delaysMs[Math.min(failure, delaysMs.length) - 1] ?? 0;
  }
  return waited;
}

describe('schedulerRetryPolicy', () => {
  it('keeps a record through an outage of MongoDB or Kafka longer than a business day', () => {
    expect(retriedForMs(schedulerRetryPolicy)).toBeGreaterThan(24 * 3_600_000);
    // ... and looks again at least every 30 s, so the debit moves on soon after the outage.
    expect(Math.max(...schedulerRetryPolicy.delaysMs)).toBeLessThanOrEqual(30_000);
  });

  it('replaces the consumer default, which gives up after about a minute', () => {
    expect(retriedForMs(defaultRetryPolicy)).toBeLessThan(2 * 60_000);
  });
});
