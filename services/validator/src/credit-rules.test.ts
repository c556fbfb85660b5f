import { CdvTables, ExceptionRuleRegistry, syntheticExceptionRules } from '@rp/cdv';
import type { CreditTransfer } from '@rp/contracts';
import type { Participant } from '@rp/pipeline';
import { beforeAll, describe, expect, test } from 'vitest';
import { validCredit } from '../test/credits.ts';
import { bank, creditorAccountNumber, participants } from '../test/debits.ts';
import { syntheticCdvTables } from './cdv.ts';
import { type RuleContext, validateCredit } from './rules.ts';

const today = '2025-03-14';
let context: RuleContext;

/** The credited account with its last digit changed: it fails the check digit test. */
const wrongCreditorAccountNumber = `${creditorAccountNumber.slice(0, -1)}${(Number(creditorAccountNumber.slice(-1)) + 1) % 10}`;

/** The test participants, Baobab Bank also limiting each credit it receives to one million rand. */
const withCreditLimit = (() => {
  const baobab = participants.get(bank);
  if (baobab === undefined) throw new Error('participants changed');
  const limited = { ...baobab, creditLimits: { ZAR: '1000000' } };
  return new Map<string, Participant>([...participants, [bank, limited]]);
})();

beforeAll(async () => {
  const tables = await CdvTables.load({
    ...syntheticCdvTables(),
    exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
  });
  context = { participants, accounts: tables, today, maxDaysAhead: 30 };
});

/** A valid credit with one change applied to a copy. */
function creditWith(change: (credit: CreditTransfer) => void): CreditTransfer {
  const credit = validCredit();
  change(credit);
  return credit;
}

const rejections: [string, (credit: CreditTransfer) => void, string, RegExp][] = [
  [
    'credited account fails the check digit test',
    (credit) => {
      credit.creditorAccount.identification.value = wrongCreditorAccountNumber;
    },
    'AC03',
    /^Creditor account failed CDV at branch 250655: check digit is wrong$/,
  ],
  [
    'credited account is at a branch the branch file does not know',
    (credit) => {
      credit.creditorAgent = { ...credit.creditorAgent, branch: { identification: '999999' } };
    },
    'AC03',
    /^Creditor account failed CDV at branch 999999: not a valid branch code$/,
  ],
  [
    'credited account number is not digits',
    (credit) => {
      credit.creditorAccount.identification.value = '62-000-000';
    },
    'AC03',
    /^Creditor account failed CDV at branch 250655: account number must be 1 to 11 digits$/,
  ],
  [
    'shortened creditor account number differs from the credited account',
    (credit) => {
      credit.paymentScheme = {
        schema: 'ZA_EFT',
        schemeData: { shortenedCreditorAccountNumber: '12345678901' },
      };
    },
    'AC03',
    /^Shortened creditor account number in the scheme data differs/,
  ],
  [
    "debtor's account at the other bank is not digits",
    (credit) => {
      credit.debtorAccount = { identification: { schema: 'GENERIC', value: 'ACC-407' } };
    },
    'AC01',
    /^Debtor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    "debtor's account at the other bank is longer than 11 digits",
    (credit) => {
      credit.debtorAccount = { identification: { schema: 'GENERIC', value: '407000000123' } };
    },
    'AC01',
    /^Debtor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    "debtor's account at the other bank is all zero",
    (credit) => {
      credit.debtorAccount = { identification: { schema: 'GENERIC', value: '0000000' } };
    },
    'AC01',
    /^Debtor account number must be 1 to 11 digits, not all zero$/,
  ],
  [
    'shortened debtor account number differs from the debtor account',
    (credit) => {
      credit.paymentScheme = { schema: 'ZA_EFT', schemeData: { shortenedDebtorAccountNumber: '4070000002' } };
    },
    'AC01',
    /^Shortened debtor account number in the scheme data differs/,
  ],
  [
    'settlement currency is not rand',
    (credit) => {
      credit.amounts = { bankSettlementAmount: { value: '1500', currency: 'USD' } };
    },
    'AM03',
    /^Currency USD of the settlement amount is not allowed for ZA_EFT; use ZAR$/,
  ],
  [
    'credited account currency is not rand',
    (credit) => {
      credit.creditorAccount.currency = 'EUR';
    },
    'AM03',
    /^Currency EUR of the creditor account is not allowed for ZA_EFT; use ZAR$/,
  ],
  [
    'amount is zero',
    (credit) => {
      credit.amounts = { bankSettlementAmount: { value: '0', currency: 'ZAR' } };
    },
    'AM12',
    /^The settlement amount must be greater than zero$/,
  ],
  [
    'creditor bank is not a participant',
    (credit) => {
      // The branch stays Baobab's, so the account itself verifies: only the bank is unknown.
      credit.creditorAgent = { ...credit.creditorAgent, memberId: '999999' };
    },
    'AG01',
    /^Creditor agent 999999 is not a participant of this engine$/,
  ],
  [
    'creditor bank is not named by a member id',
    (credit) => {
      credit.creditorAgent = { bicfi: 'BAOBZAJJ', branch: { identification: bank } };
    },
    'AG01',
    /^The creditor agent has no memberId, so the credit cannot be delivered$/,
  ],
];

describe('credit transfer rules', () => {
  test('accept a valid credit transfer', () => {
    expect(validateCredit(validCredit(), context)).toEqual({ accepted: true });
  });

  test.each(rejections)('reject when the %s', (_name, change, code, text) => {
    const decision = validateCredit(creditWith(change), context);
    expect(decision.accepted).toBe(false);
    if (decision.accepted) return;
    expect(decision.reasons).toHaveLength(1);
    expect(decision.reasons[0]?.code).toBe(code);
    expect(decision.reasons[0]?.text).toMatch(text);
    expect(decision.reasons[0]?.text.length).toBeLessThanOrEqual(105);
    expect(decision.reasons[0]?.text).not.toContain(creditorAccountNumber);
  });

  test("reject an amount above the creditor bank's credit limit by one cent", () => {
    const decision = validateCredit(
      creditWith((credit) => {
        credit.amounts = { bankSettlementAmount: { value: '1000000.01', currency: 'ZAR' } };
      }),
      { ...context, participants: withCreditLimit },
    );
    expect(decision).toEqual({
      accepted: false,
      reasons: [
        {
          code: 'AM02',
          text: 'Amount 1000000.01 ZAR exceeds the limit of 1000000 ZAR per credit of bank 250655',
        },
      ],
    });
  });

  test.each([
    [
      'an amount exactly at the credit limit',
      (credit: CreditTransfer) => {
        credit.amounts = { bankSettlementAmount: { value: '1000000.00', currency: 'ZAR' } };
      },
    ],
    [
      // Debit limits bound what a bank initiates, not what its customers receive.
      "an amount above the creditor bank's debit limit",
      (credit: CreditTransfer) => {
        credit.amounts = { bankSettlementAmount: { value: '750000', currency: 'ZAR' } };
      },
    ],
    [
      "no debtor's account (the debtor's bank knows whom it debited)",
      (credit: CreditTransfer) => {
        delete credit.debtorAccount;
      },
    ],
    [
      'a debtor at a bank that is not a participant',
      (credit: CreditTransfer) => {
        credit.debtorAgent = { memberId: '470010', name: 'Another bank' };
        credit.instructingAgent = { memberId: '470010' };
      },
    ],
    [
      'a credited account the tables mark not verifiable (SKIPPED)',
      (credit: CreditTransfer) => {
        credit.creditorAgent = { memberId: bank, branch: { identification: '580105' } };
        credit.creditorAccount = {
          identification: { schema: 'GENERIC', value: '1234' },
          type: { schema: 'CODE', value: 'CACC' },
        };
      },
    ],
    [
      'a cross-border scheme, where CDV, the account form and the rand rule do not apply',
      (credit: CreditTransfer) => {
        credit.paymentScheme = { schema: 'CBPR_PLUS' };
        credit.amounts = { bankSettlementAmount: { value: '1500', currency: 'USD' } };
        credit.creditorAccount.identification.value = 'GB29NWBK60161331926819';
        credit.debtorAccount = { identification: { schema: 'GENERIC', value: 'DE89370400440532013000' } };
      },
    ],
  ])('accept %s', (_name, change) => {
    expect(validateCredit(creditWith(change), { ...context, participants: withCreditLimit })).toEqual({
      accepted: true,
    });
  });

  test('report every broken rule, in report order', () => {
    const decision = validateCredit(
      creditWith((credit) => {
        credit.creditorAccount.identification.value = wrongCreditorAccountNumber;
        credit.debtorAccount = { identification: { schema: 'GENERIC', value: 'ACC-407' } };
        credit.amounts = { bankSettlementAmount: { value: '2000000', currency: 'ZAR' } };
        credit.creditorAgent = { ...credit.creditorAgent, memberId: '999999' };
      }),
      { ...context, participants: withCreditLimit },
    );
    // The limit is the creditor bank's; an unknown bank has none.
    expect(decision.accepted || decision.reasons.map((reason) => reason.code)).toEqual([
      'AC01',
      'AC03',
      'AG01',
    ]);
  });

  test("verify only the credited account's check digits", () => {
    const seen: string[] = [];
    validateCredit(validCredit(), { ...context, onCdv: (role, status) => seen.push(`${role}:${status}`) });
    expect(seen).toEqual(['creditor:PASSED']);
  });
});
