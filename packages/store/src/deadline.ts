import type { Collection, Document } from 'mongodb';
import { StoreError } from './errors.ts';

/** Writes given up on by their deadline since the process started (a gauge for tests and diagnostics). */
let expired = 0;

export function expiredWrites(): number {
  return expired;
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
 */
export async function withinDeadline<T>(deadlineMs: number, operation: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired += 1;
      reject(
        new StoreError(
          'unavailable',
          `${operation}: no answer within ${deadlineMs} ms (a write left waiting on a closed connection); try again`,
        ),
      );
    }, deadlineMs);
    timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
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
 * The collection with every write under `withinDeadline`: what the repositories are given, so that no
 * write, however it is added later, can be lost on a closed connection for ever. Everything else is the
 * collection's own, bound to it.
 */
export function guardWrites<T extends Document>(
  collection: Collection<T>,
  deadlineMs: number,
): Collection<T> {
  return new Proxy(collection, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!writeMethods.has(property)) return value.bind(target);
      return (...args: unknown[]) =>
        withinDeadline(
          deadlineMs,
          `${target.collectionName}.${String(property)}`,
          value.apply(target, args) as Promise<unknown>,
        );
    },
  });
}
