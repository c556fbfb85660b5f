import {
  type CreditTransfer,
  type DirectDebit,
  isExactNumber,
  jsonNumber,
  parseJsonExact,
  type ValidationResult,
  validateCreditTransfer,
  validateDirectDebit,
} from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';
/** Header on due debits: the business date of the debit window that released them. */
export const windowDateHeader = 'rp-window-date';
/** Header on due debits: when the scheduler released them (its clock), the start of their delivery. */
export const releasedAtHeader = 'rp-released-at';

const decimalText = /^-?\d+(\.\d+)?$/;

/**
 * The payload a transaction started with, as its snapshot records it: the first DirectDebit or
 * CreditTransfer message. The body is JSON text written by another service, so it is validated like a
 * request body. Amounts may be JSON numbers (contracts' toJson) or decimal strings; both read exactly.
 */
export function transactionOfSnapshot(
  snapshot: TransactionSnapshot,
): DirectDebit | CreditTransfer | undefined {
  for (const message of snapshot.messages) {
    if (message.kind === 'DirectDebit') return readDirectDebit(message.bodyJson);
    if (message.kind === 'CreditTransfer') return readMessage(message.bodyJson, validateCreditTransfer);
  }
  return undefined;
}

/** A DirectDebit from JSON text; undefined when it is not one. */
export function readDirectDebit(bodyJson: string): DirectDebit | undefined {
  return readMessage(bodyJson, validateDirectDebit);
}

function readMessage<T>(bodyJson: string, validate: (json: unknown) => ValidationResult<T>): T | undefined {
  let json: unknown;
  try {
    json = parseJsonExact(bodyJson);
  } catch {
    return undefined;
  }
  const exact = validate(copy(json));
  if (exact.ok) return exact.value;
  const fromStrings = validate(amountsAsNumbers(json));
  return fromStrings.ok ? fromStrings.value : undefined;
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, copy(member)]));
}

/** Amount objects ({ value, currency }) whose value is a decimal string get an exact JSON number instead. */
function amountsAsNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(amountsAsNumbers);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  const record = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) result[name] = amountsAsNumbers(member);
  if (
    typeof record.currency === 'string' &&
    typeof record.value === 'string' &&
    decimalText.test(record.value)
  ) {
    result.value = jsonNumber(record.value);
  }
  return result;
}
