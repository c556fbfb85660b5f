import { fromStoredJson, type Messages } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

/** The kinds of message a transaction starts with, as its snapshot records them (the message's schema). */
export type TransactionKind = 'DirectDebit' | 'CreditTransfer';

/**
 * The message of `kind` a transaction started with, as the snapshot records it: the first message of that
 * kind (a DirectDebit for a debit, a CreditTransfer for a credit; undefined for a transaction of the
 * other flow), read back like a request body (`fromStoredJson`: JSON text another service wrote).
 */
export function transactionOfSnapshot<K extends TransactionKind>(
  snapshot: TransactionSnapshot,
  kind: K,
): Messages[K] | undefined {
  const message = snapshot.messages.find((entry) => entry.kind === kind);
  return message === undefined ? undefined : fromStoredJson(kind, message.bodyJson);
}
