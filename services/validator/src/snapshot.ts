import { type DirectDebit, fromStoredJson, type PaymentStatusReport } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

/**
 * The DirectDebit a transaction started with, as the snapshot records it: the first message of kind
 * `DirectDebit`, read back like a request body (`fromStoredJson`: JSON text another service wrote).
 */
export function directDebitOfSnapshot(snapshot: TransactionSnapshot): DirectDebit | undefined {
  const message = snapshot.messages.find((entry) => entry.kind === 'DirectDebit');
  return message === undefined ? undefined : fromStoredJson('DirectDebit', message.bodyJson);
}

/** The status report with this messageIdentification, when the snapshot recorded it. */
export function statusReportOfSnapshot(
  snapshot: TransactionSnapshot,
  messageIdentification: string,
): PaymentStatusReport | undefined {
  const message = snapshot.messages.find(
    (entry) => entry.kind === 'PaymentStatusReport' && entry.messageIdentification === messageIdentification,
  );
  return message === undefined ? undefined : fromStoredJson('PaymentStatusReport', message.bodyJson);
}
