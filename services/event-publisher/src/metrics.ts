import type { Metrics } from '@rp/runtime';
import type { AttemptResult } from './bank-client.ts';
import type { PostingReads } from './delivery-store.ts';

export type SkipReason = 'no-subscriber' | 'banks-unknown';
export type FinalOutcome = 'delivered' | 'failed' | 'expired';
/** direct: the consumer's first attempt; queued: the worker, from a lane; replay: queued by an operator. */
export type AttemptPath = 'direct' | 'queued' | 'replay';

export interface PublisherMetrics {
  received(eventClass: string): void;
  skipped(reason: SkipReason): void;
  /** One posting to one bank, by how it ended this attempt; `retry` when the posting failed before. */
  attempt(memberId: string, path: AttemptPath, result: AttemptResult, retry: boolean): void;
  /** A posting reached a final outcome at a bank; `lagSeconds` from production to that outcome. */
  outcome(memberId: string, outcome: FinalOutcome, lagSeconds: number | undefined): void;
  /** Postings queued behind a failing head or a paused bank. */
  parked(memberId: string, count: number): void;
  replayed(memberId: string, count: number): void;
  parkedGauges(byBank: ReadonlyMap<string, { lanes: number; postings: number }>): void;
  bankOpen(memberId: string, open: boolean): void;
  batch(seconds: number, records: number): void;
  partitionLoaded(lanes: number): void;
  /** A rescan found parked lanes that no park of this process was writing (another instance's, or lost). */
  lanesFound(lanes: number): void;
  /** Stored postings deleted past their retention. */
  purged(count: number): void;
  /** Delivery log entries deleted past their retention. */
  deliveryLogPurged(count: number): void;
  /** Delivery log records of postings sent at once that wait to be written (behind, before a commit). */
  deliveryLogWaiting(records: number): void;
  /** First attempts written to the delivery log together (`recordFirstAttempts`). */
  firstAttemptsLogged(records: number): void;
}

export function publisherMetrics(metrics: Metrics): PublisherMetrics {
  const received = metrics.counter('rp_events_postings_received_total', 'Postings read from rp.events.v1', [
    'class',
  ]);
  const skipped = metrics.counter(
    'rp_events_postings_skipped_total',
    'Postings no bank receives (no subscriber), or whose banks could not be found yet',
    ['reason'],
  );
  const attempts = metrics.counter('rp_events_attempts_total', 'POSTs to banks by result', [
    'member_id',
    'path',
    'result',
  ]);
  const retries = metrics.counter(
    'rp_events_retries_total',
    'Attempts that were retries of a posting that failed before',
    ['member_id'],
  );
  const latency = metrics.histogram(
    'rp_events_attempt_duration_seconds',
    'Duration of one POST to a bank',
    ['member_id', 'result'],
    { buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
  );
  const outcomes = metrics.counter('rp_events_deliveries_total', 'Postings at a bank by final outcome', [
    'member_id',
    'outcome',
  ]);
  const lag = metrics.histogram(
    'rp_events_delivery_lag_seconds',
    'From the posting being produced to its delivery to a bank',
    ['member_id'],
    { buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 900, 3600, 14_400, 86_400] },
  );
  const parked = metrics.counter('rp_events_parked_total', 'Postings queued in a lane instead of sent', [
    'member_id',
  ]);
  const replayed = metrics.counter('rp_events_replayed_total', 'Postings queued again by a replay', [
    'member_id',
  ]);
  const parkedLanes = metrics.gauge(
    'rp_events_parked_lanes',
    "Transactions whose postings wait at a bank (this process's lanes)",
    ['member_id'],
  );
  const parkedPostings = metrics.gauge(
    'rp_events_parked_postings',
    "Postings waiting at a bank (this process's lanes)",
    ['member_id'],
  );
  const bankOpen = metrics.gauge('rp_events_bank_paused', '1 while a bank is paused after failures', [
    'member_id',
  ]);
  const batches = metrics.histogram('rp_events_batch_duration_seconds', 'Handler time per consumed batch');
  const batchRecords = metrics.counter('rp_events_batch_records_total', 'Records handled in batches');
  const loads = metrics.counter(
    'rp_events_partition_loads_total',
    'Partitions whose parked lanes were read from MongoDB (a start or a hand-over)',
  );
  const loadedLanes = metrics.counter(
    'rp_events_partition_lanes_loaded_total',
    'Lanes read at partition loads',
  );
  const foundLanes = metrics.counter(
    'rp_events_lanes_found_total',
    "Parked lanes a rescan found that this process did not know and was not parking (another instance's; with one instance, lanes it lost track of)",
  );
  const purged = metrics.counter(
    'rp_events_postings_purged_total',
    'Stored postings deleted past their retention (EVENTS_POSTING_RETENTION)',
  );
  const logPurged = metrics.counter(
    'rp_events_delivery_log_purged_total',
    'Delivery log entries whose delivery ended deleted past their retention (EVENTS_DELIVERY_LOG_RETENTION)',
  );
  const logWaiting = metrics.gauge(
    'rp_events_delivery_log_waiting',
    'Delivery log records of postings sent at once that wait to be written (before the next commit)',
  );
  const firstAttemptsLogged = metrics.counter(
    'rp_events_delivery_log_first_attempts_total',
    "Postings' first attempts written to the delivery log together (those sent at once, and a parked transaction's not attempted before); every other attempt is written on its own",
  );
  const knownBanks = new Set<string>();

  return {
    received: (eventClass) => received.inc({ class: eventClass }),
    skipped: (reason) => skipped.inc({ reason }),
    attempt(memberId, path, result, retry) {
      attempts.inc({ member_id: memberId, path, result: result.kind });
      if (retry) retries.inc({ member_id: memberId });
      latency.observe({ member_id: memberId, result: result.kind }, result.latencyMs / 1000);
    },
    outcome(memberId, outcome, lagSeconds) {
      outcomes.inc({ member_id: memberId, outcome });
      if (outcome === 'delivered' && lagSeconds !== undefined) {
        lag.observe({ member_id: memberId }, Math.max(0, lagSeconds));
      }
    },
    parked: (memberId, count) => parked.inc({ member_id: memberId }, count),
    replayed: (memberId, count) => replayed.inc({ member_id: memberId }, count),
    parkedGauges(byBank) {
      for (const memberId of byBank.keys()) knownBanks.add(memberId);
      for (const memberId of knownBanks) {
        const counts = byBank.get(memberId) ?? { lanes: 0, postings: 0 };
        parkedLanes.set({ member_id: memberId }, counts.lanes);
        parkedPostings.set({ member_id: memberId }, counts.postings);
      }
    },
    bankOpen: (memberId, open) => bankOpen.set({ member_id: memberId }, open ? 1 : 0),
    batch(seconds, records) {
      batches.observe(seconds);
      batchRecords.inc(records);
    },
    partitionLoaded(lanes) {
      loads.inc();
      loadedLanes.inc(lanes);
    },
    lanesFound: (lanes) => foundLanes.inc(lanes),
    purged: (count) => purged.inc(count),
    deliveryLogPurged: (count) => logPurged.inc(count),
    deliveryLogWaiting: (records) => logWaiting.set(records),
    firstAttemptsLogged: (records) => firstAttemptsLogged.inc(records),
  };
}

/**
 * The parked postings the worker read, by where they came from: `memory` (this process stored or read
 * them lately, `EVENTS_RECENT_POSTINGS`) or `store` (MongoDB). The store's `onPostingsRead`.
 */
export function postingReadMetrics(metrics: Metrics): PostingReads {
  const read = metrics.counter(
    'rp_events_postings_read_total',
    'Stored postings the worker read, from memory (stored or read lately by this process) or from MongoDB',
    ['from'],
  );
  return (fromMemory, fromStore) => {
    if (fromMemory > 0) read.inc({ from: 'memory' }, fromMemory);
    if (fromStore > 0) read.inc({ from: 'store' }, fromStore);
  };
}
