import { CdvTables, ExceptionRuleRegistry, syntheticExceptionRules } from '@rp/cdv';
import type { DirectDebit } from '@rp/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { participants, validDebit, wrongDebtorAccountNumber } from '../test/debits.ts';
import { syntheticCdvTables } from './cdv.ts';
import { type RuleContext, validateDebit } from './rules.ts';

const today = '2025-03-14';
let context: RuleContext;

beforeAll(async () => {
  const tables = await CdvTables.load({
    ...syntheticCdvTables(),
    exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
  });
  context = { participants, accounts: tables, today, maxDaysAhead: 30 };
});

/** A valid debit with one change applied to a copy. */
function debitWith(change: (debit: DirectDebit) => void): DirectDebit {
  const debit = validDebit('2025-03-17');
  change(debit);
  return debit;
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
    'debtor account number is not digits',
    (debit) => {
      if (debit.debtorAccount.identification) debit.debtorAccount.identification.value = '62-000-000';
      if (debit.paymentScheme.schemeData)
        debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = '62-000-000';
    },
    'AC01',
    /^Debtor account failed CDV at branch 250655: account number must be 1 to 11 digits$/,
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
    'shortened debtor account number differs from the account',
    (debit) => {
      if (debit.paymentScheme.schemeData)
        debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = '12345678901';
    },
    'AC01',
    /^Shortened debtor account number in the scheme data differs/,
  ],
  [
    'creditor account fails the check digit test',
    (debit) => {
      const wrong = '62000000013';
      if (debit.creditorAccount?.identification) debit.creditorAccount.identification.value = wrong;
      if (debit.paymentScheme.schemeData)
        debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = wrong;
    },
    'AC03',
    /^Creditor account failed CDV at branch 250655: check digit is wrong$/,
  ],
  [
    'creditor account missing',
    (debit) => {
      delete debit.creditorAccount;
    },
    'AC03',
    /^Creditor account number is required for ZA_EFT$/,
  ],
  [
    'settlement currency is not rand',
    (debit) => {
      debit.amounts = { bankSettlementAmount: { value: '1500', currency: 'USD' } };
    },
    'AM03',
    /^Currency USD of the settlement amount is not allowed for ZA_EFT; use ZAR$/,
  ],
  [
    'debtor account currency is not rand',
    (debit) => {
      debit.debtorAccount.currency = 'EUR';
    },
    'AM03',
    /^Currency EUR of the debtor account/,
  ],
  [
    'amount is zero',
    (debit) => {
      debit.amounts.bankSettlementAmount.value = '0';
    },
    'AM12',
    /greater than zero/,
  ],
  [
    'amount above the initiating bank limit by one cent',
    (debit) => {
      debit.amounts.bankSettlementAmount.value = '500000.01';
    },
    'AM02',
    /^Amount 500000.01 ZAR exceeds the limit of 500000 ZAR per debit of bank 250655$/,
  ],
  [
    'requested collection date in the past',
    (debit) => {
      debit.requestedCollectionDate = '2025-03-13';
      debit.settlementDate = '2025-03-14';
    },
    'DT01',
    /^Requested collection date 2025-03-13 is in the past \(today is 2025-03-14 in Africa\/Johannesburg\)$/,
  ],
  [
    'settlement date before the collection date',
    (debit) => {
      debit.settlementDate = '2025-03-16';
    },
    'DT01',
    /^Settlement date 2025-03-16 is before the requested collection date 2025-03-17$/,
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
    'ZA_EFT debit without a user reference',
    (debit) => {
      if (debit.paymentScheme.schemeData) delete debit.paymentScheme.schemeData.userReference;
    },
    'FF01',
    /^ZA_EFT debits need paymentScheme.schemeData.userReference$/,
  ],
  [
    'debtor agent is not a participant',
    (debit) => {
      debit.debtorAgent = { ...debit.debtorAgent, memberId: '999999' };
    },
    'AG01',
    /^Debtor agent 999999 is not a participant of this engine$/,
  ],
];

describe('debit rules', () => {
  test('accept a valid debit', () => {
    expect(validateDebit(validDebit('2025-03-17'), context)).toEqual({ accepted: true });
  });

  test.each(rejections)('reject when the %s', (_name, change, code, text) => {
    const decision = validateDebit(debitWith(change), context);
    expect(decision.accepted).toBe(false);
    if (decision.accepted) return;
    expect(decision.reasons).toHaveLength(1);
    expect(decision.reasons[0]?.code).toBe(code);
    expect(decision.reasons[0]?.text).toMatch(text);
    expect(decision.reasons[0]?.text.length).toBeLessThanOrEqual(105);
  });

  test.each([
    [
      'an amount exactly at the limit',
      (debit: DirectDebit) => {
        debit.amounts.bankSettlementAmount.value = '500000';
      },
    ],
    [
      'a collection date of today',
      (debit: DirectDebit) => {
        debit.requestedCollectionDate = today;
        debit.settlementDate = today;
      },
    ],
    [
      'a date exactly at the horizon',
      (debit: DirectDebit) => {
        debit.settlementDate = '2025-04-13';
      },
    ],
    [
      'no dates',
      (debit: DirectDebit) => {
        delete debit.requestedCollectionDate;
        delete debit.settlementDate;
      },
    ],
    [
      'an account the tables mark not verifiable (SKIPPED)',
      (debit: DirectDebit) => {
        debit.debtorAgent = { memberId: '250655', branch: { identification: '580105' } };
        debit.debtorAccount = {
          identification: { schema: 'GENERIC', value: '1234' },
          type: { schema: 'CODE', value: 'CACC' },
        };
        if (debit.paymentScheme.schemeData)
          debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = '00000001234';
      },
    ],
    [
      'a cross-border scheme, where CDV and the rand rule do not apply',
      (debit: DirectDebit) => {
        debit.paymentScheme = { schema: 'CBPR_PLUS' };
        debit.amounts = { bankSettlementAmount: { value: '1500', currency: 'USD' } };
        if (debit.debtorAccount.identification)
          debit.debtorAccount.identification.value = 'GB29NWBK60161331926819';
      },
    ],
  ])('accept %s', (_name, change) => {
    expect(validateDebit(debitWith(change), context)).toEqual({ accepted: true });
  });

  test('report every broken rule, in report order', () => {
    const decision = validateDebit(
      debitWith((debit) => {
        if (debit.debtorAccount.identification)
          debit.debtorAccount.identification.value = wrongDebtorAccountNumber;
        if (debit.paymentScheme.schemeData)
          debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = wrongDebtorAccountNumber;
        debit.amounts.bankSettlementAmount.value = '750000';
        debit.requestedCollectionDate = '2025-03-01';
        debit.settlementDate = '2025-03-01';
      }),
      context,
    );
    expect(decision.accepted || decision.reasons.map((reason) => reason.code)).toEqual([
      'AC01',
      'AM02',
      'DT01',
      'DT01',
    ]);
  });

  test('count CDV outcomes per side', () => {
    const seen: string[] = [];
    validateDebit(validDebit('2025-03-17'), {
      ...context,
      onCdv: (role, status) => seen.push(`${role}:${status}`),
    });
    expect(seen).toEqual(['debtor:PASSED', 'creditor:PASSED']);
  });
});
