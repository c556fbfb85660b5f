/**
 * Limits shared by every repository. They keep each operation short, because the local
 * MongoDB-compatible server keeps working on an operation its client gave up on and stalls behind it.
 */
export interface StoreLimits {
  /** Server-side limit for single-document operations on the hot path. */
  operationMaxTimeMs: number;
  /** Server-side limit for queries off the hot path (lists, counts, the start of a queue drain). */
  queryMaxTimeMs: number;
  /** Most documents in one bulk write: bulk updates above a few dozen stall the local server. */
  bulkBatchSize: number;
  /**
   * Most documents in one insert command. Inserts go in bulk well where updates do not: the local server
   * takes a few hundred small documents in one command in a few tens of milliseconds.
   */
  bulkInsertSize: number;
  /** Most single-document writes one repository call keeps in flight. */
  writeConcurrency: number;
  /**
   * How long a write may go unanswered before it fails as retriable (see `guardWrites`): above the
   * driver's socket timeout (`queryMaxTimeMs` + 15 s), so only a write the driver lost is given up on.
   */
  writeDeadlineMs: number;
  /**
   * How long a write already sent when a connection to the server fails (the server went away) may still
   * go unanswered before it fails as retriable: the lost write is among those, and it is given up on this
   * long after the failure, not at its deadline (see `PendingWrites`). Twice the hot path's server-side
   * limit: a write on a connection that outlived the failure is answered well within it.
   */
  writeGraceAfterConnectionFailureMs: number;
}

export const defaultStoreLimits: StoreLimits = {
  operationMaxTimeMs: 5_000,
  queryMaxTimeMs: 30_000,
  bulkBatchSize: 25,
  bulkInsertSize: 250,
  writeConcurrency: 16,
  writeDeadlineMs: 60_000,
  writeGraceAfterConnectionFailureMs: 10_000,
};

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * Runs `work` over `items` with at most `limit` calls in flight and returns the results in input order.
 * The first failure rejects after the calls already started have settled, so nothing is left running
 * against the database behind the caller's back.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
