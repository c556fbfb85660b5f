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

/**
 * The Avro value of a plain message. Converted by a function compiled once per type (see `compileToAvro`);
 * a value it refuses is walked again by `checkedToAvroValue`, which names the member at fault.
 */
export function toAvroValue(
  type: avro.Type,
  value: unknown,
  discriminators: Discriminators,
  path = '',
): unknown {
  const convert = compiled(toAvroCompiled, discriminators, type, () => compileToAvro(type, discriminators));
  try {
    return convert(value);
  } catch (error) {
    if (error !== mismatch) throw error;
  }
  return checkedToAvroValue(type, value, discriminators, path);
}

/** The plain shape of a decoded Avro value, by a function compiled once per type. */
export function fromAvroValue(type: avro.Type, value: unknown): unknown {
  let convert = fromAvroCompiled.get(type);
  if (convert === undefined) convert = compileFromAvro(type);
  return convert(value);
}

/**
 * The conversion as a walk of the type, naming the member at fault (`/creditor/name: is required`): the
 * error path of `toAvroValue`, and the reference its compiled functions are tested against.
 */
export function checkedToAvroValue(
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
      record[field.name] = checkedToAvroValue(field.type, member, discriminators, `${path}/${field.name}`);
    }
    return record;
  }
  switch (type.typeName) {
    case 'array': {
      if (!Array.isArray(value)) invalid(path, 'must be an array');
      const items = (type as unknown as { itemsType: avro.Type }).itemsType;
      return value.map((item, index) => checkedToAvroValue(items, item, discriminators, `${path}/${index}`));
    }
    case 'map': {
      if (!isPlainObject(value)) invalid(path, 'must be an object');
      const values = (type as unknown as { valuesType: avro.Type }).valuesType;
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          checkedToAvroValue(values, item, discriminators, `${path}/${key}`),
        ]),
      );
    }
    default:
      return value;
  }
}

/** `fromAvroValue` as a walk of the type: the reference its compiled functions are tested against. */
export function walkFromAvroValue(type: avro.Type, value: unknown): unknown {
  if (isUnion(type)) {
    if (value === null) return undefined;
    if (type.typeName === 'union:wrapped') {
      const [branchName, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
      const branch = branchName === undefined ? undefined : wrappedBranch(type, branchName);
      if (!branch) throw contractError('INVALID_MESSAGE', `unknown union branch ${String(branchName)}`);
      return walkFromAvroValue(branch, inner);
    }
    return walkFromAvroValue(unwrappedBranch(type, value), value);
  }
  if (isRecord(type)) {
    const source = value as Record<string, unknown>;
    const plain: Record<string, unknown> = {};
    for (const field of type.fields) {
      const member = walkFromAvroValue(field.type, source[field.name]);
      if (member !== undefined) plain[field.name] = member;
    }
    return plain;
  }
  switch (type.typeName) {
    case 'array': {
      const items = (type as unknown as { itemsType: avro.Type }).itemsType;
      return (value as unknown[]).map((item) => walkFromAvroValue(items, item));
    }
    case 'map': {
      const values = (type as unknown as { valuesType: avro.Type }).valuesType;
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          walkFromAvroValue(values, item),
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
  const converted = checkedToAvroValue(branch, value, discriminators, path);
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
 * result: how amounts become JSON number tokens on the way out. Parts that hold neither that type nor a
 * union are shared with the message, not copied. Compiled once per type; a value the compiled function
 * refuses is walked again, which says what is wrong.
 */
export function mapLogicalValues(
  type: avro.Type,
  value: unknown,
  discriminators: Discriminators,
  logicalType: string,
  replace: (value: unknown) => unknown,
): unknown {
  let byLogical = logicalCompiled.get(discriminators);
  if (byLogical === undefined) {
    byLogical = new Map();
    logicalCompiled.set(discriminators, byLogical);
  }
  let byType = byLogical.get(logicalType);
  if (byType === undefined) {
    byType = new WeakMap();
    byLogical.set(logicalType, byType);
  }
  const map = byType.get(type) ?? compileLogicalMap(type, discriminators, logicalType, byType);
  try {
    return map(value, replace);
  } catch (error) {
    if (error !== mismatch) throw error;
  }
  return walkLogicalValues(type, value, discriminators, logicalType, replace);
}

/** `mapLogicalValues` as a walk of the type: its error path, and the reference its compiled functions are tested against. */
export function walkLogicalValues(
  type: avro.Type,
  value: unknown,
  discriminators: Discriminators,
  logicalType: string,
  replace: (value: unknown) => unknown,
): unknown {
  if (value === undefined || value === null) return value;
  if (type.typeName === `logical:${logicalType}`) return replace(value);
  const recurse = (inner: avro.Type, item: unknown) =>
    walkLogicalValues(inner, item, discriminators, logicalType, replace);
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

/*
 * Compiled conversions. The walks above look up every type's kind, members and branches for every value,
 * and build a path string for every member in case it is at fault: per message, hundreds of lookups and
 * strings that are thrown away. The functions below are built once per type: each holds its members'
 * converters, a union's branches by JavaScript kind, a record's known member names. A value they refuse
 * throws `mismatch` (no message, no stack), and the walk runs again to say what is wrong.
 */

type Convert = (value: unknown) => unknown;

/** Thrown by a compiled `toAvroValue` on a value the walk would refuse: not an Error, nothing to build. */
const mismatch: unique symbol = Symbol('mismatch');

const toAvroCompiled = new WeakMap<Discriminators, WeakMap<avro.Type, Convert>>();
const fromAvroCompiled = new WeakMap<avro.Type, Convert>();
const logicalCompiled = new WeakMap<Discriminators, Map<string, WeakMap<avro.Type, LogicalMap>>>();

function compiled<T>(
  cache: WeakMap<Discriminators, WeakMap<avro.Type, T>>,
  discriminators: Discriminators,
  type: avro.Type,
  compile: () => T,
): T {
  let byType = cache.get(discriminators);
  if (byType === undefined) {
    byType = new WeakMap();
    cache.set(discriminators, byType);
  }
  let convert = byType.get(type);
  if (convert === undefined) {
    convert = compile();
    byType.set(type, convert);
  }
  return convert;
}

/** A value's kind as `fitsKind` tells branches apart. */
type JsKind = 'string' | 'number' | 'boolean' | 'buffer' | 'array' | 'object' | 'other';

function jsKind(value: unknown): JsKind {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      if (value === null) return 'other';
      if (Array.isArray(value)) return 'array';
      return Buffer.isBuffer(value) ? 'buffer' : 'object';
    default:
      return 'other';
  }
}

const jsKinds: readonly JsKind[] = ['string', 'number', 'boolean', 'buffer', 'array', 'object', 'other'];

/** A sample value of each kind, to ask `fitsKind` which branches take it. */
const kindSamples: Readonly<Record<JsKind, unknown>> = {
  string: '',
  number: 0,
  boolean: false,
  buffer: Buffer.alloc(0),
  array: [],
  object: {},
  other: undefined,
};

/**
 * A converter that may refer to itself (a recursive named type): registered before its members are
 * compiled, it calls the finished function once there is one.
 */
function deferred<F extends (...args: never[]) => unknown>(
  register: (convert: F) => void,
  build: () => F,
): F {
  let built: F | undefined;
  const forward = ((...args: Parameters<F>) => (built as F)(...args)) as F;
  register(forward);
  built = build();
  register(built);
  return built;
}

function compileToAvro(type: avro.Type, discriminators: Discriminators): Convert {
  const byType = toAvroCompiled.get(discriminators) ?? new WeakMap<avro.Type, Convert>();
  toAvroCompiled.set(discriminators, byType);
  const member = (inner: avro.Type): Convert => byType.get(inner) ?? compileToAvro(inner, discriminators);
  return deferred(
    (convert) => byType.set(type, convert),
    () => {
      if (isUnion(type)) return unionToAvroCompiled(type, discriminators, member);
      if (isRecord(type)) {
        const fields = type.fields.map((field) => ({
          name: field.name,
          optional: isUnion(field.type) && acceptsNull(field.type),
          convert: member(field.type),
        }));
        return recordToAvro(fields);
      }
      switch (type.typeName) {
        case 'array': {
          const items = member((type as unknown as { itemsType: avro.Type }).itemsType);
          // Items avsc takes as they are: the array itself (avsc only reads it).
          if (items === unchanged)
            return (value) => {
              if (!Array.isArray(value)) throw mismatch;
              return value;
            };
          return (value) => {
            if (!Array.isArray(value)) throw mismatch;
            return value.map((item) => items(item));
          };
        }
        case 'map': {
          const values = member((type as unknown as { valuesType: avro.Type }).valuesType);
          return (value) => {
            if (!isPlainObject(value)) throw mismatch;
            return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, values(item)]));
          };
        }
        default:
          return unchanged;
      }
    },
  );
}

/** The conversion of a type whose values avsc takes as they are (primitives, enums, fixed, logical types). */
const unchanged: Convert = (value) => value;

/**
 * Avro's names (avsc refuses a field named otherwise): safe to write into generated code as they are,
 * except `__proto__`, which a literal would take for the object's prototype.
 */
const avroName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The fields' names, each checked to be one that generated code may hold as it is. */
function codeNames(fields: readonly FieldConversion[]): void {
  for (const { name } of fields) {
    if (!avroName.test(name) || name === '__proto__') {
      throw contractError('INVALID_SCHEMA', `field name ${JSON.stringify(name)} is not an Avro name`);
    }
  }
}

interface FieldConversion {
  readonly name: string;
  /** The member may be absent (its type is a union with null). */
  readonly optional?: boolean;
  readonly convert: Convert;
}

/**
 * A record's conversion, generated as code for its fields, as avsc generates its own readers and writers:
 * each member read by name, the record built as one object literal of a fixed shape, a member whose
 * values are taken as they are not passed through a call, and unknown members found by a `switch` on
 * the names. It does what the walk in `checkedToAvroValue` does (tested against it).
 */
function recordToAvro(fields: readonly FieldConversion[]): Convert {
  codeNames(fields);
  const converted = (field: FieldConversion, index: number) =>
    field.convert === unchanged ? `v${index}` : `c${index}(v${index})`;
  const body = [
    "if (typeof value !== 'object' || value === null || Array.isArray(value)) throw mismatch;",
    'for (const key in value) {',
    '  switch (key) {',
    // A record without fields has no case: every own member is unknown.
    ...(fields.length === 0
      ? []
      : [`    ${fields.map((field) => `case '${field.name}':`).join(' ')} break;`]),
    '    default: if (Object.hasOwn(value, key)) throw mismatch;',
    '  }',
    '}',
    ...fields.flatMap((field, index) => [
      `const v${index} = value.${field.name};`,
      ...(field.optional ? [] : [`if (v${index} === undefined) throw mismatch;`]),
    ]),
    `return { ${fields.map((field, index) => `${field.name}: ${converted(field, index)}`).join(', ')} };`,
  ];
  return generated(fields, body);
}

/**
 * A decoded record's plain shape, generated like `recordToAvro`: a member avsc decoded as null (an absent
 * optional member) is left out.
 */
function recordFromAvro(fields: readonly FieldConversion[]): Convert {
  codeNames(fields);
  const body = [
    'const plain = {};',
    'let item;',
    ...fields.map((field, index) => {
      const read = `value.${field.name}`;
      const item = field.convert === unchanged ? read : `c${index}(${read})`;
      return `item = ${item}; if (item !== undefined) plain.${field.name} = item;`;
    }),
    'return plain;',
  ];
  return generated(fields, body);
}

/** `function (value) { body }`, with each field's conversion as `c<index>` and `mismatch` in scope. */
function generated(fields: readonly FieldConversion[], body: readonly string[]): Convert {
  const parameters = ['mismatch', ...fields.map((_, index) => `c${index}`)];
  const factory = new Function(...parameters, `return function (value) {\n${body.join('\n')}\n};`);
  return factory(mismatch, ...fields.map((field) => field.convert)) as Convert;
}

/**
 * How a union picks its branch for a value of each JavaScript kind, as `chooseBranch` does: the one
 * branch of that kind; among records, the one whose constant members the value carries; else the first.
 */
function unionToAvroCompiled(
  type: UnionTypeLike,
  discriminators: Discriminators,
  member: (inner: avro.Type) => Convert,
): Convert {
  const nullable = acceptsNull(type);
  const wrapped = type.typeName === 'union:wrapped';
  const wrap = (branch: avro.Type): Convert => {
    const convert = member(branch);
    if (!wrapped) return convert;
    const name = branch.branchName as string;
    return (value) => ({ [name]: convert(value) });
  };
  const byKind = branchesByKind(type, discriminators, wrap);
  return (value) => {
    if (value === undefined || value === null) {
      if (nullable) return null;
      throw mismatch;
    }
    const choose = byKind.get(jsKind(value));
    if (choose === undefined) throw mismatch;
    return choose(value)(value);
  };
}

/**
 * How a union picks its branch for a value of each JavaScript kind, as `chooseBranch` does: the one
 * branch of that kind; among records, the one whose constant members the value carries (none or two:
 * `mismatch`); else the first. `of` is what is kept for each branch (its converter).
 */
function branchesByKind<F>(
  type: UnionTypeLike,
  discriminators: Discriminators,
  of: (branch: avro.Type) => F,
): Map<JsKind, (value: unknown) => F> {
  const byKind = new Map<JsKind, (value: unknown) => F>();
  for (const kind of jsKinds) {
    const sample = kindSamples[kind];
    const candidates = nonNullBranches(type).filter((branch) => fitsKind(branch, sample));
    if (candidates.length === 0) continue;
    const records = candidates.filter(isRecord);
    if (candidates.length > 1 && records.length > 0 && isPlainObject(sample)) {
      const choices = records.map((record) => ({
        constants: Object.entries(discriminators.get(record.name ?? '') ?? {}),
        kept: of(record),
      }));
      byKind.set(kind, (value) => {
        const object = value as Record<string, unknown>;
        let chosen: { kept: F } | undefined;
        for (const choice of choices) {
          if (choice.constants.every(([field, constant]) => object[field] === constant)) {
            if (chosen !== undefined) throw mismatch;
            chosen = choice;
          }
        }
        if (chosen === undefined) throw mismatch;
        return chosen.kept;
      });
      continue;
    }
    const only = of(candidates[0] as avro.Type);
    byKind.set(kind, () => only);
  }
  return byKind;
}

function compileFromAvro(type: avro.Type): Convert {
  const member = (inner: avro.Type): Convert => fromAvroCompiled.get(inner) ?? compileFromAvro(inner);
  return deferred(
    (convert) => fromAvroCompiled.set(type, convert),
    () => {
      if (isUnion(type)) {
        if (type.typeName === 'union:wrapped') {
          const branches = new Map(type.types.map((branch) => [branch.branchName as string, member(branch)]));
          return (value) => {
            if (value === null) return undefined;
            let name: string | undefined;
            for (const key in value as Record<string, unknown>) {
              if (!Object.hasOwn(value as object, key)) continue;
              name = key;
              break;
            }
            const convert = name === undefined ? undefined : branches.get(name);
            if (convert === undefined)
              throw contractError('INVALID_MESSAGE', `unknown union branch ${String(name)}`);
            return convert((value as Record<string, unknown>)[name as string]);
          };
        }
        const byKind = new Map<JsKind, Convert>();
        for (const kind of jsKinds) {
          const sample = kindSamples[kind];
          const branch =
            nonNullBranches(type).find((candidate) => fitsKind(candidate, sample)) ?? type.types[0];
          if (branch !== undefined) byKind.set(kind, member(branch));
        }
        return (value) => {
          if (value === null) return undefined;
          return (byKind.get(jsKind(value)) as Convert)(value);
        };
      }
      if (isRecord(type)) {
        return recordFromAvro(
          type.fields.map((field) => ({ name: field.name, convert: member(field.type) })),
        );
      }
      switch (type.typeName) {
        case 'array': {
          const items = member((type as unknown as { itemsType: avro.Type }).itemsType);
          // Decoded just now and nobody else's: an array of values kept as they are is the plain one.
          if (items === unchanged) return unchanged;
          return (value) => (value as unknown[]).map((item) => items(item));
        }
        case 'map': {
          const values = member((type as unknown as { valuesType: avro.Type }).valuesType);
          return (value) =>
            Object.fromEntries(
              Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, values(item)]),
            );
        }
        default:
          return unchanged;
      }
    },
  );
}

type LogicalMap = (value: unknown, replace: (value: unknown) => unknown) => unknown;

/**
 * `mapLogicalValues` compiled for one type and logical type. A part of the type that holds neither the
 * logical type nor a union (whose branch must still be chosen, and may be refused) is returned as it is,
 * not copied: what it holds has nothing to replace.
 */
function compileLogicalMap(
  type: avro.Type,
  discriminators: Discriminators,
  logicalType: string,
  byType: WeakMap<avro.Type, LogicalMap>,
): LogicalMap {
  const target = `logical:${logicalType}`;
  const identity: LogicalMap = (value) => value;
  const untouched = new WeakMap<avro.Type, boolean>();
  /** Whether nothing in the type is the logical type or a union (a recursive type counts as touched). */
  const isUntouched = (inner: avro.Type, seen: Set<avro.Type>): boolean => {
    const known = untouched.get(inner);
    if (known !== undefined) return known;
    if (seen.has(inner)) return false;
    seen.add(inner);
    let result: boolean;
    if (inner.typeName === target || isUnion(inner)) result = false;
    else if (isRecord(inner)) result = inner.fields.every((field) => isUntouched(field.type, seen));
    else if (inner.typeName === 'array')
      result = isUntouched((inner as unknown as { itemsType: avro.Type }).itemsType, seen);
    else if (inner.typeName === 'map')
      result = isUntouched((inner as unknown as { valuesType: avro.Type }).valuesType, seen);
    else result = true;
    untouched.set(inner, result);
    return result;
  };
  const compile = (inner: avro.Type): LogicalMap => {
    const existing = byType.get(inner);
    if (existing !== undefined) return existing;
    return deferred<LogicalMap>(
      (map) => byType.set(inner, map),
      () => build(inner),
    );
  };
  const build = (inner: avro.Type): LogicalMap => {
    if (inner.typeName === target)
      return (value, replace) => (value === undefined || value === null ? value : replace(value));
    if (isUntouched(inner, new Set())) return identity;
    if (isUnion(inner)) {
      const byKind = branchesByKind(inner, discriminators, compile);
      return (value, replace) => {
        if (value === undefined || value === null) return value;
        const choose = byKind.get(jsKind(value));
        if (choose === undefined) throw mismatch;
        return choose(value)(value, replace);
      };
    }
    if (isRecord(inner)) {
      // Members whose type holds nothing to replace stay as the copy has them: no call for them.
      const fields = inner.fields
        .filter((field) => !isUntouched(field.type, new Set()))
        .map((field) => ({ name: field.name, map: compile(field.type) }));
      return (value, replace) => {
        if (value === undefined || value === null || !isPlainObject(value)) return value;
        const copy: Record<string, unknown> = { ...value };
        for (const field of fields) {
          const item = copy[field.name];
          if (item !== undefined && item !== null) copy[field.name] = field.map(item, replace);
        }
        return copy;
      };
    }
    switch (inner.typeName) {
      case 'array': {
        const items = compile((inner as unknown as { itemsType: avro.Type }).itemsType);
        return (value, replace) => (Array.isArray(value) ? value.map((item) => items(item, replace)) : value);
      }
      case 'map': {
        const values = compile((inner as unknown as { valuesType: avro.Type }).valuesType);
        return (value, replace) =>
          isPlainObject(value)
            ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, values(item, replace)]))
            : value;
      }
      default:
        return identity;
    }
  };
  return compile(type);
}
