import { type CreditTransfer, type DirectDebit, fromStoredJson } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';
/** Header on due debits: the business date of the debit window that released them. */
export const windowDateHeader = 'rp-window-date';
/** Header on due debits: when the scheduler released them (its clock), the start of their delivery. */
export const releasedAtHeader = 'rp-released-at';

/**
 * The payload a transaction started with, as its snapshot records it: the first DirectDebit or
 * CreditTransfer message, read back like a request body (`fromStoredJson`: JSON text another service
 * wrote).
 */
export function transactionOfSnapshot(
  snapshot: TransactionSnapshot,
): DirectDebit | CreditTransfer | undefined {
  for (const message of snapshot.messages) {
    if (message.kind === 'DirectDebit') return readDirectDebit(message.bodyJson);
    if (message.kind === 'CreditTransfer') return fromStoredJson('CreditTransfer', message.bodyJson);
  }
  return undefined;
}

/** A DirectDebit from JSON text; undefined when it is not one. */
export function readDirectDebit(bodyJson: string): DirectDebit | undefined {
  return fromStoredJson('DirectDebit', bodyJson);
}
