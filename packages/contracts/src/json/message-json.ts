import { avroType, recordConstants } from '../avro/codec.ts';
import { mapLogicalValues } from '../avro/values.ts';
import type { MessageName, Messages } from '../generated/types.ts';
import { schemaSet } from '../schema-set.ts';
import { jsonNumber, stringifyJsonExact } from './exact-json.ts';
import { type JsonSchema, messageJsonSchema } from './json-schema.ts';

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
