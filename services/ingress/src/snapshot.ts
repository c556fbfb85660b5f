import { isExactNumber, jsonNumber, type Messages, parseJsonExact, validate } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

const decimalText = /^-?\d+(\.\d+)?$/;

/** The kinds of message a transaction starts with, as its snapshot records them (the message's schema). */
export type TransactionKind = 'DirectDebit' | 'CreditTransfer';

/**
 * The message of `kind` a transaction started with, as the snapshot records it: the first message of that
 * kind (a DirectDebit for a debit, a CreditTransfer for a credit; undefined for a transaction of the
 * other flow). Its body is validated like a request body, because it is JSON text written by another
 * service. Amounts may be written as JSON numbers (contracts' toJson) or as decimal strings (a plain
 * JSON.stringify of the in-memory message); both are read exactly.
 */
export function transactionOfSnapshot<K extends TransactionKind>(
  snapshot: TransactionSnapshot,
  kind: K,
): Messages[K] | undefined {
  const message = snapshot.messages.find((entry) => entry.kind === kind);
  if (message === undefined) return undefined;
  let json: unknown;
  try {
    json = parseJsonExact(message.bodyJson);
  } catch {
    return undefined;
  }
  const exact = validate(kind, structuredCopy(json));
  if (exact.ok) return exact.value;
  const fromStrings = validate(kind, amountsAsNumbers(json));
  return fromStrings.ok ? fromStrings.value : undefined;
}

function structuredCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuredCopy);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, structuredCopy(member)]));
}

/** Amount objects ({ value, currency }) whose value is a decimal string get an exact JSON number instead. */
function amountsAsNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(amountsAsNumbers);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) copy[name] = amountsAsNumbers(member);
  if (
    typeof record.currency === 'string' &&
    typeof record.value === 'string' &&
    decimalText.test(record.value)
  ) {
    copy.value = jsonNumber(record.value);
  }
  return copy;
}
