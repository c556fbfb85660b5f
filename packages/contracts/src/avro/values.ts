import type avro from 'avsc';
import { contractError } from '../errors.ts';

/**
 * Conversion between the plain-JSON shape the generated TypeScript types describe (optional members
 * absent, unions bare, decimals as strings) and the values avsc reads and writes (every field present,
 * null for absent, wrapped unions keyed by branch name).
 */

/** For each record full name, the fields with a constant value (schema: "DirectDebit"), which tell union branches apart. */
export type Discriminators = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

interface RecordTypeLike extends avro.Type {
  fields: { name: string; type: avro.Type }[];
}
interface UnionTypeLike extends avro.Type {
  types: avro.Type[];
}

const isRecord = (type: avro.Type): type is RecordTypeLike => type.typeName === 'record';
const isUnion = (type: avro.Type): type is UnionTypeLike => type.typeName.startsWith('union:');
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What each type's conversion looks up, computed once per type rather than per message: a record's
 * member names, a union's non-null branches and wrapped-branch names, a branch's kind.
 */
const memberNames = new WeakMap<avro.Type, ReadonlySet<string>>();
const unionBranches = new WeakMap<avro.Type, readonly avro.Type[]>();
const wrappedBranches = new WeakMap<avro.Type, ReadonlyMap<string, avro.Type>>();
const branchKinds = new WeakMap<avro.Type, string>();

function membersOf(type: RecordTypeLike): ReadonlySet<string> {
  let names = memberNames.get(type);
  if (names === undefined) {
    names = new Set(type.fields.map((field) => field.name));
    memberNames.set(type, names);
  }
  return names;
}

function nonNullBranches(type: UnionTypeLike): readonly avro.Type[] {
  let branches = unionBranches.get(type);
  if (branches === undefined) {
    branches = type.types.filter((branch) => branch.typeName !== 'null');
    unionBranches.set(type, branches);
  }
  return branches;
}

function wrappedBranch(type: UnionTypeLike, branchName: string): avro.Type | undefined {
  let byName = wrappedBranches.get(type);
  if (byName === undefined) {
    byName = new Map(type.types.map((branch) => [branch.branchName as string, branch]));
    wrappedBranches.set(type, byName);
  }
  return byName.get(branchName);
}

function invalid(path: string, detail: string): never {
  throw contractError('INVALID_MESSAGE', `${path || '/'}: ${detail}`);
}

export function toAvroValue(
  type: avro.Type,
  value: unknown,
  discriminators: Discriminators,
  path = '',
): unknown {
  if (isUnion(type)) return unionToAvro(type, value, discriminators, path);
  if (isRecord(type)) {
    if (!isPlainObject(value)) invalid(path, `must be an object (${type.name})`);
    const known = membersOf(type);
    for (const key of Object.keys(value)) {
      if (!known.has(key)) invalid(`${path}/${key}`, `is not a member of ${type.name}`);
    }
    const record: Record<string, unknown> = {};
    for (const field of type.fields) {
      const member = value[field.name];
      if (member === undefined && !(isUnion(field.type) && acceptsNull(field.type))) {
        invalid(`${path}/${field.name}`, 'is required');
      }
      record[field.name] = toAvroValue(field.type, member, discriminators, `${path}/${field.name}`);
    }
    return record;
  }
  switch (type.typeName) {
    case 'array': {
      if (!Array.isArray(value)) invalid(path, 'must be an array');
      const items = (type as unknown as { itemsType: avro.Type }).itemsType;
      return value.map((item, index) => toAvroValue(items, item, discriminators, `${path}/${index}`));
    }
    case 'map': {
      if (!isPlainObject(value)) invalid(path, 'must be an object');
      const values = (type as unknown as { valuesType: avro.Type }).valuesType;
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          toAvroValue(values, item, discriminators, `${path}/${key}`),
        ]),
      );
    }
    default:
      return value;
  }
}

export function fromAvroValue(type: avro.Type, value: unknown): unknown {
  if (isUnion(type)) {
    if (value === null) return undefined;
    if (type.typeName === 'union:wrapped') {
      const [branchName, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
      const branch = branchName === undefined ? undefined : wrappedBranch(type, branchName);
      if (!branch) throw contractError('INVALID_MESSAGE', `unknown union branch ${String(branchName)}`);
      return fromAvroValue(branch, inner);
    }
    return fromAvroValue(unwrappedBranch(type, value), value);
  }
  if (isRecord(type)) {
    const source = value as Record<string, unknown>;
    const plain: Record<string, unknown> = {};
    for (const field of type.fields) {
      const member = fromAvroValue(field.type, source[field.name]);
      if (member !== undefined) plain[field.name] = member;
    }
    return plain;
  }
  switch (type.typeName) {
    case 'array': {
      const items = (type as unknown as { itemsType: avro.Type }).itemsType;
      return (value as unknown[]).map((item) => fromAvroValue(items, item));
    }
    case 'map': {
      const values = (type as unknown as { valuesType: avro.Type }).valuesType;
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          fromAvroValue(values, item),
        ]),
      );
    }
    default:
      return value;
  }
}

function acceptsNull(union: UnionTypeLike): boolean {
  return nonNullBranches(union).length < union.types.length;
}

function unionToAvro(
  type: UnionTypeLike,
  value: unknown,
  discriminators: Discriminators,
  path: string,
): unknown {
  if (value === undefined || value === null) {
    if (acceptsNull(type)) return null;
    invalid(path, 'is required');
  }
  const branch = chooseBranch(type, value, discriminators, path);
  const converted = toAvroValue(branch, value, discriminators, path);
  return type.typeName === 'union:wrapped' ? { [branch.branchName as string]: converted } : converted;
}

function chooseBranch(
  type: UnionTypeLike,
  value: unknown,
  discriminators: Discriminators,
  path: string,
): avro.Type {
  const candidates = nonNullBranches(type).filter((branch) => fitsKind(branch, value));
  if (candidates.length === 1) return candidates[0]!;
  const records = candidates.filter(isRecord);
  if (records.length > 0 && isPlainObject(value)) {
    const matching = records.filter((record) =>
      Object.entries(discriminators.get(record.name ?? '') ?? {}).every(
        ([field, constant]) => value[field] === constant,
      ),
    );
    if (matching.length === 1) return matching[0]!;
    const names = records.map((record) => record.name).join(', ');
    invalid(path, `does not identify one of ${names} (check its constant members such as schema or class)`);
  }
  if (candidates.length > 0) return candidates[0]!;
  invalid(path, `does not match any of ${type.types.map((branch) => branch.branchName).join(', ')}`);
}

/** A branch's kind: its type name, or for a logical type its underlying one (decimals and dates: strings). */
function kindOf(branch: avro.Type): string {
  let kind = branchKinds.get(branch);
  if (kind === undefined) {
    const typeName = branch.typeName;
    kind =
      typeName === 'logical:decimal' || typeName === 'logical:date'
        ? 'string'
        : typeName.startsWith('logical:')
          ? (branch as unknown as { underlyingType: avro.Type }).underlyingType.typeName
          : typeName;
    branchKinds.set(branch, kind);
  }
  return kind;
}

/** Whether a JavaScript value has the shape of a branch, before looking inside it. */
function fitsKind(branch: avro.Type, value: unknown): boolean {
  switch (kindOf(branch)) {
    case 'string':
    case 'enum':
      return typeof value === 'string';
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'bytes':
    case 'fixed':
      return Buffer.isBuffer(value);
    case 'array':
      return Array.isArray(value);
    case 'record':
    case 'map':
      return isPlainObject(value);
    default:
      return false;
  }
}

function unwrappedBranch(type: UnionTypeLike, value: unknown): avro.Type {
  return nonNullBranches(type).find((branch) => fitsKind(branch, value)) ?? type.types[0]!;
}

/**
 * Copies a plain message, replacing every value of the given logical type (decimal, say) by `replace`'s
 * result: how amounts become JSON number tokens on the way out.
 */
export function mapLogicalValues(
  type: avro.Type,
  value: unknown,
  discriminators: Discriminators,
  logicalType: string,
  replace: (value: unknown) => unknown,
): unknown {
  if (value === undefined || value === null) return value;
  if (type.typeName === `logical:${logicalType}`) return replace(value);
  const recurse = (inner: avro.Type, item: unknown) =>
    mapLogicalValues(inner, item, discriminators, logicalType, replace);
  if (isUnion(type)) return recurse(chooseBranch(type, value, discriminators, ''), value);
  if (isRecord(type)) {
    if (!isPlainObject(value)) return value;
    const copy: Record<string, unknown> = { ...value };
    for (const field of type.fields) {
      if (copy[field.name] !== undefined) copy[field.name] = recurse(field.type, copy[field.name]);
    }
    return copy;
  }
  switch (type.typeName) {
    case 'array':
      return Array.isArray(value)
        ? value.map((item) => recurse((type as unknown as { itemsType: avro.Type }).itemsType, item))
        : value;
    case 'map':
      return isPlainObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([key, item]) => [
              key,
              recurse((type as unknown as { valuesType: avro.Type }).valuesType, item),
            ]),
          )
        : value;
    default:
      return value;
  }
}
