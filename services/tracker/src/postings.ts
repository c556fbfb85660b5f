import {
  type CreditTransfer,
  type DirectDebit,
  type Direction,
  decimalPlaces,
  type EsmStatePosting,
  type EventEsmIdentifiers,
  type EventEsmState,
  type EventEsmTransactionInfo,
  type EventPosting,
  eventsApiVersion,
  type IsoDate,
  type PaymentRecord,
  type TransactionEventType,
  type TransactionStatePosting,
  toMinorUnits,
  transactionEventTypes,
} from '@rp/contracts';

/** The business time zone: dates without one (action dates) are South African dates. */
export const businessTimeZone = 'Africa/Johannesburg';

const dateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: businessTimeZone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The South African calendar date of an instant (YYYY-MM-DD). */
export function businessDate(at: Date): IsoDate {
  return dateFormat.format(at) as IsoDate;
}

/**
 * The posting's messageInfo.messageIdentification for a state change's event id. MessageIdentifiers
 * allow 35 characters and the event id is a 36-character UUID, so the posting carries it as `EVT` and
 * its 32 hex digits: the same change always gives the same identification, and it maps back to the id.
 */
export function postingMessageId(eventId: string): string {
  return `EVT${eventId.replace(/-/g, '')}`;
}

/**
 * The event id of a change's ESM_STATE posting: `ESM` and the same 32 hex digits as its TRANSACTION_STATE
 * posting, so each state change has its own ESM_STATE posting and a bank can pair the two.
 */
export function esmPostingId(eventId: string): string {
  return `ESM${eventId.replace(/-/g, '')}`;
}

/** The event id of one of a change's postings: the `rp-posting-id` header of its rp.events.v1 record. */
export function postingIdOf(posting: EventPosting, eventId: string): string {
  return posting.class === 'TRANSACTION_STATE'
    ? posting.messageInfo.messageIdentification
    : esmPostingId(eventId);
}

/** The event id back from a posting's messageIdentification (undefined when it is not one). */
export function eventIdOfPostingMessageId(messageIdentification: string): string | undefined {
  const match = /^EVT([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(
    messageIdentification,
  );
  return match ? match.slice(1).join('-') : undefined;
}

/** What the tracker decided about one state change: everything a posting needs beyond the record. */
export interface SequencedChange {
  uetr: string;
  eventType: Exclude<TransactionEventType, 'UNKNOWN'>;
  /** The state-change event id (pipeline's stateEventId). */
  eventId: string;
  /** 1 for the transaction's first change, one more for each. */
  sequence: number;
  /** The direction of the stage; for types that take the direction of the stage the transaction was in, that one. */
  direction: Direction;
  occurredAt: string;
  transaction: CreditTransfer | DirectDebit;
}

/** Direction of a stage: the catalogue's, or (EITHER) the direction of the stage before it. */
export function directionOf(
  eventType: Exclude<TransactionEventType, 'UNKNOWN'>,
  previous: Direction | undefined,
): Direction {
  const direction = transactionEventTypes[eventType].direction;
  return direction === 'EITHER' ? (previous ?? 'OUTBOUND') : direction;
}

export function esmStateOf(eventType: Exclude<TransactionEventType, 'UNKNOWN'>): EventEsmState {
  const { transactionState, financialTransactionState } = transactionEventTypes[eventType].esm;
  return { transactionState, financialTransactionState };
}

/** The date the transaction takes effect: the debit's collection (or settlement) date, else today in SAST. */
export function actionDateOf(transaction: CreditTransfer | DirectDebit, occurredAt: Date): IsoDate {
  if (transaction.schema === 'DirectDebit') {
    return transaction.requestedCollectionDate ?? transaction.settlementDate ?? businessDate(occurredAt);
  }
  return businessDate(occurredAt);
}

const isZaEft = (transaction: CreditTransfer | DirectDebit) => transaction.paymentScheme.schema === 'ZA_EFT';

function transactionInfoOf(change: SequencedChange): EventEsmTransactionInfo {
  const subService = change.transaction.paymentTypeInformation?.localInstrument?.value;
  return {
    direction: change.direction,
    paymentType: change.transaction.schema === 'DirectDebit' ? 'DEBIT' : 'CREDIT',
    recordType: 'PAYMENT',
    ...(subService ? { subService } : {}),
  };
}

function identifiersOf(change: SequencedChange, record: PaymentRecord | undefined): EventEsmIdentifiers {
  const ids = change.transaction.transactionIdentifiers;
  return {
    endToEndIdentification: ids.endToEndIdentification,
    ...(record ? { matchingKey: matchingKeyOf(record) } : {}),
    ...(ids.transactionIdentification ? { transactionIdentification: ids.transactionIdentification } : {}),
    uetr: change.uetr,
  };
}

/** The TRANSACTION_STATE posting of a sequenced change, with the transaction as it was then. */
export function transactionStatePosting(change: SequencedChange): TransactionStatePosting {
  const occurredAt = new Date(change.occurredAt);
  const record = isZaEft(change.transaction) ? paymentRecordOf(change.transaction, occurredAt) : undefined;
  return {
    name: `TRANSACTION_STATE_${change.eventType}`,
    apiVersion: eventsApiVersion,
    class: 'TRANSACTION_STATE',
    type: change.eventType,
    stageVersion: change.sequence,
    tranInfo: {
      tranUetr: change.uetr,
      direction: change.direction,
      paymentScheme: change.transaction.paymentScheme.schema,
      service: change.transaction.schema === 'DirectDebit' ? 'DIRECT_DEBIT' : 'CREDIT_TRANSFER',
    },
    // The change's own time, not the time of posting: a re-sequenced change yields the same posting.
    messageInfo: {
      messageIdentification: postingMessageId(change.eventId),
      creationDateTime: change.occurredAt,
    },
    payload: change.transaction,
    actionDate: actionDateOf(change.transaction, occurredAt),
    creationDateTime: change.occurredAt,
    identifiers: identifiersOf(change, record),
    state: esmStateOf(change.eventType),
    transactionInfo: transactionInfoOf(change),
  };
}

/** The ESM_STATE posting of a sequenced change of a ZA_EFT transaction; undefined for other schemes. */
export function esmStatePosting(change: SequencedChange): EsmStatePosting | undefined {
  if (!isZaEft(change.transaction)) return undefined;
  const occurredAt = new Date(change.occurredAt);
  const record = paymentRecordOf(change.transaction, occurredAt);
  return {
    apiVersion: eventsApiVersion,
    class: 'ESM_STATE',
    actionDate: record?.actionDate ?? actionDateOf(change.transaction, occurredAt),
    creationDateTime: change.occurredAt,
    ...(record ? { eftDataRecord: record } : {}),
    identifiers: identifiersOf(change, record),
    state: esmStateOf(change.eventType),
    transactionInfo: transactionInfoOf(change),
  };
}

/** Every posting of a change, in the order they go to rp.events.v1: TRANSACTION_STATE, then ESM_STATE. */
export function postingsOf(change: SequencedChange): EventPosting[] {
  const esm = esmStatePosting(change);
  return esm ? [transactionStatePosting(change), esm] : [transactionStatePosting(change)];
}

const accountPattern = /^[0-9]{1,11}$/;
const branchPattern = /^[0-9]{6}$/;

const fit = (value: string | undefined, pattern: RegExp): string | undefined =>
  value !== undefined && pattern.test(value) ? value : undefined;
const cut = (value: string | undefined, max: number): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, max) : undefined;
};

const accountTypes: Readonly<Record<string, string>> = {
  CACC: 'CURRENT',
  SVGS: 'SAVINGS',
  TRAN: 'TRANSMISSION',
};

interface EftSide {
  account: string | undefined;
  name: string | undefined;
  branch: string | undefined;
  institution: string | undefined;
  accountType: string | undefined;
}

/**
 * The EFT data record of a ZA_EFT transaction. In an EFT record the homing side is the account the
 * record is processed against at the homing bank: for a debit the debtor (debited), for a credit the
 * creditor (credited); the user side is the originator. Members the transaction cannot fill within the
 * record layout's limits are left out rather than guessed. Undefined when the amount is not a rand
 * amount with at most 2 decimals (the record cannot carry it).
 */
export function paymentRecordOf(
  transaction: CreditTransfer | DirectDebit,
  occurredAt: Date,
): PaymentRecord | undefined {
  const amount = transaction.amounts.bankSettlementAmount;
  if (amount.currency !== 'ZAR' || decimalPlaces(amount.value) > 2) return undefined;
  const scheme = transaction.paymentScheme.schemeData;
  let homing: EftSide;
  let user: EftSide;
  if (transaction.schema === 'DirectDebit') {
    homing = {
      account: scheme?.shortenedDebtorAccountNumber ?? transaction.debtorAccount.identification?.value,
      name: transaction.debtorAccount.name ?? transaction.debtor.name,
      branch: transaction.debtorAgent.branch?.identification ?? transaction.debtorAgent.memberId,
      institution: transaction.debtorAgent.name ?? transaction.debtorAgent.memberId,
      accountType: transaction.debtorAccount.type?.value,
    };
    user = {
      account: scheme?.shortenedCreditorAccountNumber ?? transaction.creditorAccount?.identification?.value,
      name: undefined,
      branch: transaction.creditorAgent.branch?.identification ?? transaction.creditorAgent.memberId,
      institution: undefined,
      accountType: undefined,
    };
  } else {
    homing = {
      account: scheme?.shortenedCreditorAccountNumber ?? transaction.creditorAccount.identification.value,
      name: transaction.creditor.name,
      branch: transaction.creditorAgent.branch?.identification ?? transaction.creditorAgent.memberId,
      institution: transaction.creditorAgent.name ?? transaction.creditorAgent.memberId,
      accountType: transaction.creditorAccount.type?.value,
    };
    user = {
      account: scheme?.shortenedDebtorAccountNumber ?? transaction.debtorAccount?.identification.value,
      name: undefined,
      branch: transaction.debtorAgent.branch?.identification ?? transaction.debtorAgent.memberId,
      institution: undefined,
      accountType: undefined,
    };
  }
  const record: PaymentRecord = {
    schema: 'PaymentRecord',
    recordIdentifier: transaction.schema === 'DirectDebit' ? 'DEBIT' : 'CREDIT',
    actionDate: actionDateOf(transaction, occurredAt),
    amount: amount.value,
  };
  const optional: { [K in keyof PaymentRecord]?: PaymentRecord[K] | undefined } = {
    homingAccount: fit(homing.account, accountPattern),
    homingAccountName: cut(homing.name, 30),
    homingBranch: fit(homing.branch, branchPattern),
    homingInstitution: cut(homing.institution, 35),
    userAccount: fit(user.account, accountPattern),
    userBranch: fit(user.branch, branchPattern),
    userReference: cut(scheme?.userReference, 30),
    accountType: homing.accountType === undefined ? undefined : (accountTypes[homing.accountType] ?? 'OTHER'),
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value !== undefined) (record as unknown as Record<string, unknown>)[name] = value;
  }
  return record;
}

/**
 * The key a bank matches a posting with its own EFT record by: homing branch, homing account, action
 * date (YYYYMMDD), amount in cents and the user code (the first 10 characters of the user reference),
 * joined by '-'. Members the record lacks are left empty, so the key keeps its shape.
 */
export function matchingKeyOf(record: PaymentRecord): string {
  return [
    record.homingBranch ?? '',
    record.homingAccount ?? '',
    record.actionDate.replace(/-/g, ''),
    toMinorUnits(record.amount, 'ZAR').toString(),
    (record.userReference ?? '').slice(0, 10).trim(),
  ].join('-');
}
