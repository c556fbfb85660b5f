import type { Collection, Document, MongoClient } from 'mongodb';
import { StoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** Writes given up on by their deadline since the process started (a gauge for tests and diagnostics). */
let expired = 0;

export function expiredWrites(): number {
  return expired;
}

/** The deadlines a write is held to (see `StoreLimits`). */
export type WriteDeadlines = Pick<StoreLimits, 'writeDeadlineMs' | 'writeGraceAfterConnectionFailureMs'>;

interface PendingWrite {
  /** When the write fails unless it settled first (`performance.now()` clock). */
  failsAt: number;
  /** Moves the failure to `at` (sooner only). */
  failAt(at: number, reason: string): void;
}

/**
 * The guarded writes of one client still waiting for their answer. When a connection to the server fails
 * (one in use closes with an error, a new one cannot be made, the pool is cleared or closed), the server
 * went away or is going: a write the driver lost is among the writes sent before, and each of them gets
 * the grace, not the rest of its deadline. (The driver clears its pool on some of these only: a connection
 * refused counts as an overloaded server in driver 7, and a restart within the monitor's heartbeat
 * interval is not seen by the monitor at all.)
 */
export class PendingWrites {
  readonly #writes = new Set<PendingWrite>();
  readonly #graceMs: number;
  readonly #listeners: ((writes: number, reason: string) => void)[] = [];

  constructor(graceMs: number) {
    this.#graceMs = graceMs;
  }

  get graceMs(): number {
    return this.#graceMs;
  }

  /** Writes waiting (a gauge, and tests). */
  get size(): number {
    return this.#writes.size;
  }

  add(write: PendingWrite): void {
    this.#writes.add(write);
  }

  delete(write: PendingWrite): void {
    this.#writes.delete(write);
  }

  /** Told how many waiting writes a failure gave the grace to (none: not told). */
  onCutShort(listener: (writes: number, reason: string) => void): void {
    this.#listeners.push(listener);
  }

  /** A connection failed (`reason` says how): every write waiting now fails within the grace. */
  connectionFailed(reason: string): void {
    const at = performance.now() + this.#graceMs;
    let cut = 0;
    for (const write of this.#writes) {
      if (write.failsAt <= at) continue;
      write.failAt(at, reason);
      cut += 1;
    }
    if (cut > 0) for (const listener of this.#listeners) listener(cut, reason);
  }
}

/** Each client's waiting writes, watched from the first guarded collection of that client on. */
const pendingByClient = new WeakMap<MongoClient, PendingWrites>();

/** The waiting writes of `client`, told of every failed connection of its pool. */
export function pendingWritesOf(client: MongoClient, graceMs: number): PendingWrites {
  let pending = pendingByClient.get(client);
  if (pending === undefined) {
    const created = new PendingWrites(graceMs);
    client.on('connectionClosed', (event) => {
      if (event.reason === 'error')
        created.connectionFailed('a connection to the server closed with an error');
    });
    client.on('connectionCheckOutFailed', (event) => {
      if (event.reason === 'connectionError')
        created.connectionFailed('a connection to the server could not be made');
    });
    client.on('connectionPoolCleared', () => created.connectionFailed('the connection pool was cleared'));
    // Closed: the store reconnecting, or closing. Its connections are gone as well.
    client.on('connectionPoolClosed', () => created.connectionFailed('the connection pool was closed'));
    pendingByClient.set(client, created);
    pending = created;
  }
  return pending;
}

/**
 * A write that settles, or fails as retriable once `deadlineMs` passed. The MongoDB driver (7.9) can
 * leave a write waiting for ever: a write that does not go out at once (a command larger than the
 * socket's 16 KiB buffer, or one on a socket destroyed a moment before) waits for the socket's `drain` or
 * `error`, and when the connection closes (the server restarted) the driver destroys the socket without
 * an error, so neither comes and the operation neither succeeds nor fails (seen in the fault suite: a
 * scheduler's queue write after the MongoDB-compatible server restarted, waiting for ten minutes with its
 * connection closed and still checked out). The deadline is above the socket timeout, so a write the
 * driver would finish or fail on its own is never cut short; past it the caller is told the store is
 * unavailable and retries, and the write left waiting holds one pooled connection until the client is
 * closed.
 *
 * With `pending`, the write is also one of its client's waiting writes: when a connection fails, it
 * fails within the grace instead (a write on a healthy connection is answered or refused by the server's
 * own time limit well within it; one cut short is repeated by the caller, as every guarded write may be).
 */
export async function withinDeadline<T>(
  deadlineMs: number,
  operation: string,
  work: Promise<T>,
  pending?: PendingWrites,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let write: PendingWrite | undefined;
  const deadline = new Promise<never>((_, reject) => {
    const failAfter = (delayMs: number, why: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        expired += 1;
        reject(
          new StoreError(
            'unavailable',
            `${operation}: no answer within ${why} (a write left waiting on a closed connection); try again`,
          ),
        );
      }, delayMs);
      timer.unref();
    };
    failAfter(deadlineMs, `${deadlineMs} ms`);
    if (pending !== undefined) {
      const created: PendingWrite = {
        failsAt: performance.now() + deadlineMs,
        failAt(at, reason) {
          created.failsAt = at;
          failAfter(
            Math.max(0, at - performance.now()),
            `the ${pending.graceMs} ms of grace after ${reason}`,
          );
        },
      };
      write = created;
      pending.add(created);
    }
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    if (write !== undefined) pending?.delete(write);
  }
}

/** The collection methods that write: each goes to the server as a write command. */
const writeMethods = new Set<PropertyKey>([
  'insertOne',
  'insertMany',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'bulkWrite',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
]);

/**
 * The collection with every write under `withinDeadline`, one of its client's waiting writes: what the
 * repositories are given, so that no write, however it is added later, can be lost on a closed
 * connection for ever, nor for longer than the grace once a connection to the server failed.
 * Everything else is the collection's own, bound to it.
 */
export function guardWrites<T extends Document>(
  collection: Collection<T>,
  deadlines: WriteDeadlines,
): Collection<T> {
  const pending = pendingWritesOf(collection.db.client, deadlines.writeGraceAfterConnectionFailureMs);
  return new Proxy(collection, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!writeMethods.has(property)) return value.bind(target);
      return (...args: unknown[]) =>
        withinDeadline(
          deadlines.writeDeadlineMs,
          `${target.collectionName}.${String(property)}`,
          value.apply(target, args) as Promise<unknown>,
          pending,
        );
    },
  });
}
