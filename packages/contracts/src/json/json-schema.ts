import {
  isObjectSchema,
  primitiveTypes,
  qualify,
  type RawObjectSchema,
  type RawSchema,
  shortName,
  unionBranches,
} from '../avro/raw-schema.ts';
import type { SchemaSet } from '../avro/schema-set.ts';

/**
 * JSON Schema 2020-12 derived from the Avro schemas and their constraint attributes. Two renderings:
 * `document` for people and other tools (OpenAPI, the served schemas: amounts are JSON numbers), and
 * `validator` for this package's ajv, where an amount is checked and converted by the x-decimal keyword
 * because it arrives as an exact number object rather than a JavaScript number.
 */
export type JsonSchema = Record<string, unknown>;

export type JsonSchemaFlavour = 'document' | 'validator';

export interface JsonSchemaOptions {
  /** Prefix of references to named types: '#/$defs/' or '#/components/schemas/'. */
  refPrefix: string;
  flavour: JsonSchemaFlavour;
}

export const jsonSchemaDialect = 'https://json-schema.org/draft/2020-12/schema';

const int32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };
const safeInteger = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/**
 * Converts raw Avro schemas to JSON Schema, collecting the named types it refers to; `definitions()`
 * then renders every collected type (and the ones they refer to) keyed by short name.
 */
export class JsonSchemaBuilder {
  readonly #set: SchemaSet;
  readonly #options: JsonSchemaOptions;
  readonly #referenced = new Set<string>();

  constructor(set: SchemaSet, options: JsonSchemaOptions) {
    this.#set = set;
    this.#options = options;
  }

  /** The JSON Schema of a top-level message: a reference to its record, or the union of its branches. */
  message(name: string): JsonSchema {
    const { schema } = this.#set.message(name);
    return this.schema(schema, undefined);
  }

  /** Every named type referred to so far, transitively, keyed by short name and sorted. */
  definitions(): Record<string, JsonSchema> {
    const rendered = new Map<string, JsonSchema>();
    let pending = [...this.#referenced].filter((name) => !rendered.has(name));
    while (pending.length > 0) {
      for (const fullName of pending) rendered.set(fullName, this.#definition(fullName));
      pending = [...this.#referenced].filter((name) => !rendered.has(name));
    }
    return Object.fromEntries(
      [...rendered.entries()]
        .map(([fullName, schema]) => [shortName(fullName), schema] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  }

  schema(schema: RawSchema, namespace: string | undefined): JsonSchema {
    if (typeof schema === 'string') {
      if (primitiveTypes.has(schema)) return this.#primitive({ type: schema });
      return this.#reference(qualify(schema, namespace));
    }
    if (Array.isArray(schema)) {
      const { optional, branches } = unionBranches(schema);
      const alternatives = branches.map((branch) => this.schema(branch, namespace));
      if (optional) alternatives.push({ type: 'null' });
      return alternatives.length === 1 ? alternatives[0]! : this.#union(alternatives, branches, namespace);
    }
    if (isNamed(schema)) return this.#reference(qualify(schema.name ?? '', schema.namespace ?? namespace));
    switch (schema.type) {
      case 'array':
        return compact({
          type: 'array',
          items: this.schema(schema.items ?? 'null', namespace),
          minItems: schema.minItems,
          maxItems: schema.maxItems,
        });
      case 'map':
        return { type: 'object', additionalProperties: this.schema(schema.values ?? 'null', namespace) };
      default:
        if (typeof schema.type === 'string' && primitiveTypes.has(schema.type))
          return this.#primitive(schema);
        return this.schema(schema.type, namespace);
    }
  }

  #reference(fullName: string): JsonSchema {
    this.#set.definition(fullName);
    this.#referenced.add(fullName);
    return { $ref: `${this.#options.refPrefix}${shortName(fullName)}` };
  }

  #union(alternatives: JsonSchema[], branches: RawSchema[], namespace: string | undefined): JsonSchema {
    const tag = this.#sharedConstant(branches, namespace);
    if (tag) return { type: 'object', oneOf: alternatives, discriminator: { propertyName: tag } };
    return { anyOf: alternatives };
  }

  /** A member every branch record holds as a different constant: lets validators pick the branch by it. */
  #sharedConstant(branches: RawSchema[], namespace: string | undefined): string | undefined {
    const records = branches.map((branch) =>
      typeof branch === 'string' && !primitiveTypes.has(branch)
        ? this.#set.definition(qualify(branch, namespace)).schema
        : undefined,
    );
    if (records.some((record) => record?.type !== 'record')) return undefined;
    const constantsOf = (record: RawObjectSchema) =>
      (record.fields ?? []).filter((field) => isObjectSchema(field.type) && field.type.const !== undefined);
    const first = records[0];
    if (!first) return undefined;
    return constantsOf(first)
      .map((field) => field.name)
      .find((name) =>
        records.every((record) => constantsOf(record as RawObjectSchema).some((f) => f.name === name)),
      );
  }

  #definition(fullName: string): JsonSchema {
    const { schema } = this.#set.definition(fullName);
    const namespace = fullName.slice(0, fullName.lastIndexOf('.'));
    if (schema.type === 'enum') {
      const symbols = (schema.symbols ?? []).filter((symbol) => symbol !== schema.default);
      return compact({ title: schema.name, description: schema.doc, type: 'string', enum: symbols });
    }
    if (schema.type !== 'record') throw new Error(`${fullName}: only records and enums are rendered`);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of schema.fields ?? []) {
      // An optional member is absent when it has no value: JSON null is not accepted for it.
      const { optional, branches } = Array.isArray(field.type)
        ? unionBranches(field.type)
        : { optional: false, branches: [field.type] };
      const valueSchema = this.schema(branches.length === 1 ? branches[0]! : branches, namespace);
      properties[field.name] = { ...valueSchema, ...(field.doc ? { description: field.doc } : {}) };
      if (!optional) required.push(field.name);
    }
    const atLeastOneOf = schema.atLeastOneOf as string[] | undefined;
    const currencyAmount = schema.currencyAmount as { value: string; currency: string } | undefined;
    return compact({
      title: schema.name,
      description: schema.doc,
      type: 'object',
      properties,
      required: required.length > 0 ? required : undefined,
      additionalProperties: false,
      anyOf: atLeastOneOf?.map((name) => ({ required: [name] })),
      'x-currency-amount': currencyAmount,
    });
  }

  #primitive(schema: RawObjectSchema): JsonSchema {
    const { type, logicalType } = schema;
    if (type === 'bytes' && logicalType === 'decimal') return this.#decimal(schema);
    if (type === 'int' && logicalType === 'date') return { type: 'string', format: 'date' };
    switch (type) {
      case 'string':
        return compact({
          type: 'string',
          const: schema.const,
          format: logicalType === 'uuid' ? 'uuid' : schema.format,
          minLength: schema.minLength,
          maxLength: schema.maxLength,
          pattern: schema.pattern,
          examples: schema.examples,
        });
      case 'int':
        return { type: 'integer', ...int32, ...bounds(schema) };
      case 'long':
        return { type: 'integer', ...safeInteger, ...bounds(schema) };
      case 'float':
      case 'double':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'null':
        return { type: 'null' };
      default:
        return { type: 'string', contentEncoding: 'base64' };
    }
  }

  #decimal(schema: RawObjectSchema): JsonSchema {
    const decimal = compact({
      precision: schema.precision,
      scale: schema.scale,
      maxDecimalPlaces: schema.maxDecimalPlaces,
    });
    if (this.#options.flavour === 'validator') {
      return { 'x-decimal': compact({ ...decimal, minimum: schema.minimum }) };
    }
    return compact({ type: 'number', minimum: schema.minimum, 'x-decimal': decimal });
  }
}

function isNamed(schema: RawObjectSchema): boolean {
  return (
    schema.type === 'record' || schema.type === 'enum' || schema.type === 'fixed' || schema.type === 'error'
  );
}

function bounds(schema: RawObjectSchema): JsonSchema {
  return compact({ minimum: schema.minimum, maximum: schema.maximum });
}

function compact(schema: Record<string, unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));
}

/** A self-contained JSON Schema document for one message, its named types under $defs. */
export function messageJsonSchema(set: SchemaSet, name: string, flavour: JsonSchemaFlavour): JsonSchema {
  const builder = new JsonSchemaBuilder(set, { refPrefix: '#/$defs/', flavour });
  const root = builder.message(name);
  const { schema } = set.message(name);
  return {
    $schema: jsonSchemaDialect,
    $id: `urn:rp:contracts:${name}`,
    title: name,
    ...(isObjectSchema(schema) && schema.doc ? { description: schema.doc } : {}),
    ...root,
    $defs: builder.definitions(),
  };
}
