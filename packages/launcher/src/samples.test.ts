import { fileURLToPath } from 'node:url';
import { CdvEngine, syntheticTables } from '@rp/cdv';
import { parseJsonExact, validate } from '@rp/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baobab, johannesburgDate, sampleOnUsDebit } from './samples.ts';

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
