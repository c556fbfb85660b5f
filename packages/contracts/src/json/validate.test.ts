import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MessageName } from '../generated/types.ts';
import { validationProblem } from '../http/problems.ts';
import { parseJsonExact } from './exact-json.ts';
import {
  validate,
  validateCreditTransfer,
  validateDirectDebit,
  validatePaymentStatusReport,
} from './validate.ts';

// biome-ignore lint/suspicious/noExplicitAny: test bodies are edited freely, one member at a time
type Body = Record<string, any>;

const exampleText = (file: string) =>
  readFileSync(new URL(`../../../../avro/examples/${file}`, import.meta.url), 'utf8');

/** A fresh, mutable copy of an example as plain JSON (numbers as JavaScript numbers for easy editing). */
const sample = (file: string): Body => JSON.parse(exampleText(file)) as Body;

/** Re-reads an edited body the way the ingress does: through the exact JSON parser. */
const asReceived = (body: unknown) => parseJsonExact(JSON.stringify(body));

const long = (length: number) => 'x'.repeat(length);

interface Case {
  constraint: string;
  message: MessageName;
  edit: (body: Body) => unknown;
  pointer: string;
}

const directDebit = (constraint: string, edit: Case['edit'], pointer: string): Case => ({
  constraint,
  message: 'DirectDebit',
  edit,
  pointer,
});
const statusReport = (constraint: string, edit: Case['edit'], pointer: string): Case => ({
  constraint,
  message: 'PaymentStatusReport',
  edit,
  pointer,
});
const creditTransfer = (constraint: string, edit: Case['edit'], pointer: string): Case => ({
  constraint,
  message: 'CreditTransfer',
  edit,
  pointer,
});

const files: Partial<Record<MessageName, string>> = {
  DirectDebit: 'DirectDebit.za-eft-on-us.json',
  PaymentStatusReport: 'PaymentStatusReport.rjct.json',
  CreditTransfer: 'CreditTransfer.json',
};

const cases: Case[] = [
  directDebit(
    'messageIdentification max 35',
    (b) => {
      b.messageIdentifiers.messageIdentification = long(36);
    },
    '/messageIdentifiers/messageIdentification',
  ),
  directDebit(
    'messageIdentification not empty',
    (b) => {
      b.messageIdentifiers.messageIdentification = '';
    },
    '/messageIdentifiers/messageIdentification',
  ),
  directDebit(
    'messageIdentifiers required',
    (b) => {
      delete b.messageIdentifiers;
    },
    '/messageIdentifiers',
  ),
  directDebit(
    'creationDateTime is a date-time',
    (b) => {
      b.messageIdentifiers.creationDateTime = 'yesterday';
    },
    '/messageIdentifiers/creationDateTime',
  ),
  directDebit(
    'creationDateTime has an offset (RFC 3339)',
    (b) => {
      b.messageIdentifiers.creationDateTime = '2025-03-14T09:30:00';
    },
    '/messageIdentifiers/creationDateTime',
  ),
  directDebit(
    'uetr is a UUID',
    (b) => {
      b.transactionIdentifiers.uetr = 'not-a-uuid';
    },
    '/transactionIdentifiers/uetr',
  ),
  directDebit(
    'endToEndIdentification required',
    (b) => {
      delete b.transactionIdentifiers.endToEndIdentification;
    },
    '/transactionIdentifiers/endToEndIdentification',
  ),
  directDebit(
    'endToEndIdentification max 35',
    (b) => {
      b.transactionIdentifiers.endToEndIdentification = long(36);
    },
    '/transactionIdentifiers/endToEndIdentification',
  ),
  directDebit(
    'instructionIdentification max 35',
    (b) => {
      b.transactionIdentifiers.instructionIdentification = long(36);
    },
    '/transactionIdentifiers/instructionIdentification',
  ),
  directDebit(
    'currency matches ^[A-Z]{3}$',
    (b) => {
      b.amounts.bankSettlementAmount.currency = 'zar';
    },
    '/amounts/bankSettlementAmount/currency',
  ),
  directDebit(
    'currency is an ISO 4217 code',
    (b) => {
      b.amounts.bankSettlementAmount.currency = 'XYZ';
    },
    '/amounts/bankSettlementAmount/currency',
  ),
  directDebit(
    'ZAR has 2 decimal places',
    (b) => {
      b.amounts.bankSettlementAmount.value = 100.123;
    },
    '/amounts/bankSettlementAmount/value',
  ),
  directDebit(
    'JPY has 0 decimal places',
    (b) => {
      b.amounts.instructedAmount = { value: 100.5, currency: 'JPY' };
    },
    '/amounts/instructedAmount/value',
  ),
  directDebit(
    'amount scale is at most 5',
    (b) => {
      b.amounts.instructedAmount = { value: 1.123456, currency: 'CLF' };
    },
    '/amounts/instructedAmount/value',
  ),
  directDebit(
    'amount is a JSON number',
    (b) => {
      b.amounts.bankSettlementAmount.value = '1500.00';
    },
    '/amounts/bankSettlementAmount/value',
  ),
  directDebit(
    'amount is not negative',
    (b) => {
      b.amounts.bankSettlementAmount.value = -5;
    },
    '/amounts/bankSettlementAmount/value',
  ),
  directDebit(
    'amount has at most 13 integer digits',
    (b) => {
      b.amounts.bankSettlementAmount.value = 12345678901234;
    },
    '/amounts/bankSettlementAmount/value',
  ),
  directDebit(
    'bankSettlementAmount required',
    (b) => {
      delete b.amounts.bankSettlementAmount;
    },
    '/amounts/bankSettlementAmount',
  ),
  directDebit(
    'party name max 140',
    (b) => {
      b.creditor.name = long(141);
    },
    '/creditor/name',
  ),
  directDebit(
    'PaymentAccount needs identification or proxy',
    (b) => {
      b.debtorAccount = { name: 'Savings' };
    },
    '/debtorAccount/identification',
  ),
  directDebit(
    'account name max 70',
    (b) => {
      b.debtorAccount.name = long(71);
    },
    '/debtorAccount/name',
  ),
  directDebit(
    'account number max 34',
    (b) => {
      b.debtorAccount.identification.value = long(35);
    },
    '/debtorAccount/identification/value',
  ),
  directDebit(
    'account currency code',
    (b) => {
      b.debtorAccount.currency = 'RAND';
    },
    '/debtorAccount/currency',
  ),
  directDebit(
    'BIC pattern',
    (b) => {
      b.creditorAgent.bicfi = 'FNB';
    },
    '/creditorAgent/bicfi',
  ),
  directDebit(
    'LEI pattern',
    (b) => {
      b.debtorAgent.lei = 'ABC';
    },
    '/debtorAgent/lei',
  ),
  directDebit(
    'at most 3 intermediary agents',
    (b) => {
      b.intermediaryAgents = [{}, {}, {}, {}];
    },
    '/intermediaryAgents',
  ),
  directDebit(
    'intermediary agents not an empty list',
    (b) => {
      b.intermediaryAgents = [];
    },
    '/intermediaryAgents',
  ),
  directDebit(
    'schema constant DirectDebit',
    (b) => {
      b.schema = 'CreditTransfer';
    },
    '/schema',
  ),
  directDebit(
    'sequenceType is a SequenceTypeCode',
    (b) => {
      b.sequenceType = 'WEEKLY';
    },
    '/sequenceType',
  ),
  directDebit(
    'the UNKNOWN fallback symbol is not valid JSON',
    (b) => {
      b.sequenceType = 'UNKNOWN';
    },
    '/sequenceType',
  ),
  directDebit(
    'requestedCollectionDate is a date',
    (b) => {
      b.requestedCollectionDate = '17/03/2025';
    },
    '/requestedCollectionDate',
  ),
  directDebit(
    'settlementDate is a calendar date',
    (b) => {
      b.settlementDate = '2025-02-30';
    },
    '/settlementDate',
  ),
  directDebit(
    'payment scheme code',
    (b) => {
      b.paymentScheme.schema = 'SEPA';
    },
    '/paymentScheme/schema',
  ),
  directDebit(
    'paymentScheme required',
    (b) => {
      delete b.paymentScheme;
    },
    '/paymentScheme',
  ),
  directDebit(
    'shortened account number is 11 digits',
    (b) => {
      b.paymentScheme.schemeData.shortenedDebtorAccountNumber = '123';
    },
    '/paymentScheme/schemeData/shortenedDebtorAccountNumber',
  ),
  directDebit(
    'EFT user reference max 30',
    (b) => {
      b.paymentScheme.schemeData.userReference = long(31);
    },
    '/paymentScheme/schemeData/userReference',
  ),
  directDebit(
    'unknown top-level member refused',
    (b) => {
      b.foo = 1;
    },
    '/foo',
  ),
  directDebit(
    'unknown nested member refused',
    (b) => {
      b.debtor.nickname = 'T';
    },
    '/debtor/nickname',
  ),
  directDebit(
    'country of residence is alpha-2',
    (b) => {
      b.debtor.countryOfResidence = 'ZAF';
    },
    '/debtor/countryOfResidence',
  ),
  directDebit(
    'party kind is PERSON or ORGANISATION',
    (b) => {
      b.debtor.identification.schema = 'ALIEN';
    },
    '/debtor/identification/schema',
  ),
  directDebit(
    'postCode is a number',
    (b) => {
      b.creditor.address.postCode = '8001';
    },
    '/creditor/address/postCode',
  ),
  directDebit(
    'buildingNumber is an integer',
    (b) => {
      b.creditor.address.buildingNumber = 1.5;
    },
    '/creditor/address/buildingNumber',
  ),
  directDebit(
    'at most 7 address lines',
    (b) => {
      b.creditor.address.addressLine = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    },
    '/creditor/address/addressLine',
  ),
  directDebit(
    'address line max 70',
    (b) => {
      b.creditor.address.addressLine = [long(71)];
    },
    '/creditor/address/addressLine/0',
  ),
  directDebit(
    'address line is a string or a number',
    (b) => {
      b.creditor.address.addressLine = [true];
    },
    '/creditor/address/addressLine/0',
  ),
  directDebit(
    'unstructured remittance max 140',
    (b) => {
      b.remittanceInformation.unstructured = [long(141)];
    },
    '/remittanceInformation/unstructured/0',
  ),
  directDebit(
    'supplementary data needs a key',
    (b) => {
      b.supplementaryData = [{ value: 'v' }];
    },
    '/supplementaryData/0/key',
  ),
  directDebit(
    'mandate signature date is a date',
    (b) => {
      b.mandateInformation = { mandateIdentification: 'M1', dateOfSignature: 'yesterday' };
    },
    '/mandateInformation/dateOfSignature',
  ),
  directDebit(
    'absent optional members are omitted, not null',
    (b) => {
      b.creditorAccount = null;
    },
    '/creditorAccount',
  ),
  directDebit('the body is an object', () => [], ''),
  statusReport(
    'status code',
    (b) => {
      b.status.status = 'DONE';
    },
    '/status/status',
  ),
  statusReport(
    'reason code is 4 characters',
    (b) => {
      b.status.reasonInfo[0].reason.code = 'AC1';
    },
    '/status/reasonInfo/0/reason/code',
  ),
  statusReport(
    'additional info max 105',
    (b) => {
      b.status.reasonInfo[0].additionalInfo = [long(106)];
    },
    '/status/reasonInfo/0/additionalInfo/0',
  ),
  statusReport(
    'originalMessageIdentifiers required',
    (b) => {
      delete b.originalMessageIdentifiers;
    },
    '/originalMessageIdentifiers',
  ),
  statusReport(
    'schema constant PaymentStatusReport',
    (b) => {
      b.schema = 'DirectDebit';
    },
    '/schema',
  ),
  statusReport(
    'payment method',
    (b) => {
      b.originalTransactionData.paymentMethod = 'Cheque';
    },
    '/originalTransactionData/paymentMethod',
  ),
  creditTransfer(
    'schema constant CreditTransfer',
    (b) => {
      b.schema = 'DirectDebit';
    },
    '/schema',
  ),
  creditTransfer(
    'at most 3 intermediary agents (credit)',
    (b) => {
      b.intermediaryAgents = [{}, {}, {}, {}];
    },
    '/intermediaryAgents',
  ),
  creditTransfer(
    'instruction information max 140',
    (b) => {
      b.instructionForCreditorAgent[0].information = long(141);
    },
    '/instructionForCreditorAgent/0/information',
  ),
  creditTransfer(
    'tax amount decimals',
    (b) => {
      b.tax.totalAmount.value = 0.105;
    },
    '/tax/totalAmount/value',
  ),
  creditTransfer(
    'referred document identifier max 35',
    (b) => {
      b.remittanceInformation.structured[0].referredDocuments[0].documentIdentifier = long(36);
    },
    '/remittanceInformation/structured/0/referredDocuments/0/documentIdentifier',
  ),
];

describe('HTTP validation', () => {
  it('has a case for at least 40 constraints', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.constraint)).size).toBe(cases.length);
  });

  it.each(cases)('refuses a body breaking "$constraint" at $pointer', ({ message, edit, pointer }) => {
    const body = sample(files[message] ?? '');
    const replaced = edit(body);
    const result = validate(message, asReceived(replaced ?? body));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.pointer)).toEqual([pointer]);
    expect(result.errors[0]?.detail.length).toBeGreaterThan(0);
  });

  it('accepts the valid samples and returns amounts as exact decimal strings', () => {
    const debit = validateDirectDebit(parseJsonExact(exampleText('DirectDebit.za-eft-on-us.json')));
    expect(debit.ok).toBe(true);
    if (debit.ok) expect(debit.value.amounts.bankSettlementAmount.value).toBe('1500');
    const credit = validateCreditTransfer(parseJsonExact(exampleText('CreditTransfer.json')));
    expect(credit.ok && credit.value.amounts.bankSettlementAmount.value).toBe('1234567890123.45');
    for (const file of [
      'PaymentStatusReport.accp.json',
      'PaymentStatusReport.rjct.json',
      'PaymentStatusReport.acsc.json',
    ]) {
      expect(validatePaymentStatusReport(parseJsonExact(exampleText(file))).ok).toBe(true);
    }
  });

  it('refuses an amount that is null or not an object with an error at it, never a throw', () => {
    for (const wrong of [null, 'ZAR 10.00', [], 12]) {
      const body = sample('DirectDebit.za-eft-on-us.json');
      body.amounts.bankSettlementAmount = wrong;
      const result = validateDirectDebit(asReceived(body));
      expect(result.ok, JSON.stringify(wrong)).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((error) => error.pointer)).toContain('/amounts/bankSettlementAmount');
      const credit = sample('CreditTransfer.json');
      credit.amounts.instructedAmount = wrong;
      const refused = validateCreditTransfer(asReceived(credit));
      expect(refused.ok, JSON.stringify(wrong)).toBe(false);
    }
  });

  it('reports every invalid member, not just the first', () => {
    const body = sample('DirectDebit.za-eft-on-us.json');
    body.messageIdentifiers.messageIdentification = long(40);
    body.debtorAccount = { name: 'no identification' };
    body.amounts.bankSettlementAmount.currency = 'zar';
    body.schema = 'Debit';
    body.unexpected = true;
    const result = validateDirectDebit(asReceived(body));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.pointer).sort()).toEqual([
      '/amounts/bankSettlementAmount/currency',
      '/debtorAccount/identification',
      '/messageIdentifiers/messageIdentification',
      '/schema',
      '/unexpected',
    ]);
  });

  it('turns the errors into an RFC 9457 problem body that is itself valid', () => {
    const body = sample('DirectDebit.za-eft-on-us.json');
    body.debtorAccount = {};
    body.sequenceType = 'SOMETIMES';
    const result = validateDirectDebit(asReceived(body));
    if (result.ok) throw new Error('expected a failure');
    const problem = validationProblem(result.errors, '/api/v1/outbound/direct-debit');
    expect(problem).toMatchObject({
      type: '/problems/validation-failed',
      title: expect.any(String),
      status: 422,
      detail: '2 members are invalid; see errors',
      instance: '/api/v1/outbound/direct-debit',
    });
    expect(problem.errors).toEqual(result.errors);
    expect(validate('ProblemDetails', asReceived(problem)).ok).toBe(true);
  });

  it('refuses an amount that went through a binary float', () => {
    const body = sample('DirectDebit.za-eft-on-us.json');
    body.amounts.bankSettlementAmount.value = 0.1;
    // JSON.parse, not parseJsonExact: the value reaches the validator as a JavaScript float.
    const result = validateDirectDebit(JSON.parse(JSON.stringify(body)));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.pointer).toBe('/amounts/bankSettlementAmount/value');
  });
});
