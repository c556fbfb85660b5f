import type { Clock, Logger } from '@rp/runtime';
import type { DeliveryStore } from './delivery-store.ts';
import type { PublisherMetrics } from './metrics.ts';

export interface PostingPurgeDeps {
  readonly store: Pick<DeliveryStore, 'purgePostings'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Pick<PublisherMetrics, 'purged'>;
  /** A posting last stored longer ago than this is deleted; more than the retry schedule's maximum age. */
  readonly retentionMs: number;
  /** Postings deleted per round; a full round is followed by another at once. */
  readonly batch: number;
}

/**
 * One purge of the stored postings past their retention: rounds of `batch` deletions until a round
 * finds fewer, or `signal` aborts. Returns how many were deleted. A failure is logged and ends the purge
 * (the next one tries again).
 */
export async function purgePostings(deps: PostingPurgeDeps, signal?: AbortSignal): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - deps.retentionMs);
  let total = 0;
  try {
    for (;;) {
      if (signal?.aborted) break;
      const deleted = await deps.store.purgePostings(before, deps.batch);
      total += deleted;
      deps.metrics.purged(deleted);
      if (deleted < deps.batch) break;
    }
  } catch (error) {
    deps.logger.warn(
      { err: error, deleted: total },
      'stored postings not purged; the next purge tries again',
    );
  }
  if (total > 0) deps.logger.info({ deleted: total, storedBefore: before }, 'stored postings purged');
  return total;
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
