import { readFileSync } from 'node:fs';
import { type DirectDebit, toJson } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';
import { describe, expect, test } from 'vitest';
import { directDebitOfSnapshot } from './snapshot.ts';

const exampleText = readFileSync(
  new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url),
  'utf8',
);
const debit = JSON.parse(exampleText.replaceAll('1500.0', '"1500.25"')) as DirectDebit;

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

const message = (bodyJson: string) => ({
  kind: 'DirectDebit',
  messageIdentification: debit.messageIdentifiers.messageIdentification,
  at: new Date(),
  bodyJson,
});

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
