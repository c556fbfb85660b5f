import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CreditTransfer, DirectDebit, PaymentStatusReport } from '@rp/contracts';

function example<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../../avro/examples/${name}`, import.meta.url), 'utf8')) as T;
}

const debitExample = example<DirectDebit>('DirectDebit.za-eft-on-us.json');
const reportExample = example<PaymentStatusReport>('PaymentStatusReport.acsc.json');
const creditExample = example<CreditTransfer>('CreditTransfer.json');

let counter = 0;

/** A message identification no other test uses (at most 35 characters). */
export function messageId(prefix = 'T'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}${randomUUID().slice(0, 8)}`.slice(0, 35);
}

/** The spec-shaped example debit with its own identifiers, as a bank would POST it (amounts as JSON numbers). */
export function debitBody(overrides: Partial<DirectDebit> = {}): DirectDebit {
  const uetr = randomUUID();
  return {
    ...structuredClone(debitExample),
    messageIdentifiers: { messageIdentification: messageId('D'), creationDateTime: new Date().toISOString() },
    transactionIdentifiers: { ...debitExample.transactionIdentifiers, uetr },
    ...overrides,
  };
}

/**
 * The spec-shaped example credit transfer with its own identifiers, as a clearing house would POST it: for
 * the creditor's bank 250655, instructed by 632005 (amounts as JSON numbers).
 */
export function creditBody(overrides: Partial<CreditTransfer> = {}): CreditTransfer {
  return {
    ...structuredClone(creditExample),
    messageIdentifiers: { messageIdentification: messageId('C'), creationDateTime: new Date().toISOString() },
    transactionIdentifiers: { ...creditExample.transactionIdentifiers, uetr: randomUUID() },
    ...overrides,
  };
}

/**
 * An ACSC report from bank 250655 (the example debit's actioning bank, the example credit's creditor's
 * bank) answering `transaction`, with its own message identification.
 */
export function reportBody(
  transaction: DirectDebit | CreditTransfer,
  overrides: Partial<PaymentStatusReport> = {},
): PaymentStatusReport {
  return {
    ...structuredClone(reportExample),
    messageIdentifiers: { messageIdentification: messageId('R'), creationDateTime: new Date().toISOString() },
    originalMessageIdentifiers: transaction.messageIdentifiers,
    transactionIdentifiers: transaction.transactionIdentifiers,
    ...overrides,
  };
}

/** The in-memory form of a message: amounts as the canonical decimal strings validation produces. */
export function canonicalAmounts<T>(message: T): T {
  return JSON.parse(
    JSON.stringify(message, (name, value) =>
      name === 'value' && typeof value === 'number' ? String(value) : (value as unknown),
    ),
  ) as T;
}
