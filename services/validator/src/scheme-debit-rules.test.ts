import { CdvTables, ExceptionRuleRegistry, syntheticExceptionRules } from '@rp/cdv';
import type { DirectDebit } from '@rp/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { outsideBank, participants, schemeDebit, wrongDebtorAccountNumber } from '../test/debits.ts';
import { syntheticCdvTables } from './cdv.ts';
import { type RuleContext, validateDebit, validateSchemeDebit } from './rules.ts';

const today = '2025-03-14';
let context: RuleContext;

beforeAll(async () => {
  const tables = await CdvTables.load({
    ...syntheticCdvTables(),
    exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
  });
  context = { participants, accounts: tables, today, maxDaysAhead: 30 };
});

/** A valid off-us debit with one change applied to a copy. */
function debitWith(change: (debit: DirectDebit) => void): DirectDebit {
  const debit = schemeDebit('2025-03-17');
  change(debit);
  return debit;
}

function setCreditorAccount(debit: DirectDebit, number: string): void {
  if (debit.creditorAccount?.identification) debit.creditorAccount.identification.value = number;
  if (debit.paymentScheme.schemeData) debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = number;
}

const rejections: [string, (debit: DirectDebit) => void, string, RegExp][] = [
  [
    'debtor account fails the check digit test',
    (debit) => {
      if (debit.debtorAccount.identification)
        debit.debtorAccount.identification.value = wrongDebtorAccountNumber;
      if (debit.paymentScheme.schemeData)
        debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = wrongDebtorAccountNumber;
    },
    'AC01',
    /^Debtor account failed CDV at branch 250655: check digit is wrong$/,
  ],
  [
    'debtor branch is not in the branch file',
    (debit) => {
      debit.debtorAgent = { ...debit.debtorAgent, branch: { identification: '999999' } };
    },
    'AC01',
    /^Debtor account failed CDV at branch 999999: not a valid branch code$/,
  ],
  [
    'debtor account given by proxy only',
    (debit) => {
      debit.debtorAccount = { proxy: { identification: '+27-821234567' } };
    },
    'AC01',
    /^Debtor account number is required for ZA_EFT$/,
  ],
  [
    'creditor account number is not digits',
    (debit) => setCreditorAccount(debit, '62-000-000'),
    'AC03',
    /^Creditor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    'creditor account number is longer than 11 digits',
    (debit) => setCreditorAccount(debit, '620000000131'),
    'AC03',
    /^Creditor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    'creditor account number is all zeros',
    (debit) => setCreditorAccount(debit, '00000000000'),
    'AC03',
    /^Creditor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    'shortened creditor account number differs from the account',
    (debit) => {
      if (debit.paymentScheme.schemeData)
        debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = '12345678901';
    },
    'AC03',
    /^Shortened creditor account number in the scheme data differs/,
  ],
  [
    'creditor account currency is not rand',
    (debit) => {
      if (debit.creditorAccount) debit.creditorAccount.currency = 'USD';
    },
    'AM03',
    /^Currency USD of the creditor account is not allowed for ZA_EFT; use ZAR$/,
  ],
  [
    'amount is zero',
    (debit) => {
      debit.amounts.bankSettlementAmount.value = '0.00';
    },
    'AM12',
    /^The settlement amount must be greater than zero$/,
  ],
  [
    'requested collection date in the past',
    (debit) => {
      debit.requestedCollectionDate = '2025-03-13';
    },
    'DT01',
    /^Requested collection date 2025-03-13 is in the past/,
  ],
  [
    'settlement date too far ahead',
    (debit) => {
      debit.settlementDate = '2025-04-14';
    },
    'DT01',
    /^Settlement date 2025-04-14 is more than 30 days ahead$/,
  ],
  [
    'ZA_EFT debit without the shortened creditor account number',
    (debit) => {
      if (debit.paymentScheme.schemeData)
        delete debit.paymentScheme.schemeData.shortenedCreditorAccountNumber;
    },
    'FF01',
    /^ZA_EFT debits need paymentScheme.schemeData.shortenedCreditorAccountNumber$/,
  ],
  [
    'debtor agent (the actioning bank) is not a participant',
    (debit) => {
      debit.debtorAgent = { ...debit.debtorAgent, memberId: '999999' };
    },
    'AG01',
    /^Debtor agent 999999 is not a participant of this engine$/,
  ],
  [
    'debtor agent has no memberId',
    (debit) => {
      debit.debtorAgent = { branch: { identification: '250655' } };
    },
    'AG01',
    /^The debtor agent has no memberId, so the debit cannot be delivered$/,
  ],
];

describe('off-us debit rules', () => {
  test('accept a valid off-us debit whose creditor bank is not a participant', () => {
    const debit = schemeDebit('2025-03-17');
    expect(participants.has(outsideBank)).toBe(false);
    expect(validateSchemeDebit(debit, context)).toEqual({ accepted: true });
  });

  test('the on-us rules would reject the same debit: its creditor account and bank are outside', () => {
    const decision = validateDebit(schemeDebit('2025-03-17'), context);
    expect(decision.accepted || decision.reasons.map((reason) => reason.code)).toEqual(['AC03']);
  });

  test.each(rejections)('reject when the %s', (_name, change, code, text) => {
    const decision = validateSchemeDebit(debitWith(change), context);
    expect(decision.accepted).toBe(false);
    if (decision.accepted) return;
    expect(decision.reasons).toHaveLength(1);
    expect(decision.reasons[0]?.code).toBe(code);
    expect(decision.reasons[0]?.text).toMatch(text);
    expect(decision.reasons[0]?.text.length).toBeLessThanOrEqual(105);
  });

  test.each([
    [
      // The participants' debit limits bound what a bank initiates; an off-us debit has no such bank.
      'an amount above the debtor bank limit on the debits it initiates',
      (debit: DirectDebit) => {
        debit.amounts.bankSettlementAmount.value = '750000.00';
      },
    ],
    [
      'no creditor account (held elsewhere, only its form is checked)',
      (debit: DirectDebit) => {
        delete debit.creditorAccount;
      },
    ],
    ['a creditor account of one digit', (debit: DirectDebit) => setCreditorAccount(debit, '7')],
    [
      'a collection date of today',
      (debit: DirectDebit) => {
        debit.requestedCollectionDate = today;
        debit.settlementDate = today;
      },
    ],
    [
      'a cross-border scheme, where CDV and the rand rule do not apply',
      (debit: DirectDebit) => {
        debit.paymentScheme = { schema: 'CBPR_PLUS' };
        debit.amounts = { bankSettlementAmount: { value: '1500', currency: 'USD' } };
        setCreditorAccount(debit, 'GB29NWBK60161331926819');
      },
    ],
  ])('accept %s', (_name, change) => {
    expect(validateSchemeDebit(debitWith(change), context)).toEqual({ accepted: true });
  });

  test('report every broken rule, in report order', () => {
    const decision = validateSchemeDebit(
      debitWith((debit) => {
        debit.creditorAccount = { ...debit.creditorAccount, currency: 'EUR' };
        setCreditorAccount(debit, 'ABC');
        if (debit.debtorAccount.identification)
          debit.debtorAccount.identification.value = wrongDebtorAccountNumber;
        if (debit.paymentScheme.schemeData) {
          debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = wrongDebtorAccountNumber;
          delete debit.paymentScheme.schemeData.userReference;
        }
        debit.amounts.bankSettlementAmount.value = '0';
        debit.settlementDate = '2025-03-01';
        debit.debtorAgent = { ...debit.debtorAgent, memberId: '999999' };
      }),
      context,
    );
    expect(decision.accepted || decision.reasons.map((reason) => reason.code)).toEqual([
      'AC01',
      'AC03',
      'AM03',
      'AM12',
      'DT01',
      'DT01',
      'FF01',
      'AG01',
    ]);
  });

  test('verify only the debtor account with CDV', () => {
    const seen: string[] = [];
    validateSchemeDebit(schemeDebit('2025-03-17'), {
      ...context,
      onCdv: (role, status) => seen.push(`${role}:${status}`),
    });
    expect(seen).toEqual(['debtor:PASSED']);
  });
});
