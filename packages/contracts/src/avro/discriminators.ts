import { isObjectSchema } from './raw-schema.ts';
import type { SchemaSet } from './schema-set.ts';
import type { Discriminators } from './values.ts';

/** The constant members of every record (schema: "DirectDebit", class: "ESM_STATE"), by record full name. */
export function discriminatorsOf(set: SchemaSet): Discriminators {
  const found = new Map<string, Record<string, unknown>>();
  for (const [fullName, { schema }] of set.definitions) {
    const constants: Record<string, unknown> = {};
    for (const field of schema.fields ?? []) {
      if (isObjectSchema(field.type) && field.type.const !== undefined)
        constants[field.name] = field.type.const;
    }
    if (Object.keys(constants).length > 0) found.set(fullName, constants);
  }
  return found;
}
