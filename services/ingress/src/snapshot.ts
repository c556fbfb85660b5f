import {
  type DirectDebit,
  isExactNumber,
  jsonNumber,
  parseJsonExact,
  validateDirectDebit,
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
  if (message === undefined) return undefined;
  let json: unknown;
  try {
    json = parseJsonExact(message.bodyJson);
  } catch {
    return undefined;
  }
  const exact = validateDirectDebit(structuredCopy(json));
  if (exact.ok) return exact.value;
  const fromStrings = validateDirectDebit(amountsAsNumbers(json));
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
