import { type PaymentStatusReport, parseJsonExact, toJson, validatePaymentStatusReport } from '@rp/contracts';
import { describe, expect, test } from 'vitest';
import { validCredit } from '../test/credits.ts';
import { validDebit } from '../test/debits.ts';
import { buildStatusReport, reasonInformation, statusReportId } from './report.ts';

const createdAt = new Date('2025-03-14T07:30:02.250Z');

/** A report must be a valid message: what the dispatcher sends to the bank. */
function assertValid(report: PaymentStatusReport): void {
  const result = validatePaymentStatusReport(parseJsonExact(toJson('PaymentStatusReport', report)));
  expect(result.ok ? [] : result.errors).toEqual([]);
}

describe('status report id', () => {
  test('is 35 characters, derived from the UETR only', () => {
    const id = statusReportId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24');
    expect(id).toBe('RPV2F6C1E0A8B4D4C7E9A1F3D5B7C9E1A24');
    expect(id).toHaveLength(35);
    expect(statusReportId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a25')).not.toBe(id);
  });
});

describe('building the report', () => {
  test('ACCP refers to the debit, with the agents swapped', () => {
    const debit = validDebit('2025-03-17', {
      instructingAgent: { memberId: '250655' },
      instructedAgent: { memberId: '632005' },
    });
    const report = buildStatusReport(debit, { accepted: true }, createdAt);
    expect(report).toEqual({
      messageIdentifiers: {
        messageIdentification: statusReportId(debit.transactionIdentifiers.uetr),
        creationDateTime: '2025-03-14T07:30:02.250Z',
      },
      originalMessageIdentifiers: debit.messageIdentifiers,
      transactionIdentifiers: debit.transactionIdentifiers,
      instructingAgent: { memberId: '632005' },
      instructedAgent: { memberId: '250655' },
      originalTransactionData: {
        amounts: debit.amounts,
        creditorAccount: debit.creditorAccount,
        creditorAgent: debit.creditorAgent,
        debtorAccount: debit.debtorAccount,
        debtorAgent: debit.debtorAgent,
        paymentMethod: 'DirectDebit',
        paymentTypeInformation: debit.paymentTypeInformation,
        settlementDate: '2025-03-17',
      },
      paymentScheme: { schema: 'ZA_EFT', schemeData: { userReference: 'ACMEGYM001 MEMBERSHIP' } },
      status: { status: 'ACCP' },
      schema: 'PaymentStatusReport',
    });
    assertValid(report);
  });

  test('RJCT carries one reason per code with every text', () => {
    const report = buildStatusReport(
      validDebit('2025-03-17'),
      {
        accepted: false,
        reasons: [
          {
            code: 'AC01',
            text: 'Debtor account failed check digit verification at branch 250655: the check digit is wrong',
          },
          { code: 'DT01', text: 'Requested collection date 2025-03-13 is in the past' },
          { code: 'DT01', text: 'Settlement date 2025-03-13 is in the past' },
        ],
      },
      createdAt,
    );
    expect(report.status).toEqual({
      status: 'RJCT',
      reasonInfo: [
        {
          reason: { code: 'AC01' },
          additionalInfo: [
            'Debtor account failed check digit verification at branch 250655: the check digit is wrong',
          ],
        },
        {
          reason: { code: 'DT01' },
          additionalInfo: [
            'Requested collection date 2025-03-13 is in the past',
            'Settlement date 2025-03-13 is in the past',
          ],
        },
      ],
    });
    assertValid(report);
  });

  test('a credit transfer: ACCP describing the credit, with the agents swapped', () => {
    const credit = validCredit();
    const report = buildStatusReport(credit, { accepted: true }, createdAt);
    expect(report).toEqual({
      messageIdentifiers: {
        messageIdentification: statusReportId(credit.transactionIdentifiers.uetr),
        creationDateTime: '2025-03-14T07:30:02.250Z',
      },
      originalMessageIdentifiers: credit.messageIdentifiers,
      transactionIdentifiers: credit.transactionIdentifiers,
      instructingAgent: { memberId: '250655' },
      instructedAgent: { memberId: '632005' },
      originalTransactionData: {
        amounts: credit.amounts,
        creditorAccount: credit.creditorAccount,
        creditorAgent: credit.creditorAgent,
        debtorAccount: credit.debtorAccount,
        debtorAgent: credit.debtorAgent,
        paymentMethod: 'CreditTransfer',
        paymentTypeInformation: credit.paymentTypeInformation,
      },
      paymentScheme: {
        schema: 'ZA_EFT',
        schemeData: {
          userReference: 'ACMESAL001 SALARY MAR25',
          originatorEchoData: 'PAYRUN-2025-03',
          businessReference: 'SAL-2025-03-0077',
        },
      },
      status: { status: 'ACCP' },
      schema: 'PaymentStatusReport',
    });
    assertValid(report);
  });

  test('a credit transfer without a debtor account: RJCT, still a valid message', () => {
    const credit = validCredit();
    delete credit.debtorAccount;
    const report = buildStatusReport(
      credit,
      {
        accepted: false,
        reasons: [
          { code: 'AC03', text: 'Creditor account failed CDV at branch 250655: check digit is wrong' },
        ],
      },
      createdAt,
    );
    expect(report.originalTransactionData).not.toHaveProperty('debtorAccount');
    expect(report.status).toEqual({
      status: 'RJCT',
      reasonInfo: [
        {
          reason: { code: 'AC03' },
          additionalInfo: ['Creditor account failed CDV at branch 250655: check digit is wrong'],
        },
      ],
    });
    assertValid(report);
  });

  test('texts are cut to the ISO limit of 105 characters', () => {
    const [info] = reasonInformation([{ code: 'NARR' as 'MS03', text: 'x'.repeat(200) }]);
    expect(info?.additionalInfo?.[0]).toHaveLength(105);
  });
});
