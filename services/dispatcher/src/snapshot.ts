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
 * The DirectDebit a transaction started with, as its snapshot records it (the first message of kind
 * DirectDebit), validated like a request body: it is JSON text another service wrote. Amounts may be
 * JSON numbers (contracts' toJson) or decimal strings; both are read exactly.
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
  const exact = validateDirectDebit(copy(json));
  if (exact.ok) return exact.value;
  const fromStrings = validateDirectDebit(amountsAsNumbers(json));
  return fromStrings.ok ? fromStrings.value : undefined;
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, copy(member)]));
}

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
