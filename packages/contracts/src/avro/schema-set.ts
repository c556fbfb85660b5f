import avro from 'avsc';
import { contractError } from '../errors.ts';
import { avroTypeOptions } from './logical-types.ts';
import {
  type AvroFile,
  constraintAttributes,
  isObjectSchema,
  primitiveTypes,
  qualify,
  type RawField,
  type RawObjectSchema,
  type RawSchema,
  shortName,
  standardAttributes,
} from './raw-schema.ts';

/** Where a top-level schema lives: Kafka messages at the top of avro/, HTTP-only bodies under avro/http/. */
export type MessageKind = 'message' | 'http';

interface Definition {
  fullName: string;
  schema: RawObjectSchema;
  file: string;
}

interface MessageEntry {
  name: string;
  kind: MessageKind;
  file: string;
  schema: RawSchema;
}

/**
 * Every .avsc file of the project assembled: named types defined once (avro/types/*.avsc) and
 * referenced by full name, parsed by avsc in dependency order into one shared registry.
 */
export interface SchemaSet {
  /** Top-level schemas by name (the file's base name), in file order. */
  readonly messages: readonly MessageEntry[];
  /** Every named type's raw definition by full name (za.rp.v1.Amount). */
  readonly definitions: ReadonlyMap<string, Definition>;
  /** The avsc registry: every named type by full name. */
  readonly registry: Readonly<Record<string, avro.Type>>;
  message(name: string): MessageEntry;
  /** avsc type of a top-level schema. */
  type(name: string): avro.Type;
  /** Raw definition of a named type. */
  definition(fullName: string): Definition;
  /** The schema with every named type it uses defined inline at its first use: what a schema registry stores. */
  expand(name: string): RawSchema;
}

export function assembleSchemas(files: readonly AvroFile[]): SchemaSet {
  const definitions = new Map<string, Definition>();
  const shortNames = new Map<string, string>();
  const messages: MessageEntry[] = [];

  for (const file of files) {
    const base = file.path.replace(/^.*\//, '').replace(/\.avsc$/, '');
    const folder = file.path.includes('/') ? file.path.slice(0, file.path.indexOf('/')) : '';
    collectDefinitions(file.schema, undefined, file.path, (definition) => {
      if (definitions.has(definition.fullName))
        fail(`${definition.fullName} is defined twice (${file.path})`);
      const short = shortName(definition.fullName);
      const other = shortNames.get(short);
      if (other) fail(`${definition.fullName} and ${other} share the short name ${short}`);
      shortNames.set(short, definition.fullName);
      definitions.set(definition.fullName, definition);
    });
    const top = file.schema;
    if (isObjectSchema(top) && top.name !== base) fail(`${file.path} must define ${base}, not ${top.name}`);
    if (folder === '' || folder === 'http') {
      messages.push({
        name: base,
        kind: folder === 'http' ? 'http' : 'message',
        file: file.path,
        schema: top,
      });
    } else if (folder !== 'types') {
      fail(`${file.path}: .avsc files live in avro/, avro/types/ or avro/http/`);
    }
  }

  for (const definition of definitions.values()) lintDefinition(definition);

  const registry: Record<string, avro.Type> = {};
  const messageTypes = new Map<string, avro.Type>();
  const parsed = new Set<string>();
  const parse = (fullName: string, trail: string[]): void => {
    if (parsed.has(fullName)) return;
    if (trail.includes(fullName))
      fail(`recursive types are not supported: ${[...trail, fullName].join(' -> ')}`);
    const definition = definitions.get(fullName);
    if (!definition) fail(`${trail.at(-1) ?? 'a schema'} refers to the undefined type ${fullName}`);
    for (const dependency of references(definition.schema, namespaceOf(definition.fullName))) {
      if (!nested(definition.schema, dependency)) parse(dependency, [...trail, fullName]);
    }
    if (!registry[fullName]) {
      try {
        avro.Type.forSchema(definition.schema as avro.Schema, { ...avroTypeOptions(), registry });
      } catch (cause) {
        fail(`${definition.file}: ${(cause as Error).message}`, cause);
      }
    }
    parsed.add(fullName);
  };
  for (const definition of definitions.values()) parse(definition.fullName, []);
  for (const message of messages) {
    if (isObjectSchema(message.schema)) {
      messageTypes.set(message.name, registry[qualify(message.schema.name ?? '', message.schema.namespace)]!);
    } else {
      for (const dependency of references(message.schema, undefined)) parse(dependency, [message.name]);
      messageTypes.set(
        message.name,
        avro.Type.forSchema(message.schema as avro.Schema, { ...avroTypeOptions(), registry }),
      );
    }
  }

  const set: SchemaSet = {
    messages,
    definitions,
    registry,
    message(name) {
      const entry = messages.find((candidate) => candidate.name === name);
      if (!entry) fail(`no top-level schema named ${name}`);
      return entry;
    },
    type(name) {
      set.message(name);
      return messageTypes.get(name)!;
    },
    definition(fullName) {
      const definition = definitions.get(fullName);
      if (!definition) fail(`no named type ${fullName}`);
      return definition;
    },
    expand(name) {
      return expandSchema(set.message(name).schema, undefined, new Set(), definitions);
    },
  };
  return set;
}

function fail(message: string, cause?: unknown): never {
  throw contractError('INVALID_SCHEMA', message, { cause });
}

function namespaceOf(fullName: string): string | undefined {
  const dot = fullName.lastIndexOf('.');
  return dot < 0 ? undefined : fullName.slice(0, dot);
}

function isNamedKind(type: RawSchema): boolean {
  return type === 'record' || type === 'error' || type === 'enum' || type === 'fixed';
}

/** Calls `found` for every named type defined in `schema`, including nested definitions. */
function collectDefinitions(
  schema: RawSchema,
  namespace: string | undefined,
  file: string,
  found: (definition: Definition) => void,
): void {
  if (typeof schema === 'string') return;
  if (Array.isArray(schema)) {
    for (const branch of schema) collectDefinitions(branch, namespace, file, found);
    return;
  }
  let inner = namespace;
  if (isNamedKind(schema.type)) {
    if (!schema.name) fail(`${file}: a ${String(schema.type)} needs a name`);
    const fullName = qualify(schema.name, schema.namespace ?? namespace);
    inner = namespaceOf(fullName);
    found({ fullName, schema, file });
  }
  for (const child of childSchemas(schema)) collectDefinitions(child, inner, file, found);
}

/** The schemas directly inside an object schema: field types, array items, map values, or a wrapped type. */
function childSchemas(schema: RawObjectSchema): RawSchema[] {
  switch (schema.type) {
    case 'record':
    case 'error':
      return (schema.fields ?? []).map((field) => field.type);
    case 'array':
      return schema.items === undefined ? [] : [schema.items];
    case 'map':
      return schema.values === undefined ? [] : [schema.values];
    case 'enum':
    case 'fixed':
      return [];
    default:
      return typeof schema.type === 'string' && primitiveTypes.has(schema.type) ? [] : [schema.type];
  }
}

/** Full names of the named types `schema` refers to by name. */
function references(schema: RawSchema, namespace: string | undefined): Set<string> {
  const found = new Set<string>();
  const walk = (node: RawSchema, context: string | undefined): void => {
    if (typeof node === 'string') {
      if (!primitiveTypes.has(node)) found.add(qualify(node, context));
      return;
    }
    if (Array.isArray(node)) {
      for (const branch of node) walk(branch, context);
      return;
    }
    let inner = context;
    if (isNamedKind(node.type) && node.name)
      inner = namespaceOf(qualify(node.name, node.namespace ?? context));
    for (const child of childSchemas(node)) walk(child, inner);
  };
  walk(schema, namespace);
  return found;
}

/** Whether `fullName` is defined inside `schema` itself (a nested definition, not a dependency). */
function nested(schema: RawObjectSchema, fullName: string): boolean {
  let inside = false;
  for (const child of childSchemas(schema)) {
    collectDefinitions(child, namespaceOf(qualify(schema.name ?? '', schema.namespace)), '', (definition) => {
      if (definition.fullName === fullName) inside = true;
    });
  }
  return inside;
}

function expandSchema(
  schema: RawSchema,
  namespace: string | undefined,
  defined: Set<string>,
  definitions: ReadonlyMap<string, Definition>,
): RawSchema {
  if (typeof schema === 'string') {
    if (primitiveTypes.has(schema)) return schema;
    const fullName = qualify(schema, namespace);
    if (defined.has(fullName)) return fullName;
    const definition = definitions.get(fullName);
    if (!definition) fail(`undefined type ${fullName}`);
    return expandSchema(definition.schema, namespaceOf(fullName), defined, definitions);
  }
  if (Array.isArray(schema))
    return schema.map((branch) => expandSchema(branch, namespace, defined, definitions));
  const copy: RawObjectSchema = { ...schema };
  let inner = namespace;
  if (isNamedKind(schema.type) && schema.name) {
    const fullName = qualify(schema.name, schema.namespace ?? namespace);
    defined.add(fullName);
    inner = namespaceOf(fullName);
    if (inner) copy.namespace = inner;
  }
  switch (schema.type) {
    case 'record':
    case 'error':
      copy.fields = (schema.fields ?? []).map(
        (field): RawField => ({ ...field, type: expandSchema(field.type, inner, defined, definitions) }),
      );
      break;
    case 'array':
      if (schema.items !== undefined) copy.items = expandSchema(schema.items, inner, defined, definitions);
      break;
    case 'map':
      if (schema.values !== undefined) copy.values = expandSchema(schema.values, inner, defined, definitions);
      break;
    default:
      if (
        !isNamedKind(schema.type) &&
        !(typeof schema.type === 'string' && primitiveTypes.has(schema.type))
      ) {
        copy.type = expandSchema(schema.type, inner, defined, definitions);
      }
  }
  return copy;
}

/** Checks the project's conventions that avsc does not: optional fields, known attributes, their targets. */
function lintDefinition(definition: Definition): void {
  const where = `${definition.file} (${definition.fullName})`;
  const checkAttributes = (schema: RawObjectSchema, at: string): void => {
    const kind = typeof schema.type === 'string' ? schema.type : undefined;
    const allowed = kind === undefined ? undefined : constraintAttributes[kind];
    for (const key of Object.keys(schema)) {
      if (standardAttributes.has(key) || (kind === 'enum' && key === 'default')) continue;
      if (!allowed?.includes(key))
        fail(`${where}: attribute ${key} is not supported on ${kind ?? 'this type'} (${at})`);
    }
  };
  const walk = (schema: RawSchema, at: string): void => {
    if (typeof schema === 'string') return;
    if (Array.isArray(schema)) {
      schema.forEach((branch, index) => {
        walk(branch, `${at}[${index}]`);
      });
      return;
    }
    if (at !== definition.fullName && isNamedKind(schema.type)) return;
    checkAttributes(schema, at);
    if (schema.type === 'record') {
      const names = new Set((schema.fields ?? []).map((field) => field.name));
      const atLeastOneOf = schema.atLeastOneOf;
      if (atLeastOneOf !== undefined) {
        if (!Array.isArray(atLeastOneOf) || atLeastOneOf.some((name) => !names.has(name as string))) {
          fail(`${where}: atLeastOneOf must list fields of the record`);
        }
      }
      for (const field of schema.fields ?? []) {
        const fieldAt = `${at}.${field.name}`;
        if (Array.isArray(field.type) && field.type.includes('null')) {
          if (field.type[0] !== 'null' || field.default !== null) {
            fail(`${where}: optional field ${field.name} must be ["null", ...] with default null`);
          }
        }
        for (const key of Object.keys(field)) {
          if (!['name', 'type', 'doc', 'default', 'aliases', 'order'].includes(key)) {
            fail(`${where}: put attribute ${key} on the type of ${fieldAt}, not on the field`);
          }
        }
        walk(field.type, fieldAt);
      }
    }
    for (const child of schema.type === 'record' ? [] : childSchemas(schema)) walk(child, at);
  };
  walk(definition.schema, definition.fullName);
}
