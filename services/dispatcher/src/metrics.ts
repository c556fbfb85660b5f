import type { Metrics } from '@rp/runtime';
import type { DispatchOperation } from './delivery.ts';

export type DeferReason = 'not-yet-due' | 'bank-unresponsive' | 'bank-busy';

/** Series are labelled by operation: the call on a bank they count (one of DispatchOperation). */
export interface DispatcherMetrics {
  received(operation: DispatchOperation): void;
  attempt(operation: DispatchOperation, bank: string, result: string, seconds: number): void;
  delivered(operation: DispatchOperation, sinceOriginSeconds: number): void;
  finalFailure(operation: DispatchOperation): void;
  retryScheduled(operation: DispatchOperation): void;
  deferred(operation: DispatchOperation, reason: DeferReason): void;
  /** Retries stopped at the reconciliation window's close. */
  expired(operation: DispatchOperation): void;
  failed(operation: DispatchOperation): void;
  inFlight(bank: string, calls: number): void;
}

export function dispatcherMetrics(metrics: Metrics): DispatcherMetrics {
  const received = metrics.counter('rp_dispatcher_records_received_total', 'Messages read for delivery', [
    'operation',
  ]);
  const attempts = metrics.counter('rp_dispatcher_attempts_total', 'HTTP attempts on banks, by result', [
    'operation',
    'bank',
    'result',
  ]);
  const attemptDuration = metrics.histogram(
    'rp_dispatcher_attempt_duration_seconds',
    'Duration of one HTTP attempt on a bank',
    ['operation', 'bank'],
    { buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
  );
  const delivered = metrics.counter('rp_dispatcher_delivered_total', 'Messages the bank acknowledged (202)', [
    'operation',
  ]);
  const deliveryLatency = metrics.histogram(
    'rp_dispatcher_delivery_latency_seconds',
    'From the message on its topic to the bank acknowledgement, retries included',
    ['operation'],
    { buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 4 * 3600] },
  );
  const finalFailures = metrics.counter(
    'rp_dispatcher_final_failures_total',
    'Messages a bank refused with a final answer',
    ['operation'],
  );
  const retries = metrics.counter(
    'rp_dispatcher_retries_scheduled_total',
    'Failed attempts that will be retried',
    ['operation'],
  );
  const deferred = metrics.counter(
    'rp_dispatcher_deferred_total',
    'Records sent back to the retry tiers without an attempt, by why',
    ['operation', 'reason'],
  );
  const expired = metrics.counter(
    'rp_dispatcher_expired_total',
    'Deliveries whose retries stopped at the reconciliation window close',
    ['operation'],
  );
  const failed = metrics.counter(
    'rp_dispatcher_failed_records_total',
    'Records whose handling failed (state topic, store or a missing bank)',
    ['operation'],
  );
  const inFlight = metrics.gauge('rp_dispatcher_bank_calls_in_flight', 'Calls on a bank in progress', [
    'bank',
  ]);
  return {
    received: (operation) => received.inc({ operation }),
    attempt(operation, bank, result, seconds) {
      attempts.inc({ operation, bank, result });
      attemptDuration.observe({ operation, bank }, seconds);
    },
    delivered(operation, seconds) {
      delivered.inc({ operation });
      deliveryLatency.observe({ operation }, seconds);
    },
    finalFailure: (operation) => finalFailures.inc({ operation }),
    retryScheduled: (operation) => retries.inc({ operation }),
    deferred: (operation, reason) => deferred.inc({ operation, reason }),
    expired: (operation) => expired.inc({ operation }),
    failed: (operation) => failed.inc({ operation }),
    inFlight: (bank, calls) => inFlight.set({ bank }, calls),
  };
}
