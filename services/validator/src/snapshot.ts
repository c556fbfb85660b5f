import {
  type DirectDebit,
  isExactNumber,
  jsonNumber,
  type PaymentStatusReport,
  parseJsonExact,
  type ValidationResult,
  validateDirectDebit,
  validatePaymentStatusReport,
} from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';

const decimalText = /^-?\d+(\.\d+)?$/;

/**
 * The DirectDebit a transaction started with, as the snapshot records it: the first message of kind
 * `DirectDebit`. Its body is validated like a request body, because it is JSON text written by another
 * service. Amounts may be written as JSON numbers (contracts' toJson) or as decimal strings (a plain
 * JSON.stringify of the in-memory message); both are read exactly.
 */
export function directDebitOfSnapshot(snapshot: TransactionSnapshot): DirectDebit | undefined {
  const message = snapshot.messages.find((entry) => entry.kind === 'DirectDebit');
  return message === undefined ? undefined : readMessage(message.bodyJson, validateDirectDebit);
}

/** The status report with this messageIdentification, when the snapshot recorded it. */
export function statusReportOfSnapshot(
  snapshot: TransactionSnapshot,
  messageIdentification: string,
): PaymentStatusReport | undefined {
  const message = snapshot.messages.find(
    (entry) => entry.kind === 'PaymentStatusReport' && entry.messageIdentification === messageIdentification,
  );
  return message === undefined ? undefined : readMessage(message.bodyJson, validatePaymentStatusReport);
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
