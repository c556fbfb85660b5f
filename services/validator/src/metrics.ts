import type { Metrics } from '@rp/runtime';

/** Why a received debit or credit transfer was not validated (again). */
export type SkipReason = 'already-answered' | 'repeated-in-batch' | 'past-validation';

/** The two flows the validator answers: outbound direct debits and inbound credit transfer authorisations. */
export type Flow = 'debit' | 'credit';

/** The validator's consumers, as the `topic` label of the batch metrics names them. */
export type ConsumerName = 'debits' | 'credits' | 'reports';

export interface ValidatorMetrics {
  received(flow: Flow, count: number): void;
  validated(flow: Flow, outcome: 'accepted' | 'rejected', reasonCodes: readonly string[]): void;
  skipped(flow: Flow, reason: SkipReason): void;
  cdv(flow: Flow, role: 'debtor' | 'creditor', status: string): void;
  /**
   * The duplicate check before validating: the snapshot read for a record that may repeat one handled
   * before, or skipped for a transaction's first record.
   */
  duplicateCheck(flow: Flow, check: 'read' | 'skipped'): void;
  /** From the transaction's arrival on its received topic to the acknowledgement of its last output. */
  latency(flow: Flow, seconds: number): void;
  batch(topic: ConsumerName, seconds: number, records: number): void;
  retried(topic: ConsumerName): void;
  failed(topic: ConsumerName, count: number): void;
  statusReport(status: string, outcome: 'applied' | 'ignored'): void;
}

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The debit counters keep their names (the console's overview reads them); credit transfers have their
 * own, so that neither flow's figures include the other's. What both flows share carries a `flow` label.
 */
export function validatorMetrics(metrics: Metrics): ValidatorMetrics {
  const received = {
    debit: metrics.counter('rp_validator_debits_received_total', 'Debits read from the received topic'),
    credit: metrics.counter(
      'rp_validator_credits_received_total',
      'Credit transfer authorisations read from the received topic',
    ),
  };
  const validated = {
    debit: metrics.counter('rp_validator_debits_validated_total', 'Debits answered, by outcome', ['outcome']),
    credit: metrics.counter(
      'rp_validator_credits_validated_total',
      'Credit transfer authorisations answered, by outcome',
      ['outcome'],
    ),
  };
  const skipped = {
    debit: metrics.counter('rp_validator_debits_skipped_total', 'Debits not validated again, by why', [
      'reason',
    ]),
    credit: metrics.counter(
      'rp_validator_credits_skipped_total',
      'Credit transfer authorisations not validated again, by why',
      ['reason'],
    ),
  };
  const latency = {
    debit: metrics.histogram(
      'rp_validator_debit_latency_seconds',
      'From the debit on the received topic to its status report acknowledged',
      [],
      { buckets: latencyBuckets },
    ),
    credit: metrics.histogram(
      'rp_validator_credit_latency_seconds',
      'From the credit transfer on the received topic to its answer acknowledged (state change, accepted credit)',
      [],
      { buckets: latencyBuckets },
    ),
  };
  const reasons = metrics.counter(
    'rp_validator_rejection_reasons_total',
    'Reasons on RJCT reports, by flow and ISO code',
    ['flow', 'code'],
  );
  const cdv = metrics.counter('rp_validator_cdv_outcomes_total', 'CDV outcomes by flow and account side', [
    'flow',
    'role',
    'status',
  ]);
  const batches = metrics.histogram('rp_validator_batch_duration_seconds', 'Handler time per batch', [
    'topic',
  ]);
  const batchRecords = metrics.counter('rp_validator_batch_records_total', 'Records handled in batches', [
    'topic',
  ]);
  const retried = metrics.counter(
    'rp_validator_retried_records_total',
    'Records handled again from a retry tier',
    ['topic'],
  );
  const failed = metrics.counter(
    'rp_validator_failed_records_total',
    'Records reported failed (to the retry tiers or the dead-letter topic)',
    ['topic'],
  );
  const duplicateChecks = metrics.counter(
    'rp_validator_duplicate_checks_total',
    "The duplicate check's snapshot read before validating, by flow: read (a record that may repeat one handled before) or skipped",
    ['flow', 'check'],
  );
  const reports = metrics.counter(
    'rp_validator_status_reports_total',
    "Actioning banks' reports, by status and what was done",
    ['status', 'outcome'],
  );
  return {
    received: (flow, count) => received[flow].inc(count),
    validated(flow, outcome, codes) {
      validated[flow].inc({ outcome });
      for (const code of codes) reasons.inc({ flow, code });
    },
    skipped: (flow, reason) => skipped[flow].inc({ reason }),
    cdv: (flow, role, status) => cdv.inc({ flow, role, status }),
    duplicateCheck: (flow, check) => duplicateChecks.inc({ flow, check }),
    latency: (flow, seconds) => latency[flow].observe(seconds),
    batch(topic, seconds, records) {
      batches.observe({ topic }, seconds);
      batchRecords.inc({ topic }, records);
    },
    retried: (topic) => retried.inc({ topic }),
    failed: (topic, count) => failed.inc({ topic }, count),
    statusReport: (status, outcome) => reports.inc({ status, outcome }),
  };
}
