import type { Clock, Logger } from '@rp/runtime';
import type { DeliveryLogRepository } from '@rp/store';
import type { DeliveryStore } from './delivery-store.ts';
import type { PublisherMetrics } from './metrics.ts';

interface PurgeDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** What is kept for longer than this is deleted. */
  readonly retentionMs: number;
  /** Deletions per round; a full round is followed by another at once. */
  readonly batch: number;
}

export interface PostingPurgeDeps extends PurgeDeps {
  readonly store: Pick<DeliveryStore, 'purgePostings'>;
  readonly metrics: Pick<PublisherMetrics, 'purged'>;
}

export interface DeliveryLogPurgeDeps extends PurgeDeps {
  readonly deliveryLog: Pick<DeliveryLogRepository, 'purge'>;
  readonly metrics: Pick<PublisherMetrics, 'deliveryLogPurged'>;
}

/**
 * Rounds of `batch` deletions of what `round` finds before the cut (now less the retention), until a
 * round deletes fewer or `signal` aborts. Returns how many were deleted. A failure is logged and ends the
 * purge (the next one tries again).
 */
async function purgeInRounds(
  deps: PurgeDeps,
  what: string,
  round: (before: Date, limit: number) => Promise<number>,
  counted: (deleted: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - deps.retentionMs);
  let total = 0;
  try {
    for (;;) {
      if (signal?.aborted) break;
      const deleted = await round(before, deps.batch);
      total += deleted;
      counted(deleted);
      if (deleted < deps.batch) break;
    }
  } catch (error) {
    deps.logger.warn({ err: error, deleted: total }, `${what} not purged; the next purge tries again`);
  }
  if (total > 0) deps.logger.info({ deleted: total, before }, `${what} purged`);
  return total;
}

/** One purge of the stored postings last stored before their retention. */
export function purgePostings(deps: PostingPurgeDeps, signal?: AbortSignal): Promise<number> {
  return purgeInRounds(
    deps,
    'stored postings',
    (before, limit) => deps.store.purgePostings(before, limit),
    (deleted) => deps.metrics.purged(deleted),
    signal,
  );
}

/** One purge of the delivery log entries whose delivery ended before their retention. */
export function purgeDeliveryLog(deps: DeliveryLogPurgeDeps, signal?: AbortSignal): Promise<number> {
  return purgeInRounds(
    deps,
    'delivery log entries',
    (before, limit) => deps.deliveryLog.purge(before, limit),
    (deleted) => deps.metrics.deliveryLogPurged(deleted),
    signal,
  );
}

/**
 * The retention of stored postings: `retentionMs`, or by default a day past the retry schedule's maximum
 * age. It must exceed that age: a posting must outlive every lane entry that names it.
 */
export function postingRetention(retentionMs: number | undefined, maxAgeMs: number): number {
  const retention = retentionMs ?? maxAgeMs + 86_400_000;
  if (!(retention > maxAgeMs)) {
    throw new RangeError(
      `posting retention (${retention} ms) must be longer than the retry schedule's maximum age (${maxAgeMs} ms)`,
    );
  }
  return retention;
}

/**
 * The retention of delivery log entries whose delivery ended: undefined (the default) keeps them, as the
 * audit of what each bank was sent. A retention must exceed the retry schedule's maximum age, so that
 * while a transaction's later postings may still be retried, the log of its earlier ones is there to read.
 */
export function deliveryLogRetention(retentionMs: number | undefined, maxAgeMs: number): number | undefined {
  if (retentionMs === undefined) return undefined;
  if (!(retentionMs > maxAgeMs)) {
    throw new RangeError(
      `delivery log retention (${retentionMs} ms) must be longer than the retry schedule's maximum age (${maxAgeMs} ms)`,
    );
  }
  return retentionMs;
}
