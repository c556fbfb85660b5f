import type { Metrics } from '@rp/runtime';

export type SchedulerTopic = 'accepted' | 'outcomes';

export interface SchedulerMetrics {
  received(topic: SchedulerTopic): void;
  retried(topic: SchedulerTopic): void;
  failed(topic: SchedulerTopic): void;
  /** An input that needs nothing (an outcome of another delivery, a record delivered again). */
  ignored(topic: SchedulerTopic, reason: string): void;
  /** A debit made ready and put in the queue for its window (not one found there already), or released at once. */
  queued(): void;
  /** Debits released to the due topic; `atOnce`: made ready in an open window, never queued. */
  released(count: number, waitSeconds: readonly number[], options?: { atOnce?: boolean }): void;
  /**
   * A debit made ready while its window was open from a record the group may have handled before (a
   * retry, a re-delivery after a rebalance or a crash): queued, not released at once.
   */
  queuedAsRepeated(): void;
  /**
   * One release took `seconds`: a drain of a window's queue (`queue`), or one round of the debits
   * released as they became ready, their due records produced and then their tombstones written (`ready`).
   */
  drain(seconds: number, kind: 'queue' | 'ready'): void;
  debitWindowOpen(open: boolean): void;
  queueDepth(depth: number, awaiting: number): void;
  /** Accepted on-us debits held in memory for their acknowledgement (not yet written). */
  heldInMemory(count: number): void;
  /** The accepted handler waited `seconds` for room, past the halves it may hold in memory. */
  roomWait(seconds: number): void;
  reconciliationItems(row: number, count: number): void;
  reconciliationRun(seconds: number): void;
  /** A reconciliation close failed part way (the store or the broker); it is run again. */
  reconciliationFailed(): void;
}

export function schedulerMetrics(metrics: Metrics): SchedulerMetrics {
  const received = metrics.counter('rp_scheduler_records_received_total', 'Records read, by input', [
    'topic',
  ]);
  const retried = metrics.counter(
    'rp_scheduler_retried_records_total',
    'Records handled again from a retry tier',
    ['topic'],
  );
  const failed = metrics.counter(
    'rp_scheduler_failed_records_total',
    'Records that failed (to the retry tiers or the dead-letter topic)',
    ['topic'],
  );
  const ignored = metrics.counter('rp_scheduler_ignored_records_total', 'Records that needed nothing', [
    'topic',
    'reason',
  ]);
  const queued = metrics.counter(
    'rp_scheduler_debits_queued_total',
    'Debits made ready (DEBIT_QUEUED) and queued for their window or released at once; a debit found queued already is not counted again',
  );
  const released = metrics.counter(
    'rp_scheduler_debits_released_total',
    'Debits released to the due topic in their window',
  );
  const releasedAtOnce = metrics.counter(
    'rp_scheduler_debits_released_at_once_total',
    'Debits released the moment they became ready, their window open and its queue empty (never queued)',
  );
  const queuedAsRepeated = metrics.counter(
    'rp_scheduler_debits_queued_as_repeated_total',
    'Debits made ready in an open window from a record that may have been handled before (a retry, a re-delivery): queued, since only the queue can tell whether they went out already',
  );
  const queueWait = metrics.histogram(
    'rp_scheduler_queue_wait_seconds',
    'From a debit joining the queue to its release',
    [],
    { buckets: [1, 10, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 72 * 3600] },
  );
  const drains = metrics.histogram(
    'rp_scheduler_drain_duration_seconds',
    "Duration of one release: a drain of a window's queue (kind=queue), or one round of the debits released as they became ready, produced and then their tombstones written (kind=ready)",
    ['kind'],
  );
  const roomWaits = metrics.histogram(
    'rp_scheduler_accepted_room_wait_seconds',
    'Time the accepted handler waited for room past the accepted halves it may hold in memory: for acknowledgements to take halves out, else for the oldest to be written as it ages; its partitions wait meanwhile',
    [],
    { buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30] },
  );
  const windowOpen = metrics.gauge('rp_scheduler_debit_window_open', 'Whether the debit window is open (1)');
  const depth = metrics.gauge('rp_scheduler_queue_depth', 'Debits in the queue, by stage', ['stage']);
  const items = metrics.counter(
    'rp_scheduler_reconciliation_items_total',
    'Reconciliation items raised, by spec section 7 row',
    ['row'],
  );
  const runs = metrics.histogram(
    'rp_scheduler_reconciliation_duration_seconds',
    'Duration of one reconciliation window close',
    [],
    { buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900] },
  );
  const closeFailures = metrics.counter(
    'rp_scheduler_reconciliation_close_failures_total',
    'Reconciliation window closes that failed part way (the store or the broker did not answer); the next window tick runs the close again, raising nothing twice',
  );
  return {
    received: (topic) => received.inc({ topic }),
    retried: (topic) => retried.inc({ topic }),
    failed: (topic) => failed.inc({ topic }),
    ignored: (topic, reason) => ignored.inc({ topic, reason }),
    queued: () => queued.inc(),
    released(count, waits, options) {
      released.inc(count);
      if (options?.atOnce === true) releasedAtOnce.inc(count);
      for (const wait of waits) queueWait.observe(wait);
    },
    queuedAsRepeated: () => queuedAsRepeated.inc(),
    drain: (seconds, kind) => drains.observe({ kind }, seconds),
    debitWindowOpen: (open) => windowOpen.set(open ? 1 : 0),
    queueDepth(queue, awaiting) {
      depth.set({ stage: 'queued' }, queue);
      depth.set({ stage: 'awaiting-status-report' }, awaiting);
    },
    heldInMemory: (count) => depth.set({ stage: 'held-in-memory' }, count),
    roomWait: (seconds) => roomWaits.observe(seconds),
    reconciliationItems: (row, count) => items.inc({ row: String(row) }, count),
    reconciliationRun: (seconds) => runs.observe(seconds),
    reconciliationFailed: () => closeFailures.inc(),
  };
}
