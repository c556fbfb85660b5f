import { readFileSync } from 'node:fs';
import { type CreditTransfer, type DirectDebit, toJson } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';
import { describe, expect, test } from 'vitest';
import { transactionOfSnapshot } from './snapshot.ts';

const exampleText = readFileSync(
  new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url),
  'utf8',
);
const debit = JSON.parse(exampleText.replaceAll('1500.0', '"1500.25"')) as DirectDebit;
// The in-memory form: every amount a decimal string, one of them beyond what a binary float holds exactly.
const credit = JSON.parse(
  readFileSync(new URL('../../../avro/examples/CreditTransfer.json', import.meta.url), 'utf8')
    .replaceAll('1234567890123.45', '"1234567890123.45"')
    .replace('"value": 0.1,', '"value": "0.1",'),
) as CreditTransfer;

function snapshotWith(messages: TransactionSnapshot['messages']): TransactionSnapshot {
  const at = new Date('2025-03-14T07:30:00Z');
  return {
    uetr: debit.transactionIdentifiers.uetr,
    state: 'DEBIT_DELIVERED',
    version: 9,
    lastSeq: 9,
    history: [],
    messages,
    deliveryAttempts: [],
    deliveryAttemptCount: 0,
    createdAt: at,
    updatedAt: at,
  };
}

const message = (bodyJson: string, kind = 'DirectDebit') => ({
  kind,
  messageIdentification: debit.messageIdentifiers.messageIdentification,
  at: new Date(),
  bodyJson,
});
const directDebitOfSnapshot = (snapshot: TransactionSnapshot) =>
  transactionOfSnapshot(snapshot, 'DirectDebit');

describe('the DirectDebit of a snapshot', () => {
  test('reads a body written with exact JSON numbers', () => {
    const found = directDebitOfSnapshot(snapshotWith([message(toJson('DirectDebit', debit))]));
    expect(found?.amounts.bankSettlementAmount.value).toBe('1500.25');
    expect(found?.transactionIdentifiers.uetr).toBe(debit.transactionIdentifiers.uetr);
  });

  test('reads a body written by JSON.stringify, amounts as decimal strings', () => {
    const found = directDebitOfSnapshot(snapshotWith([message(JSON.stringify(debit))]));
    expect(found?.amounts.instructedAmount?.value).toBe('1500.25');
  });

  test('is undefined without a DirectDebit message or with a body that is not one', () => {
    expect(directDebitOfSnapshot(snapshotWith([]))).toBeUndefined();
    expect(directDebitOfSnapshot(snapshotWith([message('{"schema":"DirectDebit"}')]))).toBeUndefined();
    expect(directDebitOfSnapshot(snapshotWith([message('not json')]))).toBeUndefined();
  });
});

describe('the CreditTransfer of a snapshot', () => {
  const creditMessage = (bodyJson: string) => message(bodyJson, 'CreditTransfer');

  test('reads a body written with exact JSON numbers, amounts beyond a float kept exact', () => {
    const found = transactionOfSnapshot(
      snapshotWith([creditMessage(toJson('CreditTransfer', credit))]),
      'CreditTransfer',
    );
    expect(found?.amounts.bankSettlementAmount.value).toBe('1234567890123.45');
    expect(found?.creditorAgent.memberId).toBe('250655');
  });

  test('reads a body written by JSON.stringify, amounts as decimal strings', () => {
    const found = transactionOfSnapshot(
      snapshotWith([creditMessage(JSON.stringify(credit))]),
      'CreditTransfer',
    );
    expect(found?.tax?.totalAmount?.value).toBe('0.1');
  });

  test("is undefined for the other flow's message: a debit is not a credit, nor the reverse", () => {
    const debitSnapshot = snapshotWith([message(toJson('DirectDebit', debit))]);
    const creditSnapshot = snapshotWith([creditMessage(toJson('CreditTransfer', credit))]);
    expect(transactionOfSnapshot(debitSnapshot, 'CreditTransfer')).toBeUndefined();
    expect(transactionOfSnapshot(creditSnapshot, 'DirectDebit')).toBeUndefined();
    // A body of the other kind recorded under this kind is refused by validation, not taken as one.
    expect(
      transactionOfSnapshot(snapshotWith([creditMessage(toJson('DirectDebit', debit))]), 'CreditTransfer'),
    ).toBeUndefined();
  });
});
