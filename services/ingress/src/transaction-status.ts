import {
  type CreditTransfer,
  type DirectDebit,
  isFinalState,
  type StateHistoryEntry,
  type TransactionEventType,
  type TransactionState,
  type TransactionStatus,
  transactionEventTypeSymbols,
  transactionStateSymbols,
} from '@rp/contracts';
import { AppError } from '@rp/runtime';
import type { TransactionHistoryEntry, TransactionSnapshot } from '@rp/store';
import { type TransactionKind, transactionOfSnapshot } from './snapshot.ts';

/** The message a transaction started with, as its snapshot records it. */
export type StartingMessage =
  | { kind: 'DirectDebit'; type: 'DIRECT_DEBIT'; message: DirectDebit }
  | { kind: 'CreditTransfer'; type: 'CREDIT_TRANSFER'; message: CreditTransfer };

const transactionTypes = { DirectDebit: 'DIRECT_DEBIT', CreditTransfer: 'CREDIT_TRANSFER' } as const;

/**
 * The DirectDebit or CreditTransfer the transaction started with (the first of either kind the snapshot
 * recorded); undefined when the snapshot has none that reads back (a snapshot made by a delivery attempt
 * before the first state change, or a body that no longer validates).
 */
export function startingMessage(snapshot: TransactionSnapshot): StartingMessage | undefined {
  const first = snapshot.messages.find(
    (entry): entry is typeof entry & { kind: TransactionKind } =>
      entry.kind === 'DirectDebit' || entry.kind === 'CreditTransfer',
  );
  if (first === undefined) return undefined;
  if (first.kind === 'DirectDebit') {
    const message = transactionOfSnapshot(snapshot, 'DirectDebit');
    return message === undefined
      ? undefined
      : { kind: 'DirectDebit', type: transactionTypes.DirectDebit, message };
  }
  const message = transactionOfSnapshot(snapshot, 'CreditTransfer');
  return message === undefined
    ? undefined
    : { kind: 'CreditTransfer', type: transactionTypes.CreditTransfer, message };
}

/**
 * The banks party to a transaction, by member id: the instructing, instructed, debtor and creditor agents
 * of the message that started it. For a debit these are the initiating bank (the creditor's) and the
 * actioning bank (the debtor's); for a credit, the creditor's bank and the bank that instructed it.
 */
export function partiesOf(message: DirectDebit | CreditTransfer): ReadonlySet<string> {
  const parties = new Set<string>();
  for (const agent of [
    message.instructingAgent,
    message.instructedAgent,
    message.debtorAgent,
    message.creditorAgent,
  ]) {
    if (agent?.memberId !== undefined) parties.add(agent.memberId);
  }
  return parties;
}

/**
 * What a bank's status is built from: a transaction's snapshot, or what the ingress knows of one it has
 * just acknowledged (see AcceptedTransactions).
 */
export type StatusSource = Pick<TransactionSnapshot, 'uetr' | 'state' | 'createdAt' | 'updatedAt'> & {
  readonly history: readonly Pick<TransactionHistoryEntry, 'seq' | 'to' | 'eventType' | 'at'>[];
};

/**
 * What a party bank is told about a transaction: its type, where it stands and how it got there, its
 * identification, agents and amount. Never the messages themselves (the other party's accounts and
 * customers), nor how the engine delivers them. The amount keeps the exact decimal the message carried.
 */
export function transactionStatusOf(
  snapshot: StatusSource,
  { type, message }: StartingMessage,
): TransactionStatus {
  const state = knownState(snapshot.uetr, snapshot.state);
  const history = [...snapshot.history]
    .sort((a, b) => a.seq - b.seq)
    .map(
      (entry): StateHistoryEntry => ({
        seq: entry.seq,
        state: knownState(snapshot.uetr, entry.to),
        eventType: knownEventType(snapshot.uetr, entry.eventType),
        at: entry.at.toISOString(),
      }),
    );
  const { value, currency } = message.amounts.bankSettlementAmount;
  return {
    uetr: snapshot.uetr,
    transactionType: type,
    state,
    final: isFinalState(state),
    endToEndIdentification: message.transactionIdentifiers.endToEndIdentification,
    ...optional('instructingAgentMemberId', message.instructingAgent?.memberId),
    ...optional('instructedAgentMemberId', message.instructedAgent?.memberId),
    ...optional('debtorAgentMemberId', message.debtorAgent.memberId),
    ...optional('creditorAgentMemberId', message.creditorAgent.memberId),
    amount: { value, currency },
    createdAt: snapshot.createdAt.toISOString(),
    updatedAt: snapshot.updatedAt.toISOString(),
    history,
  };
}

/** `{ [name]: value }`, or nothing when there is no value: optional members are left out, never null. */
function optional<N extends string>(name: N, value: string | undefined): Partial<Record<N, string>> {
  return value === undefined ? {} : ({ [name]: value } as Record<N, string>);
}

const states: ReadonlySet<string> = new Set(transactionStateSymbols.filter((symbol) => symbol !== 'UNKNOWN'));
const eventTypes: ReadonlySet<string> = new Set(
  transactionEventTypeSymbols.filter((symbol) => symbol !== 'UNKNOWN'),
);

/** The tracker records only states of the transition table; anything else is a fault of the engine. */
function knownState(uetr: string, state: string | null): TransactionState {
  if (state === null || !states.has(state)) {
    throw new AppError('INTERNAL', `transaction ${uetr}: its snapshot records the unknown state ${state}`);
  }
  return state as TransactionState;
}

function knownEventType(uetr: string, eventType: string): TransactionEventType {
  if (!eventTypes.has(eventType)) {
    throw new AppError(
      'INTERNAL',
      `transaction ${uetr}: its snapshot records the unknown event type ${eventType}`,
    );
  }
  return eventType as TransactionEventType;
}
