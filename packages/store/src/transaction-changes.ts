import { StoreError } from './errors.ts';

/** One state change of one transaction, as the services emit it (the `TransactionStateChanged` record). */
export interface TransactionStateChange {
  uetr: string;
  /** Stable id of the change; the event posting for it carries the same id. */
  eventId: string;
  /**
   * Position of this change in the transaction's life, strictly increasing per UETR (1 for the first
   * change). The snapshot keeps the highest one applied and never takes a lower one.
   */
  seq: number;
  /** State before the change; null for the change that creates the transaction. */
  from: string | null;
  to: string;
  eventType: string;
  at: Date;
  /** The service that made the change. */
  service: string;
  endToEndIdentification?: string;
  debtorAgentMemberId?: string;
  creditorAgentMemberId?: string;
  /** The message that caused the change, when there was one. */
  message?: TransactionMessage;
}

/** A message of the transaction, kept with its body as JSON text so no user-supplied key becomes a field name. */
export interface TransactionMessage {
  /** What the message is, e.g. `DirectDebit`, `PaymentStatusReport`. */
  kind: string;
  messageIdentification: string;
  at: Date;
  /** The message exactly as JSON text. */
  bodyJson: string;
}

/** The changes of one transaction found in one batch: ordered by `seq`, one entry per event id. */
export interface TransactionChangeGroup {
  uetr: string;
  changes: TransactionStateChange[];
}

/**
 * Groups a batch by UETR, keeping the order in which UETRs first appear. Within a group the changes are
 * sorted by `seq`, and a change seen twice (same event id, as a redelivered record is) is kept once.
 * Two different events claiming one `seq` is a producer fault and fails the batch rather than letting
 * one of them silently win.
 */
export function groupChangesByTransaction(
  changes: readonly TransactionStateChange[],
): TransactionChangeGroup[] {
  const groups = new Map<string, Map<string, TransactionStateChange>>();
  for (const change of changes) {
    validateChange(change);
    let byEvent = groups.get(change.uetr);
    if (!byEvent) {
      byEvent = new Map();
      groups.set(change.uetr, byEvent);
    }
    if (!byEvent.has(change.eventId)) byEvent.set(change.eventId, change);
  }
  return [...groups].map(([uetr, byEvent]) => {
    const sorted = [...byEvent.values()].sort((a, b) => a.seq - b.seq);
    for (let index = 1; index < sorted.length; index += 1) {
      const previous = sorted[index - 1] as TransactionStateChange;
      const current = sorted[index] as TransactionStateChange;
      if (previous.seq === current.seq) {
        throw new StoreError(
          'invalid-input',
          `transaction ${uetr}: events ${previous.eventId} and ${current.eventId} both claim seq ${current.seq}`,
        );
      }
    }
    return { uetr, changes: sorted };
  });
}

function validateChange(change: TransactionStateChange): void {
  if (!change.uetr || !change.eventId || !change.to || !change.eventType || !change.service) {
    throw new StoreError('invalid-input', `state change ${change.eventId || '?'}: a required field is empty`);
  }
  if (!Number.isSafeInteger(change.seq) || change.seq < 1) {
    throw new StoreError('invalid-input', `state change ${change.eventId}: seq must be a positive integer`);
  }
  if (!(change.at instanceof Date) || Number.isNaN(change.at.getTime())) {
    throw new StoreError('invalid-input', `state change ${change.eventId}: at must be a valid Date`);
  }
}
