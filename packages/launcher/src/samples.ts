import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDigitFor, parseWeights } from '@rp/cdv';

/**
 * The first account number at or after `start` (10 digits before the check digit) that passes a
 * modulus 11 check with these weights and fudge factor: valid under the synthetic CDV tables.
 */
export function validAccount(start: number, weights: string, fudge: number): string {
  const parsed = parseWeights(weights);
  if (!parsed.ok) throw new Error(parsed.problem);
  for (let prefix = start; ; prefix += 1) {
    const digit = checkDigitFor(String(prefix).padStart(10, '0'), parsed.weights, 11, fudge);
    if (digit !== undefined) return `${prefix}${digit}`;
  }
}

/** Baobab Bank (synthetic, branch 250655): current accounts (type 1) and savings accounts (type 2). */
export const baobab = {
  memberId: '250655',
  currentAccount: (start = 6_200_000_001) => validAccount(start, '0A987654321', 3),
  savingsAccount: (start = 6_200_000_002) => validAccount(start, '21987654321', 0),
} as const;

const johannesburgDates = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Africa/Johannesburg',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/**
 * The date (YYYY-MM-DD) in Africa/Johannesburg, where the processing windows are, at `now`: a business
 * date changes at midnight there (22:00 UTC).
 */
export function johannesburgDate(now: Date = new Date()): string {
  return johannesburgDates.format(now);
}

const johannesburgTimes = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Africa/Johannesburg',
  hourCycle: 'h23',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Milliseconds from `now` until the business date next changes: midnight in Africa/Johannesburg. */
export function untilJohannesburgMidnight(now: Date = new Date()): number {
  const parts = johannesburgTimes.formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  const elapsed =
    ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1_000 + now.getUTCMilliseconds();
  return 86_400_000 - elapsed;
}

export interface SampleDebitOptions {
  readonly uetr?: string;
  readonly messageIdentification?: string;
  /** The creditor's (the initiating bank's customer's) account; default a valid Baobab current account. */
  readonly creditorAccount?: string;
  /** The debtor's account at the actioning bank; default a valid Baobab savings account. */
  readonly debtorAccount?: string;
  /** An exact decimal string, e.g. "1500.00". Default: the example's amount. */
  readonly amount?: string;
  /** YYYY-MM-DD; default today in Johannesburg. */
  readonly collectionDate?: string;
}

/** A JSON body as a bank sends it: the amount stays an exact decimal literal, never a float. */
export interface SampleDebit {
  readonly uetr: string;
  readonly messageIdentification: string;
  readonly body: string;
  readonly debit: Record<string, unknown>;
}

const accountCache = new Map<string, string>();
function cached(key: string, make: () => string): string {
  let value = accountCache.get(key);
  if (value === undefined) {
    value = make();
    accountCache.set(key, value);
  }
  return value;
}

/**
 * An on-us ZA_EFT direct debit of Baobab Bank, built from the repository's example message
 * (`avro/examples/DirectDebit.za-eft-on-us.json`) with a fresh UETR and message id and accounts that pass
 * CDV, collected today.
 */
export function sampleOnUsDebit(root: string, options: SampleDebitOptions = {}): SampleDebit {
  const debit = JSON.parse(
    readFileSync(join(root, 'avro', 'examples', 'DirectDebit.za-eft-on-us.json'), 'utf8'),
    // biome-ignore lint/suspicious/noExplicitAny: the repository's example message, edited field by field
  ) as Record<string, any>;
  const uetr = options.uetr ?? randomUUID();
  const messageIdentification =
    options.messageIdentification ?? `RPT${uetr.replaceAll('-', '').slice(0, 32)}`;
  const creditorAccount = options.creditorAccount ?? cached('creditor', () => baobab.currentAccount());
  const debtorAccount = options.debtorAccount ?? cached('debtor', () => baobab.savingsAccount());
  const date = options.collectionDate ?? johannesburgDate();
  debit.messageIdentifiers = { messageIdentification, creationDateTime: new Date().toISOString() };
  debit.transactionIdentifiers.uetr = uetr;
  debit.transactionIdentifiers.endToEndIdentification = `E2E-${uetr.slice(0, 8)}`;
  debit.creditorAccount.identification.value = creditorAccount;
  debit.debtorAccount.identification.value = debtorAccount;
  debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = creditorAccount;
  debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = debtorAccount;
  debit.requestedCollectionDate = date;
  debit.settlementDate = date;
  return { uetr, messageIdentification, body: bodyWithAmount(debit, options.amount), debit };
}

/** A bank outside the engine (Absa's member id): the creditor's bank of an inbound off-us debit. */
export const externalBank = {
  memberId: '632005',
  name: 'Absa Bank',
  branch: '632005',
  /** An account number of the right form; the engine cannot verify another bank's accounts. */
  account: '40700000011',
} as const;

/**
 * An inbound off-us ZA_EFT direct debit, as a clearing house sends it: collected for a customer of a bank
 * outside the engine (the creditor's), from a Baobab Bank account (the debtor's, which Baobab actions).
 * Built like `sampleOnUsDebit`, with the creditor's side and the instructing agent moved to that bank.
 */
export function sampleOffUsDebit(root: string, options: SampleDebitOptions = {}): SampleDebit {
  const sample = sampleOnUsDebit(root, {
    ...options,
    creditorAccount: options.creditorAccount ?? externalBank.account,
  });
  const debit = structuredClone(sample.debit);
  const agent = {
    memberId: externalBank.memberId,
    name: externalBank.name,
    clearingSystemMemberId: { clearingSystem: 'ZANCC', memberId: externalBank.memberId },
    branch: { identification: externalBank.branch, name: `${externalBank.name} Universal Branch` },
  };
  debit.creditorAgent = agent;
  debit.instructingAgent = { memberId: externalBank.memberId };
  debit.instructedAgent = { memberId: baobab.memberId };
  return { ...sample, body: bodyWithAmount(debit, options.amount), debit };
}

/**
 * The message as JSON text, with `amount` (an exact decimal literal) as both amounts when given: the
 * literal goes into the text as it is, never through a binary float.
 */
// biome-ignore lint/suspicious/noExplicitAny: the repository's example messages, edited field by field
function bodyWithAmount(message: Record<string, any>, amount: string | undefined): string {
  if (amount === undefined) return JSON.stringify(message);
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(amount)) throw new Error(`amount: ${amount}`);
  const marker = '__rp_amount__';
  const copy = structuredClone(message);
  copy.amounts.bankSettlementAmount.value = marker;
  copy.amounts.instructedAmount.value = marker;
  return JSON.stringify(copy).replaceAll(`"${marker}"`, amount);
}

export interface SampleCreditOptions {
  readonly uetr?: string;
  readonly messageIdentification?: string;
  /** The creditor's account at Baobab Bank (credited); default a valid Baobab current account. */
  readonly creditorAccount?: string;
  /** An exact decimal string, e.g. "250.00" (the default). */
  readonly amount?: string;
}

export interface SampleCredit {
  readonly uetr: string;
  readonly messageIdentification: string;
  readonly body: string;
  readonly credit: Record<string, unknown>;
}

/**
 * A ZA_EFT credit transfer authorisation from a clearing house for a Baobab Bank customer, built from
 * the repository's example message (`avro/examples/CreditTransfer.json`) with a fresh UETR and message
 * id and a creditor account that passes CDV.
 */
export function sampleCredit(root: string, options: SampleCreditOptions = {}): SampleCredit {
  const credit = JSON.parse(
    readFileSync(join(root, 'avro', 'examples', 'CreditTransfer.json'), 'utf8'),
    // biome-ignore lint/suspicious/noExplicitAny: the repository's example message, edited field by field
  ) as Record<string, any>;
  const uetr = options.uetr ?? randomUUID();
  const messageIdentification =
    options.messageIdentification ?? `RTC${uetr.replaceAll('-', '').slice(0, 32)}`;
  credit.messageIdentifiers = { messageIdentification, creationDateTime: new Date().toISOString() };
  credit.transactionIdentifiers.uetr = uetr;
  credit.transactionIdentifiers.endToEndIdentification = `CT-${uetr.slice(0, 8)}`;
  credit.creditorAccount.identification.value =
    options.creditorAccount ?? cached('creditor', () => baobab.currentAccount());
  credit.creditorAgent.memberId = baobab.memberId;
  credit.instructedAgent = { memberId: baobab.memberId };
  return { uetr, messageIdentification, body: bodyWithAmount(credit, options.amount ?? '250.00'), credit };
}
