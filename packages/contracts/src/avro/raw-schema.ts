/**
 * The .avsc files as JSON, before avsc parses them. The generators (TypeScript, JSON Schema) read
 * this form because it keeps the custom constraint attributes that avsc drops.
 */
export type RawSchema = string | RawSchema[] | RawObjectSchema;

export interface RawObjectSchema {
  type: RawSchema;
  name?: string;
  namespace?: string;
  doc?: string;
  fields?: RawField[];
  symbols?: string[];
  default?: unknown;
  items?: RawSchema;
  values?: RawSchema;
  logicalType?: string;
  [attribute: string]: unknown;
}

export interface RawField {
  name: string;
  type: RawSchema;
  doc?: string;
  default?: unknown;
  [attribute: string]: unknown;
}

/** One .avsc file: its path relative to the avro/ folder and its parsed JSON. */
export interface AvroFile {
  path: string;
  schema: RawSchema;
}

export const primitiveTypes = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);

/**
 * Custom attributes the project puts on Avro types to say what Avro cannot (see avro/README.md). Any
 * other attribute is refused, so a misspelt constraint cannot silently do nothing.
 */
export const constraintAttributes: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'const', 'examples', 'logicalType'],
  int: ['minimum', 'maximum', 'logicalType'],
  long: ['minimum', 'maximum'],
  bytes: ['logicalType', 'precision', 'scale', 'minimum', 'maxDecimalPlaces'],
  boolean: [],
  array: ['minItems', 'maxItems'],
  map: [],
  record: ['atLeastOneOf', 'currencyAmount'],
  enum: [],
};

export const standardAttributes = new Set([
  'type',
  'name',
  'namespace',
  'doc',
  'aliases',
  'fields',
  'symbols',
  'items',
  'values',
]);

export function isObjectSchema(schema: RawSchema): schema is RawObjectSchema {
  return typeof schema === 'object' && !Array.isArray(schema);
}

/** `name` qualified with `namespace` unless it already holds a dot. */
export function qualify(name: string, namespace: string | undefined): string {
  return name.includes('.') || !namespace ? name : `${namespace}.${name}`;
}

export function shortName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf('.') + 1);
}

/** The non-null branches of a union, and whether null is one of them (an optional field). */
export function unionBranches(union: RawSchema[]): { optional: boolean; branches: RawSchema[] } {
  const branches = union.filter((branch) => branch !== 'null');
  return { optional: branches.length < union.length, branches };
}
