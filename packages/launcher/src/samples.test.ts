import { fileURLToPath } from 'node:url';
import { CdvEngine, syntheticTables } from '@rp/cdv';
import { parseJsonExact, validate } from '@rp/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baobab,
  externalBank,
  johannesburgDate,
  sampleCredit,
  sampleOffUsDebit,
  sampleOnUsDebit,
} from './samples.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let engine: CdvEngine;
beforeAll(async () => {
  engine = await CdvEngine.start(syntheticTables());
});
afterAll(() => engine.close());

describe('sample debits', () => {
  it('uses accounts that pass CDV under the synthetic tables', () => {
    for (const [accountNumber, accountType] of [
      [baobab.currentAccount(), '1'],
      [baobab.savingsAccount(), '2'],
      [baobab.currentAccount(6_200_000_500), '1'],
    ] as const) {
      const outcome = engine.verify({ branchCode: baobab.memberId, accountNumber, accountType });
      expect(outcome.status, accountNumber).toBe('PASSED');
    }
  });

  it('is a valid DirectDebit, collected today in Johannesburg, with the exact amount it was given', () => {
    const sample = sampleOnUsDebit(root, { amount: '1234567890123.45' });
    expect(sample.body).toContain('"value":1234567890123.45');
    const parsed = parseJsonExact(sample.body);
    const result = validate('DirectDebit', parsed);
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(sample.debit.requestedCollectionDate).toBe(johannesburgDate());
    expect(sample.messageIdentification).toHaveLength(35);
    expect(sampleOnUsDebit(root).uetr).not.toBe(sample.uetr);
  });

  it('refuses an amount that is not an exact rand amount', () => {
    expect(() => sampleOnUsDebit(root, { amount: '1.005' })).toThrow(/amount/);
  });
});

describe('sample credits', () => {
  it('is a valid CreditTransfer to a Baobab account that passes CDV, with the exact amount it was given', () => {
    const sample = sampleCredit(root, { amount: '987654321.05' });
    expect(sample.body).toContain('"value":987654321.05');
    const parsed = parseJsonExact(sample.body);
    const result = validate('CreditTransfer', parsed);
    expect(result.ok ? [] : result.errors).toEqual([]);
    const credit = result.ok ? result.value : undefined;
    expect(credit?.creditorAgent.memberId).toBe(baobab.memberId);
    expect(credit?.transactionIdentifiers.uetr).toBe(sample.uetr);
    const accountNumber = credit?.creditorAccount.identification.value ?? '';
    expect(engine.verify({ branchCode: baobab.memberId, accountNumber, accountType: '1' }).status).toBe(
      'PASSED',
    );
    expect(sample.messageIdentification).toHaveLength(35);
    expect(sampleCredit(root).uetr).not.toBe(sample.uetr);
    expect(() => sampleCredit(root, { amount: '-1' })).toThrow(/amount/);
  });
});

describe('sample off-us debits', () => {
  it('is a valid DirectDebit from a bank outside the engine, actioned by Baobab on an account that passes CDV', () => {
    const sample = sampleOffUsDebit(root, { amount: '42.10' });
    expect(sample.body).toContain('"value":42.10');
    const result = validate('DirectDebit', parseJsonExact(sample.body));
    expect(result.ok ? [] : result.errors).toEqual([]);
    const debit = result.ok ? result.value : undefined;
    expect(debit?.creditorAgent.memberId).toBe(externalBank.memberId);
    expect(debit?.instructingAgent?.memberId).toBe(externalBank.memberId);
    expect(debit?.debtorAgent.memberId).toBe(baobab.memberId);
    expect(debit?.paymentScheme.schemeData).toMatchObject({
      shortenedCreditorAccountNumber: externalBank.account,
    });
    const accountNumber = debit?.debtorAccount.identification?.value ?? '';
    expect(engine.verify({ branchCode: baobab.memberId, accountNumber, accountType: '2' }).status).toBe(
      'PASSED',
    );
  });
});
