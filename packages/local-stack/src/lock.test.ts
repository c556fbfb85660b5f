import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withLock } from './lock.ts';

describe('withLock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stack-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one holder in at a time and releases the file afterwards', async () => {
    const lock = join(dir, 'up.lock');
    const events: string[] = [];
    let releaseFirst: () => void = () => {};
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstEntered: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      firstEntered = resolve;
    });
    let waited = false;
    const first = withLock(
      lock,
      async () => {
        events.push('first in');
        firstEntered();
        await firstHolds;
        events.push('first out');
      },
      { timeoutMs: 10_000 },
    );
    await entered;
    const second = withLock(
      lock,
      async () => {
        events.push('second in');
      },
      {
        timeoutMs: 10_000,
        onWait: () => {
          waited = true;
          releaseFirst();
        },
      },
    );
    await Promise.all([first, second]);
    expect(waited).toBe(true);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose owner process has died', async () => {
    const lock = join(dir, 'up.lock');
    const dead = spawnSync('true').pid;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), since: new Date().toISOString() }));
    let waited = false;
    const value = await withLock(lock, async () => 'ran', {
      timeoutMs: 10_000,
      onWait: () => {
        waited = true;
      },
    });
    expect(value).toBe('ran');
    expect(waited).toBe(false);
    expect(existsSync(lock)).toBe(false);
  });

  it('gives up after its timeout while a live process holds the lock', async () => {
    const lock = join(dir, 'up.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname(), since: '' }));
    await expect(withLock(lock, async () => 'ran', { timeoutMs: 300 })).rejects.toThrowError(
      /gave up waiting/,
    );
    expect(existsSync(lock)).toBe(true);
  });
});
