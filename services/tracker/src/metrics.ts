import type { Metrics } from '@rp/runtime';

/** `no-payload`: emitted without its payload, for a transaction the tracker has no record of yet (retried). */
export type ChangeOutcome = 'applied' | 'repeat' | 'late' | 'refused' | 'unconfirmed' | 'no-payload';

export interface TrackerMetrics {
  received(count: number): void;
  change(outcome: ChangeOutcome, eventType: string): void;
  postings(postingClass: string, count: number): void;
  /** From the change's occurredAt to its postings and snapshot being durable. */
  latency(seconds: number): void;
  batch(topic: 'state' | 'outcomes', seconds: number, records: number): void;
  /** `new`: a transaction's first change, taken without a read (nothing to read yet). */
  cache(event: 'hit' | 'miss' | 'new' | 'partition-reset', count?: number): void;
  cacheSize(size: number): void;
  /** Transactions whose applied changes wait for their snapshot write. */
  snapshotsWaiting(count: number): void;
  snapshotWrites(count: number): void;
  /** Transactions whose snapshot held changes the tracker thought new: a stale cache. */
  snapshotConflicts(count: number): void;
  batchFailed(topic: 'state' | 'outcomes'): void;
  deliveryAttempt(operation: string, result: string, outcome: 'recorded' | 'repeat' | 'skipped'): void;
}

export function trackerMetrics(metrics: Metrics): TrackerMetrics {
  const received = metrics.counter(
    'rp_tracker_state_changes_received_total',
    'State changes read from the state topic',
  );
  const changes = metrics.counter(
    'rp_tracker_state_changes_total',
    'State changes by outcome and event type',
    ['outcome', 'event_type'],
  );
  const postings = metrics.counter(
    'rp_tracker_postings_produced_total',
    'Event postings produced to rp.events.v1',
    ['class'],
  );
  const latency = metrics.histogram(
    'rp_tracker_change_latency_seconds',
    'From a state change happening to its postings acknowledged and its snapshot written',
    [],
    { buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] },
  );
  const batches = metrics.histogram('rp_tracker_batch_duration_seconds', 'Handler time per batch', ['topic']);
  const batchRecords = metrics.counter('rp_tracker_batch_records_total', 'Records handled in batches', [
    'topic',
  ]);
  const cache = metrics.counter(
    'rp_tracker_cache_events_total',
    'Transaction cache hits, misses, new transactions (no read) and partition resets',
    ['event'],
  );
  const cacheSize = metrics.gauge('rp_tracker_cache_transactions', 'Transactions held in the cache');
  const waiting = metrics.gauge(
    'rp_tracker_snapshots_waiting',
    'Transactions whose applied changes wait for their snapshot write (written before each commit)',
  );
  const writes = metrics.counter(
    'rp_tracker_snapshot_writes_total',
    'Snapshot write commands (each the writes of up to 25 transactions, one more a guard conflict)',
  );
  const conflicts = metrics.counter(
    'rp_tracker_snapshot_conflicts_total',
    'Transactions whose snapshot held changes the cache said were new',
  );
  const failed = metrics.counter(
    'rp_tracker_batches_failed_total',
    'Batches that failed and were re-run record by record',
    ['topic'],
  );
  const attempts = metrics.counter(
    'rp_tracker_delivery_attempts_total',
    'Delivery outcomes read, by operation, result and what was done',
    ['operation', 'result', 'outcome'],
  );
  return {
    received: (count) => received.inc(count),
    change: (outcome, eventType) => changes.inc({ outcome, event_type: eventType }),
    postings: (postingClass, count) => postings.inc({ class: postingClass }, count),
    latency: (seconds) => latency.observe(Math.max(0, seconds)),
    batch(topic, seconds, records) {
      batches.observe({ topic }, seconds);
      batchRecords.inc({ topic }, records);
    },
    cache: (event, count = 1) => cache.inc({ event }, count),
    cacheSize: (size) => cacheSize.set(size),
    snapshotsWaiting: (count) => waiting.set(count),
    snapshotWrites: (count) => writes.inc(count),
    snapshotConflicts: (count) => conflicts.inc(count),
    batchFailed: (topic) => failed.inc({ topic }),
    deliveryAttempt: (operation, result, outcome) => attempts.inc({ operation, result, outcome }),
  };
}
