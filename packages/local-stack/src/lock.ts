import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { StackError } from './errors.ts';
import { delay } from './process.ts';

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '') };
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock file left by a process that died. A file without a readable owner is given a short grace
 * period, because its owner may be between creating it and writing its pid.
 */
function isStale(owner: LockOwner | undefined, firstSeenUnreadable: number): boolean {
  if (owner === undefined) return Date.now() - firstSeenUnreadable > 5_000;
  return owner.host === hostname() && !pidAlive(owner.pid);
}

/**
 * Breaks a stale lock without ever breaking a live one: the file is first moved aside (only one
 * waiter's rename can succeed) and, if what was moved turns out to be a fresh lock that another waiter
 * took in the meantime, it is linked back (link fails rather than overwrite, like O_EXCL).
 */
function breakStaleLock(path: string, stalePid: number | undefined): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readOwner(aside);
  if (moved !== undefined && moved.pid !== stalePid && pidAlive(moved.pid)) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else holds a newer lock already; the moved one's owner will find its file gone.
    }
  }
  rmSync(aside, { force: true });
}

function tryAcquire(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeSync(fd, JSON.stringify(owner));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Runs `work` while holding an exclusive lock file (O_EXCL), so several processes that call it at
 * once take turns: the later ones wait, then see the first one's result. A lock whose owner died is
 * taken over.
 */
export async function withLock<T>(
  path: string,
  work: () => Promise<T>,
  options: { timeoutMs: number; onWait?: (owner: LockOwner | undefined) => void },
): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const deadline = Date.now() + options.timeoutMs;
  let toldWaiting = false;
  let unreadableSince = Date.now();
  while (!tryAcquire(path)) {
    const owner = readOwner(path);
    if (owner !== undefined) unreadableSince = Date.now();
    if (isStale(owner, unreadableSince)) {
      breakStaleLock(path, owner?.pid);
      continue;
    }
    if (!toldWaiting) {
      options.onWait?.(owner);
      toldWaiting = true;
    }
    if (Date.now() >= deadline) {
      throw new StackError(
        'lock_timeout',
        `gave up waiting for ${path} (held by pid ${owner?.pid ?? 'unknown'}) after ${Math.round(options.timeoutMs / 1000)} s`,
        { retriable: true },
      );
    }
    await delay(250);
  }
  try {
    return await work();
  } finally {
    const owner = readOwner(path);
    if (owner?.pid === process.pid) rmSync(path, { force: true });
  }
}
