import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { whileBeating } from './keepalive.ts';

describe('whileBeating', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('heartbeats every interval while the work runs, and not after it', async () => {
    const heartbeat = vi.fn(async () => {});
    let finish!: (value: string) => void;
    const done = whileBeating(heartbeat, 1_000, () => new Promise<string>((resolve) => (finish = resolve)));
    await vi.advanceTimersByTimeAsync(3_500);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    finish('handled');
    expect(await done).toBe('handled');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
  });

  it('stops beating after a heartbeat fails, and still returns what the work returns', async () => {
    const heartbeat = vi.fn(async () => {
      throw new Error('The group is rebalancing, so a rejoin is needed');
    });
    let finish!: () => void;
    const done = whileBeating(heartbeat, 1_000, () => new Promise<void>((resolve) => (finish = resolve)));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    finish();
    await expect(done).resolves.toBeUndefined();
  });

  it('sends no second heartbeat while one is still waiting for its answer', async () => {
    let answer!: () => void;
    const heartbeat = vi.fn(() => new Promise<void>((resolve) => (answer = resolve)));
    let finish!: () => void;
    const done = whileBeating(heartbeat, 1_000, () => new Promise<void>((resolve) => (finish = resolve)));
    await vi.advanceTimersByTimeAsync(4_500);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    answer();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(heartbeat).toHaveBeenCalledTimes(2);
    finish();
    await done;
  });

  it('passes on what the work throws', async () => {
    const heartbeat = vi.fn(async () => {});
    await expect(
      whileBeating(heartbeat, 1_000, async () => {
        throw new Error('the store is away');
      }),
    ).rejects.toThrow('the store is away');
  });
});
