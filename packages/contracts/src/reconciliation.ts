import type { ReconciliationCode } from './generated/types.ts';

export type KnownReconciliationCode = Exclude<ReconciliationCode, 'UNKNOWN'>;

export interface ReconciliationRow {
  /** Row number of the spec's section 7 table. */
  row: number;
  /** The condition, as the spec states it. */
  condition: string;
}

/** The spec's error table (section 7): each row that can leave a transaction for reconciliation. */
export const reconciliationRows: Readonly<Record<KnownReconciliationCode, ReconciliationRow>> = {
  OUTBOUND_DEBIT_NO_RESPONSE: {
    row: 1,
    condition: 'No HTTP response from the service to an outbound DirectDebit',
  },
  OUTBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT: {
    row: 2,
    condition:
      'Negative acknowledgement (HTTP 5xx or retryable 4xx) from the service to an outbound DirectDebit',
  },
  UNRECOVERABLE_ERROR: {
    row: 3,
    condition: 'A 4xx response that is not recoverable',
  },
  STATUS_REPORT_NOT_SENT: {
    row: 4,
    condition: 'No PaymentStatusReport from the service before the reconciliation window closed',
  },
  STATUS_REPORT_NOT_ACKNOWLEDGED: {
    row: 5,
    condition:
      "The initiating bank sent no HTTP response to the service's PaymentStatusReport before the window closed",
  },
  ACCOUNT_VALIDATION_REJECTED: {
    row: 6,
    condition: 'Account validation failed: PaymentStatusReport with status RJCT',
  },
  INBOUND_DEBIT_NO_RESPONSE: {
    row: 7,
    condition: 'No HTTP response from the actioning bank to an inbound DirectDebit before the window closed',
  },
  INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT: {
    row: 8,
    condition:
      'Negative acknowledgement (5xx or retryable 4xx) from the actioning bank to an inbound DirectDebit, not acknowledged before the window closed',
  },
  INBOUND_STATUS_REPORT_MISSING: {
    row: 9,
    condition: 'No PaymentStatusReport from the actioning bank before the window closed',
  },
  INBOUND_STATUS_REPORT_NOT_ACKNOWLEDGED: {
    row: 10,
    condition: "No HTTP response from the service to the actioning bank's PaymentStatusReport",
  },
};

/** The code of a section 7 row number (1-10). */
export function reconciliationCodeOfRow(row: number): KnownReconciliationCode | undefined {
  return (Object.keys(reconciliationRows) as KnownReconciliationCode[]).find(
    (code) => reconciliationRows[code].row === row,
  );
}
