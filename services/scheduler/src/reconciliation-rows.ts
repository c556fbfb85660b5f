import {
  type KnownReconciliationCode,
  type KnownTransactionState,
  reconciliationRows,
  transactionStates,
} from '@rp/contracts';

/**
 * Which row of the spec's error table (section 7) a transaction left in a state at the reconciliation
 * window's close falls under. A function of the state, except DEBIT_DELIVERY_PENDING (and its credit
 * twin), where it depends on whether the actioning bank ever answered: never (no HTTP response, row 7)
 * or only with a negative acknowledgement (5xx or a retryable 4xx, row 8).
 *
 * | state at close                                   | row | why                                                        |
 * | ------------------------------------------------ | --- | ---------------------------------------------------------- |
 * | DEBIT_RECEIVED, DEBIT_ACCEPTED, DEBIT_REJECTED   | 4   | the engine's status report never reached the initiating bank's door |
 * | DEBIT_ACCEPTANCE/REJECTION_DELIVERY_PENDING      | 5   | the initiating bank never acknowledged the status report   |
 * | DEBIT_STATUS_DELIVERY_FAILED                     | 3   | the initiating bank refused it with a final 4xx            |
 * | DEBIT_ACCEPTANCE_DELIVERED, DEBIT_QUEUED         | 7   | the inbound debit never reached the actioning bank (held in the queue) |
 * | DEBIT_DELIVERY_PENDING                           | 7/8 | no response at all / only negative acknowledgements         |
 * | DEBIT_DELIVERY_FAILED                            | 3   | the actioning bank refused it with a final 4xx             |
 * | DEBIT_DELIVERED, DEBIT_RESPONSE_ACCEPTED         | 9   | no final status report from the actioning bank             |
 *
 * An inbound off-us debit from a clearing house owes no status report; left DEBIT_ACCEPTED it was never
 * queued, and it is still raised as row 4: the snapshot does not say where a debit came from.
 *
 * Credits (later) follow the same grammar: received or accepted 4, delivery pending 7/8, delivery
 * failed 3, delivered 9.
 */
export type RowRule = KnownReconciliationCode | 'BY_DELIVERY_ANSWER';

export const reconciliationRuleOfState: Readonly<Partial<Record<KnownTransactionState, RowRule>>> = {
  DEBIT_RECEIVED: 'STATUS_REPORT_NOT_SENT',
  DEBIT_ACCEPTED: 'STATUS_REPORT_NOT_SENT',
  DEBIT_REJECTED: 'STATUS_REPORT_NOT_SENT',
  DEBIT_ACCEPTANCE_DELIVERY_PENDING: 'STATUS_REPORT_NOT_ACKNOWLEDGED',
  DEBIT_REJECTION_DELIVERY_PENDING: 'STATUS_REPORT_NOT_ACKNOWLEDGED',
  DEBIT_STATUS_DELIVERY_FAILED: 'UNRECOVERABLE_ERROR',
  DEBIT_ACCEPTANCE_DELIVERED: 'INBOUND_DEBIT_NO_RESPONSE',
  DEBIT_QUEUED: 'INBOUND_DEBIT_NO_RESPONSE',
  DEBIT_DELIVERY_PENDING: 'BY_DELIVERY_ANSWER',
  DEBIT_DELIVERY_FAILED: 'UNRECOVERABLE_ERROR',
  DEBIT_DELIVERED: 'INBOUND_STATUS_REPORT_MISSING',
  DEBIT_RESPONSE_ACCEPTED: 'INBOUND_STATUS_REPORT_MISSING',
  CREDIT_AUTH_RECEIVED: 'STATUS_REPORT_NOT_SENT',
  CREDIT_AUTH_ACCEPTED: 'STATUS_REPORT_NOT_SENT',
  CREDIT_AUTH_DELIVERY_PENDING: 'BY_DELIVERY_ANSWER',
  CREDIT_AUTH_DELIVERY_FAILED: 'UNRECOVERABLE_ERROR',
  CREDIT_AUTH_DELIVERED: 'INBOUND_STATUS_REPORT_MISSING',
};

/** The states a reconciliation close looks for: every state that is not final. */
export const unresolvedStates: readonly KnownTransactionState[] = (
  Object.keys(transactionStates) as KnownTransactionState[]
).filter((state) => !transactionStates[state].final);

export interface ReconciliationRowChoice {
  row: number;
  code: KnownReconciliationCode;
  text: string;
}

/**
 * The row for a transaction in `state` at the close; `answeredByBank` tells, for a delivery still
 * pending, whether any attempt got an HTTP status. Undefined for a state that is final or unknown.
 */
export function reconciliationRowFor(
  state: string,
  answeredByBank: boolean,
): ReconciliationRowChoice | undefined {
  if (!Object.hasOwn(reconciliationRuleOfState, state)) return undefined;
  const rule = reconciliationRuleOfState[state as KnownTransactionState];
  if (rule === undefined) return undefined;
  const code: KnownReconciliationCode =
    rule === 'BY_DELIVERY_ANSWER'
      ? answeredByBank
        ? 'INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT'
        : 'INBOUND_DEBIT_NO_RESPONSE'
      : rule;
  return { row: reconciliationRows[code].row, code, text: reconciliationRows[code].condition };
}
