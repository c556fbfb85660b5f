import { type PurgeRoundsOptions, purgeInRounds } from '@rp/runtime';
import type { DeliveryLogRepository } from '@rp/store';
import type { DeliveryStore } from './delivery-store.ts';
import type { PublisherMetrics } from './metrics.ts';

export interface PostingPurgeDeps extends PurgeRoundsOptions {
  readonly store: Pick<DeliveryStore, 'purgePostings'>;
  readonly metrics: Pick<PublisherMetrics, 'purged'>;
}

export interface DeliveryLogPurgeDeps extends PurgeRoundsOptions {
  readonly deliveryLog: Pick<DeliveryLogRepository, 'purge'>;
  readonly metrics: Pick<PublisherMetrics, 'deliveryLogPurged'>;
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
