import avro from 'avsc';
import { contractError } from '../errors.ts';
import type { MessageName, Messages } from '../generated/types.ts';
import { schemaSet } from '../schema-set.ts';
import { discriminatorsOf } from './discriminators.ts';
import { avroTypeOptions } from './logical-types.ts';
import type { RawSchema } from './raw-schema.ts';
import { type Discriminators, fromAvroValue, toAvroValue } from './values.ts';

let discriminators: Discriminators | undefined;
const expanded = new Map<MessageName, RawSchema>();
const writerTypes = new Map<string, avro.Type>();
const resolvers = new Map<MessageName, WeakMap<avro.Type, avro.Resolver>>();

/** The constant members of every record, which pick union branches (computed once). */
export function recordConstants(): Discriminators {
  discriminators ??= discriminatorsOf(schemaSet());
  return discriminators;
}

/**
 * The message's Avro schema with every named type it uses defined inline (self-contained), keeping the
 * constraint attributes and docs: what the schema registry stores and analytics consumers read.
 */
export function avroSchema(name: MessageName): RawSchema {
  let schema = expanded.get(name);
  if (!schema) {
    schema = schemaSet().expand(name);
    expanded.set(name, schema);
  }
  return schema;
}

/** The avsc type of a message (parsed once, shared registry of named types). */
export function avroType(name: MessageName): avro.Type {
  return schemaSet().type(name);
}

/** Parses any Avro schema (a writer schema from the registry, say) with the project's logical types. */
export function parseAvroSchema(schema: RawSchema | object | string): avro.Type {
  const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
  let type = writerTypes.get(text);
  if (!type) {
    type = avro.Type.forSchema(JSON.parse(text) as avro.Schema, avroTypeOptions());
    writerTypes.set(text, type);
  }
  return type;
}

/**
 * Where a message is encoded before it is copied out. avsc's own `toBuffer` writes into a 1 KiB buffer
 * and writes a larger value (a state change, an event posting: 1.0 to 1.5 KB) a second time into one
 * of its size, which doubled the cost of most of a journey's records. It grows to the largest message
 * seen, up to `largestScratch`; a message past that is written into a buffer of its own.
 */
let scratch = Buffer.allocUnsafeSlow(16 * 1024);
const largestScratch = 1024 * 1024;

function writeAvro(type: avro.Type, avroValue: unknown, prefix: Uint8Array | undefined): Buffer {
  const start = prefix?.length ?? 0;
  let target = scratch;
  let end = type.encode(avroValue, target, start);
  if (end < 0) {
    // avsc answers minus the bytes it lacked: the value ends at target.length - end.
    const needed = target.length - end;
    target = Buffer.allocUnsafeSlow(Math.max(needed, scratch.length * 2));
    if (target.length <= largestScratch) scratch = target;
    end = type.encode(avroValue, target, start);
  }
  const out = Buffer.allocUnsafe(end);
  if (prefix) out.set(prefix, 0);
  target.copy(out, start, start, end);
  return out;
}

/**
 * Avro binary encoding of a message. `prefix`, when given, is written before it in the same buffer (the
 * schema registry's wire-format header, which the Kafka codecs put in front).
 */
export function encodeAvro<N extends MessageName>(name: N, value: Messages[N], prefix?: Uint8Array): Buffer {
  const type = avroType(name);
  const avroValue = toAvroValue(type, value, recordConstants());
  try {
    return writeAvro(type, avroValue, prefix);
  } catch (cause) {
    const paths: string[] = [];
    type.isValid(avroValue, {
      errorHook: (path, invalid) => {
        paths.push(`/${path.join('/')} (${JSON.stringify(invalid)})`);
      },
    });
    throw contractError(
      'INVALID_MESSAGE',
      `${name} cannot be encoded: ${paths.join(', ') || String(cause)}`,
      {
        cause,
      },
    );
  }
}

/**
 * Decodes Avro binary into the plain message shape. `writer` is the schema the bytes were written with
 * (from the registry, by the id in the record's header) when it may differ from this version's schema:
 * the value is then resolved into the current shape by Avro's schema resolution rules.
 */
export function decodeAvro<N extends MessageName>(
  name: N,
  buffer: Buffer,
  writer?: avro.Type | RawSchema | object,
): Messages[N] {
  const reader = avroType(name);
  const writerType =
    writer === undefined
      ? undefined
      : avro.Type.isType(writer)
        ? (writer as avro.Type)
        : parseAvroSchema(writer);
  let resolver: avro.Resolver | undefined;
  if (writerType && writerType !== reader) {
    let cache = resolvers.get(name);
    if (!cache) {
      cache = new WeakMap();
      resolvers.set(name, cache);
    }
    resolver = cache.get(writerType);
    if (!resolver) {
      resolver = reader.createResolver(writerType);
      cache.set(writerType, resolver);
    }
  }
  return fromAvroValue(reader, reader.fromBuffer(buffer, resolver)) as Messages[N];
}
