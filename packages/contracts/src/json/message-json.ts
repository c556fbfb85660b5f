import { avroType, recordConstants } from '../avro/codec.ts';
import { mapLogicalValues } from '../avro/values.ts';
import type { MessageName, Messages } from '../generated/types.ts';
import { schemaSet } from '../schema-set.ts';
import { isExactNumber, jsonNumber, parseJsonExact, stringifyJsonExact } from './exact-json.ts';
import { type JsonSchema, messageJsonSchema } from './json-schema.ts';
import { validate } from './validate.ts';

const documents = new Map<MessageName, JsonSchema>();

/**
 * The JSON text of a message for an HTTP body: amounts (decimal strings in memory) are written as JSON
 * number tokens with exactly their digits.
 */
export function toJson<N extends MessageName>(name: N, value: Messages[N], indent?: number): string {
  const wire = mapLogicalValues(avroType(name), value, recordConstants(), 'decimal', (decimal) =>
    jsonNumber(decimal as string),
  );
  return stringifyJsonExact(wire, indent);
}

/** The JSON Schema 2020-12 of a message (self-contained, named types under $defs), as documents show it. */
export function jsonSchema(name: MessageName): JsonSchema {
  let document = documents.get(name);
  if (!document) {
    document = messageJsonSchema(schemaSet(), name, 'document');
    documents.set(name, document);
  }
  return structuredClone(document);
}

const decimalText = /^-?\d+(\.\d+)?$/;

/**
 * A message back from JSON text another service stored (a transaction snapshot's messages), validated
 * like a request body; undefined when the text is not one. Amounts may be JSON numbers (`toJson`) or
 * decimal strings (a plain `JSON.stringify` of the in-memory message); both are read exactly.
 */
export function fromStoredJson<N extends MessageName>(name: N, text: string): Messages[N] | undefined {
  let json: unknown;
  try {
    json = parseJsonExact(text);
  } catch {
    return undefined;
  }
  const exact = validate(name, copied(json));
  if (exact.ok) return exact.value;
  const fromStrings = validate(name, amountsAsNumbers(json));
  return fromStrings.ok ? fromStrings.value : undefined;
}

/** A deep copy (validation may change what it is given), exact numbers kept as they are. */
function copied(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copied);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, copied(member)]));
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
  )
    result.value = jsonNumber(record.value);
  return result;
}
