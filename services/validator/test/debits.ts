import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkDigitFor, parseWeights } from '@rp/cdv';
import type { DirectDebit } from '@rp/contracts';
import { parseParticipants } from '@rp/pipeline';

/**
 * Test debits on the synthetic CDV tables of @rp/cdv: both accounts at Baobab Bank (synthetic), branch
 * 250655, whose rows are type 1 "0A987654321" mod 11 fudge 3 (current) and type 2 "21987654321" mod 11
 * (savings, with the SYN-ALT alternative).
 */
export const bank = '250655';

/** The first 10-digit account from `start` with a valid check digit under the weights. */
function validAccount(start: number, weights: string, modulus: 10 | 11, fudge: number): string {
  const parsed = parseWeights(weights);
  if (!parsed.ok) throw new Error(parsed.problem);
  for (let prefix = start; ; prefix += 1) {
    const digit = checkDigitFor(String(prefix).padStart(10, '0'), parsed.weights, modulus, fudge);
    if (digit !== undefined) return `${String(prefix).padStart(10, '0')}${digit}`.replace(/^0+/, '');
  }
}

export const creditorAccountNumber = validAccount(6_200_000_001, '0A987654321', 11, 3);
export const debtorAccountNumber = validAccount(6_200_000_002, '21987654321', 11, 0);

/** The debtor account with its last digit changed: it fails the check digit test. */
export const wrongDebtorAccountNumber = `${debtorAccountNumber.slice(0, -1)}${(Number(debtorAccountNumber.slice(-1)) + 1) % 10}`;

export const participants = parseParticipants(
  JSON.stringify([
    {
      memberId: bank,
      name: 'Baobab Bank (synthetic)',
      baseUrl: 'http://baobab.test',
      debitLimits: { ZAR: '500000' },
    },
    { memberId: '632005', name: 'Aloe Bank (synthetic)', baseUrl: 'http://aloe.test' },
  ]),
);

const example = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
  (name, value) => (name === 'value' && typeof value === 'number' ? String(value) : value),
) as DirectDebit;

/**
 * A debit every rule accepts on `collectionDate`, in its in-memory form (amounts as decimal strings), with
 * its own UETR and message identification.
 */
export function validDebit(collectionDate: string, overrides: Partial<DirectDebit> = {}): DirectDebit {
  const debit = structuredClone(example);
  const uetr = randomUUID();
  debit.messageIdentifiers = {
    messageIdentification: `V${uetr.replaceAll('-', '').slice(0, 20)}`,
    creationDateTime: new Date().toISOString(),
  };
  debit.transactionIdentifiers = { ...debit.transactionIdentifiers, uetr };
  debit.amounts = {
    bankSettlementAmount: { value: '1500', currency: 'ZAR' },
    instructedAmount: { value: '1500', currency: 'ZAR' },
  };
  if (!debit.creditorAccount?.identification || !debit.debtorAccount.identification)
    throw new Error('example changed');
  debit.creditorAccount.identification.value = creditorAccountNumber;
  debit.debtorAccount.identification.value = debtorAccountNumber;
  debit.paymentScheme = {
    schema: 'ZA_EFT',
    schemeData: {
      userReference: 'ACMEGYM001 MEMBERSHIP',
      shortenedCreditorAccountNumber: creditorAccountNumber,
      shortenedDebtorAccountNumber: debtorAccountNumber,
    },
  };
  debit.requestedCollectionDate = collectionDate;
  debit.settlementDate = collectionDate;
  return { ...debit, ...overrides };
}

/** A bank outside the engine (not a participant): the creditor's bank of an off-us debit. */
export const outsideBank = '198765';

/**
 * The off-us creditor's account: well formed, but it fails CDV at Baobab Bank's branch, so a debit that
 * verified it as an on-us creditor account would be rejected.
 */
export const outsideCreditorAccountNumber = '62000000013';

/**
 * An inbound off-us debit every rule accepts on `collectionDate`: a clearing house sent it for a creditor
 * at a bank outside the engine, debiting the same valid debtor account at Baobab Bank.
 */
export function schemeDebit(collectionDate: string, overrides: Partial<DirectDebit> = {}): DirectDebit {
  const debit = validDebit(collectionDate);
  debit.instructingAgent = { memberId: outsideBank };
  debit.instructedAgent = { memberId: bank };
  debit.creditorAgent = { memberId: outsideBank, branch: { identification: outsideBank } };
  if (!debit.creditorAccount?.identification || !debit.paymentScheme.schemeData)
    throw new Error('validDebit changed');
  debit.creditorAccount.identification.value = outsideCreditorAccountNumber;
  debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = outsideCreditorAccountNumber;
  return { ...debit, ...overrides };
}
