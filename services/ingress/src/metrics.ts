import type { Metrics } from '@rp/runtime';

/** The operations the ingress serves (to banks and payment schemes), as the API names them. */
export type IngressOperation =
  | 'outboundDirectDebit'
  | 'inboundDirectDebitResponse'
  | 'inboundCreditTransferAuthorization'
  | 'inboundCreditTransferAuthorizationResponse'
  | 'inboundDirectDebitFromScheme';

/**
 * How a request ended. `accepted`: first receipt, produced; `replayed`: a resend answered from the
 * idempotency record; `reproduced`: a resend whose first attempt may not have reached Kafka, produced
 * again; `joined`: a resend that arrived while its first attempt was in progress in this instance,
 * answered with that attempt's outcome; the rest are refusals.
 */
export type IngressOutcome =
  | 'accepted'
  | 'replayed'
  | 'reproduced'
  | 'joined'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'malformed'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'overloaded'
  | 'unavailable';

/**
 * How a bank's read of a transaction ended. `not_found` and `not_party` answer the bank alike (404); only
 * the operator's metrics tell them apart.
 */
export type ReadOutcome =
  | 'found'
  /** No snapshot yet: answered with the first state this instance acknowledged it in. */
  | 'accepted'
  /** No snapshot yet, acknowledged moments ago by another instance: 503 with Retry-After. */
  | 'not_yet'
  | 'not_found'
  | 'not_party'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'rate_limited'
  | 'overloaded'
  | 'unavailable';

/**
 * What a bank's report on a transaction was checked against. `remembered`: the claim this instance made;
 * `claim`: the claim, read; `snapshot`: the snapshot, for a UETR claimed before claims recorded their
 * transactions (or not claimed: refused); `early`: such a claim whose snapshot is not written yet (503).
 */
export type ReportCheck = 'remembered' | 'claim' | 'snapshot' | 'early';

export interface IngressMetrics {
  received(operation: IngressOperation): void;
  finished(operation: IngressOperation, outcome: IngressOutcome): void;
  /** Time from the idempotency claim to the broker's acknowledgement of both records. */
  produced(operation: IngressOperation, seconds: number): void;
  /** A bank's read of a transaction (`GET /transactions/{uetr}`), by how it was answered. */
  read(outcome: ReadOutcome): void;
  /** A resend starts (+1) or stops (-1) waiting for its first attempt, in progress in this instance. */
  resendWaiting(operation: IngressOperation, change: 1 | -1): void;
  /** "Produced" markers written behind, or given up after a failed write. */
  markers(result: 'written' | 'failed', count: number): void;
  /** Message claims and "produced" markers deleted past their retention. */
  idempotencyKeysPurged(count: number): void;
  /** A bank's report checked against what is recorded of its transaction (see ReportCheck). */
  reportChecked(check: ReportCheck): void;
}

export function ingressMetrics(metrics: Metrics): IngressMetrics {
  const received = metrics.counter(
    'rp_ingress_messages_received_total',
    'Messages received from banks and payment schemes',
    ['operation'],
  );
  const finished = metrics.counter(
    'rp_ingress_messages_total',
    'Messages from banks and payment schemes by how the ingress answered them',
    ['operation', 'outcome'],
  );
  const produce = metrics.histogram(
    'rp_ingress_produce_duration_seconds',
    'From the idempotency claim to the acknowledgement of the state change and the flow record',
    ['operation'],
    { buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
  );
  const reads = metrics.counter(
    'rp_ingress_transaction_reads_total',
    "Banks' reads of a transaction by how the ingress answered them",
    ['outcome'],
  );
  const waiting = metrics.gauge(
    'rp_ingress_resends_waiting',
    'Resends waiting for their first attempt, still in progress in this instance',
    ['operation'],
  );
  const markers = metrics.counter(
    'rp_ingress_produced_markers_total',
    '"Produced" markers of acknowledged messages, by whether their write behind succeeded',
    ['result'],
  );
  const keysPurged = metrics.counter(
    'rp_ingress_idempotency_keys_purged_total',
    'Message claims and "produced" markers deleted past their retention (IDEMPOTENCY_RETENTION)',
  );
  const reportChecks = metrics.counter(
    'rp_ingress_report_checks_total',
    "Banks' reports by what the ingress checked them against: remembered, claim, snapshot or early",
    ['check'],
  );
  return {
    received: (operation) => received.inc({ operation }),
    finished: (operation, outcome) => finished.inc({ operation, outcome }),
    produced: (operation, seconds) => produce.observe({ operation }, seconds),
    read: (outcome) => reads.inc({ outcome }),
    resendWaiting: (operation, change) => waiting.inc({ operation }, change),
    markers: (result, count) => markers.inc({ result }, count),
    reportChecked: (check) => reportChecks.inc({ check }),
    idempotencyKeysPurged: (count) => keysPurged.inc(count),
  };
}
