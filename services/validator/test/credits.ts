import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type CreditTransfer, parseJsonExact, validateCreditTransfer } from '@rp/contracts';
import { bank, creditorAccountNumber } from './debits.ts';

/**
 * Test credit transfers on the synthetic CDV tables of @rp/cdv: the credited account is the current
 * account of test/debits.ts at Baobab Bank (synthetic), branch 250655, a participant; the debtor's account
 * is at Aloe Bank (632005), which only checks its form.
 */
const example = (() => {
  const parsed = validateCreditTransfer(
    parseJsonExact(
      readFileSync(new URL('../../../avro/examples/CreditTransfer.json', import.meta.url), 'utf8'),
    ),
  );
  if (!parsed.ok)
    throw new Error(`the CreditTransfer example is not valid: ${JSON.stringify(parsed.errors)}`);
  return parsed.value;
})();

/** The debtor's account at the other institution: well formed, never verified against tables. */
export const otherBankAccountNumber = '4070000001';

/** A credit transfer every rule accepts, with its own UETR and message identification. */
export function validCredit(overrides: Partial<CreditTransfer> = {}): CreditTransfer {
  const credit = structuredClone(example);
  const uetr = randomUUID();
  credit.messageIdentifiers = {
    messageIdentification: `C${uetr.replaceAll('-', '').slice(0, 20)}`,
    creationDateTime: new Date().toISOString(),
  };
  credit.transactionIdentifiers = { ...credit.transactionIdentifiers, uetr };
  credit.amounts = {
    bankSettlementAmount: { value: '1500.25', currency: 'ZAR' },
    instructedAmount: { value: '1500.25', currency: 'ZAR' },
  };
  credit.creditorAgent = {
    memberId: bank,
    name: 'Baobab Bank (synthetic)',
    branch: { identification: bank },
  };
  credit.creditorAccount = {
    identification: { schema: 'GENERIC', value: creditorAccountNumber },
    type: { schema: 'CODE', value: 'CACC' },
    currency: 'ZAR',
  };
  credit.debtorAgent = { memberId: '632005', name: 'Aloe Bank (synthetic)' };
  credit.debtorAccount = {
    identification: { schema: 'GENERIC', value: otherBankAccountNumber },
    currency: 'ZAR',
  };
  credit.instructingAgent = { memberId: '632005' };
  credit.instructedAgent = { memberId: bank };
  return { ...credit, ...overrides };
}
