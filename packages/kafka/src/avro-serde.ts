import avsc from 'avsc';
import { KafkaError } from './errors.ts';
import { createRegistryClient, type RegistryClient } from './registry-client.ts';
import { body, frame, readSchemaId } from './wire-format.ts';

type AvroType = avsc.Type;

/**
 * An Avro schema as parsed JSON or as text, e.g. one of the contracts package's `.avsc` files. Checked
 * when parsed: an invalid one fails with AVRO_INVALID_SCHEMA.
 */
export type AvroSchemaJson = string | object;

/**
 * avsc type options passed to every schema this serde parses. `logicalTypes` map a logical type name to
 * an avsc LogicalType class (e.g. a decimal whose JS value is a decimal string); `registry` holds named
 * types defined elsewhere that schemas may refer to by name when they do not define them. A schema sent to
 * the registry must still be self-contained: other readers only have the registry.
 */
export interface AvroTypeOptions {
  logicalTypes?: avsc.ForSchemaOptions['logicalTypes'];
  registry?: Readonly<Record<string, AvroType>>;
  wrapUnions?: avsc.ForSchemaOptions['wrapUnions'];
}

export interface AvroSerdeOptions {
  /** Base URL of the Confluent-compatible registry API. */
  registryUrl: string;
  avro?: AvroTypeOptions;
  requestTimeoutMs?: number;
}

export type DecodeOutcome<T> = { ok: true; value: T } | { ok: false; error: KafkaError };

/** A serde bound to one subject and schema: what a topic's producer and consumer hold. */
export interface AvroCodec<T> {
  readonly subject: string;
  /** The registry id of this codec's schema: the writer id of everything it encodes. */
  readonly schemaId: number;
  /** Validates and encodes to the Confluent wire format. Throws AVRO_INVALID_VALUE with the bad paths. */
  encode(value: T): Buffer;
  /**
   * Decodes bytes written with any registered schema into this codec's schema (Avro schema resolution),
   * so a consumer keeps working while producers move to a newer compatible version.
   */
  decode(buffer: Buffer): Promise<T>;
  /**
   * Decodes many values, fetching each unknown writer schema once. A value that can never be decoded
   * (not Avro, unknown schema id, corrupt body) comes back as `{ ok: false }`; a registry outage throws a
   * retriable KafkaError instead, because the same bytes will decode once it is back.
   */
  decodeMany(buffers: readonly (Buffer | null)[]): Promise<DecodeOutcome<T>[]>;
}

export interface AvroSerde {
  /** Registers `schema` under `subject` and returns its id; cached, so repeating it costs nothing. */
  register(subject: string, schema: AvroSchemaJson): Promise<number>;
  /** Encodes with a schema id, or with a subject's registered (or else latest) schema. */
  encode(subjectOrId: string | number, value: unknown): Promise<Buffer>;
  /** Decodes with the writer schema named in the bytes. */
  decode(buffer: Buffer): Promise<unknown>;
  /** Registers `schema` under `subject` and returns a codec bound to it. */
  codec<T>(subject: string, schema: AvroSchemaJson): Promise<AvroCodec<T>>;
}

/**
 * Lets a schema refer by name to a type the caller already has (`AvroTypeOptions.registry`), without
 * that type being defined again: a name the schema defines itself always wins, so parsing a schema that
 * embeds the same definition (as every schema fetched from the registry does) never collides.
 */
export function knownTypeHook(
  known: Readonly<Record<string, AvroType>>,
): (schema: avsc.Schema, options: avsc.ForSchemaOptions) => AvroType | undefined {
  return (schema, options) => {
    if (typeof schema !== 'string') return undefined;
    const name = !schema.includes('.') && options.namespace ? `${options.namespace}.${schema}` : schema;
    if (options.registry[name] !== undefined || options.registry[schema] !== undefined) return undefined;
    return known[name] ?? known[schema];
  };
}

/** How long an unknown schema id is remembered as unknown, so a run of poison records costs one lookup. */
const unknownIdMemoryMs = 10_000;

export function createAvroSerde(options: AvroSerdeOptions, client?: RegistryClient): AvroSerde {
  const registry =
    client ??
    createRegistryClient({
      url: options.registryUrl,
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    });
  const typeOptions = options.avro ?? {};
  const writerTypes = new Map<number, Promise<AvroType>>();
  const unknownIds = new Map<number, { at: number; error: KafkaError }>();
  const registered = new Map<string, Promise<number>>();
  const latestBySubject = new Map<string, Promise<number>>();

  function parse(schema: AvroSchemaJson): AvroType {
    try {
      const json = (typeof schema === 'string' ? JSON.parse(schema) : schema) as avsc.Schema;
      return avsc.Type.forSchema(json, {
        ...(typeOptions.logicalTypes ? { logicalTypes: typeOptions.logicalTypes } : {}),
        ...(typeOptions.wrapUnions === undefined ? {} : { wrapUnions: typeOptions.wrapUnions }),
        ...(typeOptions.registry ? { typeHook: knownTypeHook(typeOptions.registry) } : {}),
        omitRecordMethods: true,
      });
    } catch (error) {
      throw new KafkaError('AVRO_INVALID_SCHEMA', `not a valid Avro schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  function memo<K, V>(cache: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
    const cached = cache.get(key);
    if (cached) return cached;
    const loading = load();
    cache.set(key, loading);
    // A failed load is forgotten so that the next call asks again (the registry may be back).
    loading.catch(() => cache.delete(key));
    return loading;
  }

  function writerType(id: number): Promise<AvroType> {
    const unknown = unknownIds.get(id);
    if (unknown && Date.now() - unknown.at < unknownIdMemoryMs) return Promise.reject(unknown.error);
    return memo(writerTypes, id, async () => {
      try {
        return parse(await registry.schemaById(id));
      } catch (error) {
        if (error instanceof KafkaError && error.reason === 'SCHEMA_NOT_FOUND') {
          unknownIds.set(id, { at: Date.now(), error });
        }
        throw error;
      }
    });
  }

  async function register(subject: string, schema: AvroSchemaJson): Promise<number> {
    const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
    return memo(registered, `${subject}\u0000${text}`, async () => {
      const type = parse(text);
      const id = await registry.register(subject, text);
      if (!writerTypes.has(id)) writerTypes.set(id, Promise.resolve(type));
      latestBySubject.set(subject, Promise.resolve(id));
      return id;
    });
  }

  function encodeWith(type: AvroType, id: number, value: unknown): Buffer {
    const paths: string[] = [];
    const valid = type.isValid(value, {
      errorHook: (path: string[]) => {
        paths.push(path.length > 0 ? path.join('.') : '(root)');
      },
    });
    if (!valid) {
      throw new KafkaError(
        'AVRO_INVALID_VALUE',
        `value does not match schema ${id}${type.name ? ` (${type.name})` : ''} at ${paths.join(', ')}`,
      );
    }
    return frame(id, type.toBuffer(value));
  }

  function decodeBody<T>(buffer: Buffer, writer: AvroType, reader: AvroType, resolver?: avsc.Resolver): T {
    try {
      return (resolver ? reader.fromBuffer(body(buffer), resolver) : writer.fromBuffer(body(buffer))) as T;
    } catch (error) {
      throw new KafkaError('AVRO_DECODE_FAILED', `Avro body unreadable: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  return {
    register,

    async encode(subjectOrId, value) {
      const id =
        typeof subjectOrId === 'number'
          ? subjectOrId
          : await memo(latestBySubject, subjectOrId, async () => {
              const latest = await registry.latest(subjectOrId);
              return latest.id;
            });
      return encodeWith(await writerType(id), id, value);
    },

    async decode(buffer) {
      const writer = await writerType(readSchemaId(buffer));
      return decodeBody(buffer, writer, writer);
    },

    async codec<T>(subject: string, schema: AvroSchemaJson): Promise<AvroCodec<T>> {
      const schemaId = await register(subject, schema);
      const reader = await writerType(schemaId);
      const resolvers = new Map<number, avsc.Resolver>();

      function resolverFor(writerId: number, writer: AvroType): avsc.Resolver | undefined {
        if (writerId === schemaId) return undefined;
        let resolver = resolvers.get(writerId);
        if (!resolver) {
          try {
            resolver = reader.createResolver(writer);
          } catch (error) {
            throw new KafkaError(
              'AVRO_DECODE_FAILED',
              `writer schema ${writerId} cannot be read as ${subject} schema ${schemaId}: ${(error as Error).message}`,
              { cause: error },
            );
          }
          resolvers.set(writerId, resolver);
        }
        return resolver;
      }

      async function decodeMany(buffers: readonly (Buffer | null)[]): Promise<DecodeOutcome<T>[]> {
        const ids = new Map<number, AvroType | KafkaError>();
        const headers = buffers.map((buffer) => {
          try {
            const id = readSchemaId(buffer);
            ids.set(id, reader);
            return id;
          } catch (error) {
            return error as KafkaError;
          }
        });
        await Promise.all(
          [...ids.keys()].map(async (id) => {
            try {
              ids.set(id, await writerType(id));
            } catch (error) {
              if (error instanceof KafkaError && !error.retriable) ids.set(id, error);
              else throw error;
            }
          }),
        );
        return buffers.map((buffer, index) => {
          const header = headers[index];
          if (header instanceof KafkaError) return { ok: false, error: header };
          const writer = ids.get(header as number);
          if (writer instanceof KafkaError) return { ok: false, error: writer };
          try {
            const resolver = resolverFor(header as number, writer as AvroType);
            return { ok: true, value: decodeBody<T>(buffer as Buffer, writer as AvroType, reader, resolver) };
          } catch (error) {
            return { ok: false, error: error as KafkaError };
          }
        });
      }

      return {
        subject,
        schemaId,
        encode: (value: T) => encodeWith(reader, schemaId, value),
        async decode(buffer: Buffer) {
          const [outcome] = await decodeMany([buffer]);
          if (!outcome?.ok) throw outcome?.error;
          return outcome.value;
        },
        decodeMany,
      };
    },
  };
}
