import type { Metrics } from '@rp/runtime';

/** Why a received debit was not validated (again). */
export type SkipReason = 'already-answered' | 'repeated-in-batch' | 'past-validation';

export interface ValidatorMetrics {
  debitsReceived(count: number): void;
  debitValidated(outcome: 'accepted' | 'rejected', reasonCodes: readonly string[]): void;
  debitSkipped(reason: SkipReason): void;
  cdv(role: 'debtor' | 'creditor', status: string): void;
  /** From the debit's arrival on the received topic to the acknowledgement of the report. */
  debitLatency(seconds: number): void;
  batch(topic: 'debits' | 'reports', seconds: number, records: number): void;
  retried(topic: 'debits' | 'reports'): void;
  failed(topic: 'debits' | 'reports', count: number): void;
  statusReport(status: string, outcome: 'applied' | 'ignored' | 'skipped'): void;
}

export function validatorMetrics(metrics: Metrics): ValidatorMetrics {
  const received = metrics.counter(
    'rp_validator_debits_received_total',
    'Debits read from the received topic',
  );
  const validated = metrics.counter('rp_validator_debits_validated_total', 'Debits answered, by outcome', [
    'outcome',
  ]);
  const reasons = metrics.counter(
    'rp_validator_rejection_reasons_total',
    'Reasons on RJCT reports, by ISO code',
    ['code'],
  );
  const skipped = metrics.counter('rp_validator_debits_skipped_total', 'Debits not validated again, by why', [
    'reason',
  ]);
  const cdv = metrics.counter('rp_validator_cdv_outcomes_total', 'CDV outcomes by account side', [
    'role',
    'status',
  ]);
  const latency = metrics.histogram(
    'rp_validator_debit_latency_seconds',
    'From the debit on the received topic to its status report acknowledged',
    [],
    { buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] },
  );
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
  const reports = metrics.counter(
    'rp_validator_status_reports_total',
    "Actioning banks' reports, by status and what was done",
    ['status', 'outcome'],
  );
  return {
    debitsReceived: (count) => received.inc(count),
    debitValidated(outcome, codes) {
      validated.inc({ outcome });
      for (const code of codes) reasons.inc({ code });
    },
    debitSkipped: (reason) => skipped.inc({ reason }),
    cdv: (role, status) => cdv.inc({ role, status }),
    debitLatency: (seconds) => latency.observe(seconds),
    batch(topic, seconds, records) {
      batches.observe({ topic }, seconds);
      batchRecords.inc({ topic }, records);
    },
    retried: (topic) => retried.inc({ topic }),
    failed: (topic, count) => failed.inc({ topic }, count),
    statusReport: (status, outcome) => reports.inc({ status, outcome }),
  };
}
