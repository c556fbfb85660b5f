import { type CreditTransfer, type DirectDebit, type TransactionStateChanged, toJson } from '@rp/contracts';
import { RecentMap } from '@rp/runtime';
import { partiesOf, type StartingMessage, transactionStatusOf } from './transaction-status.ts';

/** A transaction this instance acknowledged: the status a party reads, and who the parties are. */
interface Accepted {
  /** The `TransactionStatus` as sent, built once at the 202. */
  readonly json: string;
  readonly parties: readonly string[];
}

/** What the ingress can say of a transaction whose snapshot is not there yet. */
export type AcceptedAnswer =
  | { readonly found: true; readonly json: string }
  | { readonly found: false; readonly party: boolean | undefined };

/**
 * The transactions this instance acknowledged last, by UETR, each with the status its first state gives
 * it. The tracker writes a transaction's snapshot behind (up to TRACKER_SNAPSHOT_INTERVAL after its first
 * change, longer while it catches up), so a bank that reads its transaction straight after the 202 would
 * otherwise be told there is no such transaction. Consulted only when the snapshot is missing: once it
 * exists it is the answer. Bounded: the last `capacity` acknowledged, a few hundred bytes each.
 */
export class AcceptedTransactions {
  readonly #recent: RecentMap<string, Accepted>;

  constructor(capacity: number) {
    this.#recent = new RecentMap(capacity);
  }

  /** Remembers the transaction `message` started, acknowledged with `first` as its first state change. */
  remember(message: DirectDebit | CreditTransfer, first: TransactionStateChanged): void {
    const started: StartingMessage =
      message.schema === 'DirectDebit'
        ? { kind: 'DirectDebit', type: 'DIRECT_DEBIT', message }
        : { kind: 'CreditTransfer', type: 'CREDIT_TRANSFER', message };
    const at = new Date(first.occurredAt);
    const status = transactionStatusOf(
      {
        uetr: first.uetr,
        state: first.toState,
        createdAt: at,
        updatedAt: at,
        history: [{ seq: 1, to: first.toState, eventType: first.eventType, at }],
      },
      started,
    );
    this.#recent.set(first.uetr, {
      json: toJson('TransactionStatus', status),
      parties: [...partiesOf(message)],
    });
  }

  /**
   * The status `memberId` reads of `uetr` when this instance acknowledged it and the bank is a party;
   * otherwise whether it is a party (undefined: not acknowledged here, or forgotten).
   */
  answer(uetr: string, memberId: string): AcceptedAnswer {
    const accepted = this.#recent.get(uetr);
    if (accepted === undefined) return { found: false, party: undefined };
    if (!accepted.parties.includes(memberId)) return { found: false, party: false };
    return { found: true, json: accepted.json };
  }
}
