import {
  isObjectSchema,
  primitiveTypes,
  qualify,
  type RawObjectSchema,
  type RawSchema,
  shortName,
  unionBranches,
} from '../../src/avro/raw-schema.ts';
import type { SchemaSet } from '../../src/avro/schema-set.ts';

/**
 * TypeScript types of every schema: the plain-JSON shapes code works with (optional members as optional
 * properties, unions bare, amounts as decimal strings, dates as strings), not avsc's internal values.
 */
export function renderTypes(set: SchemaSet): string {
  const out: string[] = [
    '// Generated from avro/**/*.avsc by packages/contracts/scripts/generate.ts. Do not edit: change the .avsc',
    '// files and run `npm run generate -w @rp/contracts`.',
    '',
    "import type { DecimalString, IsoDate, IsoDateTime, Uuid } from '../scalars.ts';",
    '',
  ];
  const definitions = [...set.definitions.values()].sort((a, b) =>
    shortName(a.fullName).localeCompare(shortName(b.fullName)),
  );
  for (const { fullName, schema } of definitions) {
    const namespace = fullName.slice(0, fullName.lastIndexOf('.'));
    const name = shortName(fullName);
    out.push(...docComment(schema.doc, ''));
    if (schema.type === 'enum') {
      const symbols = schema.symbols ?? [];
      out.push(`export type ${name} = ${symbols.map((symbol) => `'${symbol}'`).join(' | ')};`, '');
      out.push(
        `export const ${lowerFirst(name)}Symbols = [${symbols.map((s) => `'${s}'`).join(', ')}] as const satisfies readonly ${name}[];`,
        '',
      );
      continue;
    }
    out.push(`export interface ${name} {`);
    for (const field of schema.fields ?? []) {
      const { optional, branches } = Array.isArray(field.type)
        ? unionBranches(field.type)
        : { optional: false, branches: [field.type] };
      out.push(...docComment(field.doc, '  '));
      out.push(`  ${field.name}${optional ? '?' : ''}: ${typeOf(branches, namespace)};`);
    }
    out.push('}', '');
  }

  const messages = set.messages;
  for (const message of messages) {
    if (isObjectSchema(message.schema)) continue;
    out.push(`/** One of: ${describeUnion(message.schema)}. */`);
    out.push(`export type ${message.name} = ${typeOf(message.schema, undefined)};`, '');
  }
  out.push('/** Every top-level schema: Kafka messages (avro/*.avsc) and HTTP bodies (avro/http/*.avsc). */');
  out.push(`export type MessageName = ${messages.map((message) => `'${message.name}'`).join(' | ')};`, '');
  out.push(
    `export const messageNames = [${messages.map((message) => `'${message.name}'`).join(', ')}] as const satisfies readonly MessageName[];`,
    '',
  );
  out.push('/** The plain-JSON type of each message by name. */');
  out.push('export interface Messages {');
  for (const message of messages) out.push(`  ${message.name}: ${message.name};`);
  out.push('}', '');
  return out.join('\n');
}

function describeUnion(schema: RawSchema): string {
  return Array.isArray(schema) ? schema.map((branch) => shortName(String(branch))).join(', ') : '';
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function docComment(doc: string | undefined, indent: string): string[] {
  if (!doc) return [];
  return [`${indent}/** ${doc.replace(/\*\//g, '* /')} */`];
}

function typeOf(schema: RawSchema | RawSchema[], namespace: string | undefined): string {
  if (Array.isArray(schema)) {
    const types = schema.map((branch) => typeOf(branch, namespace));
    return types.length === 1 ? types[0]! : types.join(' | ');
  }
  if (typeof schema === 'string') {
    if (primitiveTypes.has(schema)) return primitive(schema);
    return shortName(qualify(schema, namespace));
  }
  return objectType(schema, namespace);
}

function objectType(schema: RawObjectSchema, namespace: string | undefined): string {
  switch (schema.type) {
    case 'record':
    case 'enum':
    case 'fixed':
      return shortName(qualify(schema.name ?? '', schema.namespace ?? namespace));
    case 'array': {
      const items = typeOf(schema.items ?? 'null', namespace);
      return items.includes(' ') ? `(${items})[]` : `${items}[]`;
    }
    case 'map':
      return `Record<string, ${typeOf(schema.values ?? 'null', namespace)}>`;
    case 'string':
      if (typeof schema.const === 'string') return `'${schema.const}'`;
      if (schema.logicalType === 'uuid') return 'Uuid';
      if (schema.format === 'date-time') return 'IsoDateTime';
      return 'string';
    case 'int':
      return schema.logicalType === 'date' ? 'IsoDate' : 'number';
    case 'bytes':
      return schema.logicalType === 'decimal' ? 'DecimalString' : 'Uint8Array';
    default:
      return typeof schema.type === 'string' && primitiveTypes.has(schema.type)
        ? primitive(schema.type)
        : typeOf(schema.type, namespace);
  }
}

function primitive(type: string): string {
  switch (type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'bytes':
      return 'Uint8Array';
    default:
      return 'number';
  }
}
