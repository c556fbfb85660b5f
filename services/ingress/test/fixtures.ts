import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DirectDebit, PaymentStatusReport } from '@rp/contracts';

function example<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../../avro/examples/${name}`, import.meta.url), 'utf8')) as T;
}

const debitExample = example<DirectDebit>('DirectDebit.za-eft-on-us.json');
const reportExample = example<PaymentStatusReport>('PaymentStatusReport.acsc.json');

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

/** The actioning bank's ACSC report for `debit`, with its own message identification. */
export function reportBody(
  debit: DirectDebit,
  overrides: Partial<PaymentStatusReport> = {},
): PaymentStatusReport {
  return {
    ...structuredClone(reportExample),
    messageIdentifiers: { messageIdentification: messageId('R'), creationDateTime: new Date().toISOString() },
    originalMessageIdentifiers: debit.messageIdentifiers,
    transactionIdentifiers: debit.transactionIdentifiers,
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
