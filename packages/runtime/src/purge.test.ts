import { describe, expect, it } from 'vitest';
import { createLogger } from './logging.ts';
import { purgeInRounds } from './purge.ts';

const logger = createLogger({ service: 'purge-test', level: 'silent' });

describe('purgeInRounds', () => {
  it('stops between rounds once its signal aborts, with what it deleted so far', async () => {
    const stop = new AbortController();
    const counted: number[] = [];
    let rounds = 0;
    const total = await purgeInRounds(
      { clock: { now: () => new Date(Date.UTC(2026, 11, 3)) }, logger, retentionMs: 1_000, batch: 5 },
      'things',
      async (before, limit) => {
        expect(before).toEqual(new Date(Date.UTC(2026, 11, 3) - 1_000));
        rounds += 1;
        if (rounds === 2) stop.abort();
        return limit;
      },
      (deleted) => counted.push(deleted),
      stop.signal,
    );
    expect(rounds).toBe(2);
    expect(total).toBe(10);
    expect(counted).toEqual([5, 5]);
  });
});
