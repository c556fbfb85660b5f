import { fromStoredJson, type PaymentStatusReport } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

/**
 * The status report with this messageIdentification, when the snapshot recorded it, read back like a
 * request body (`fromStoredJson`: JSON text another service wrote).
 */
export function statusReportOfSnapshot(
  snapshot: TransactionSnapshot,
  messageIdentification: string,
): PaymentStatusReport | undefined {
  const message = snapshot.messages.find(
    (entry) => entry.kind === 'PaymentStatusReport' && entry.messageIdentification === messageIdentification,
  );
  return message === undefined ? undefined : fromStoredJson('PaymentStatusReport', message.bodyJson);
}
