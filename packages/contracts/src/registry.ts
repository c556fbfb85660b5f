import avro from 'avsc';
import { avroSchema, parseAvroSchema } from './avro/codec.ts';
import type { RawSchema } from './avro/raw-schema.ts';
import { contractError } from './errors.ts';
import type { MessageName } from './generated/types.ts';
import { topicSubjects } from './topics.ts';

/** Compatibility levels at least as strict as BACKWARD (consumers on the new schema read old records). */
export type Compatibility = 'BACKWARD' | 'BACKWARD_TRANSITIVE' | 'FULL' | 'FULL_TRANSITIVE';

export interface RegisterSchemasOptions {
  /** Base URL of the Confluent-compatible API, e.g. http://127.0.0.1:18081/apis/ccompat/v7. */
  registryUrl: string;
  /** Subject to message name; by default `<topic>-value` for every topic of the catalogue. */
  subjects?: Readonly<Record<string, MessageName>>;
  compatibility?: Compatibility;
  /** Per-request timeout. */
  timeoutMs?: number;
}

const contentType = 'application/vnd.schemaregistry.v1+json';

/**
 * For each subject: sets its compatibility, then registers the message's expanded schema. Registering
 * the same schema again returns the same id, so this is safe to run at every start. Returns the ids by
 * subject. A schema the registry refuses as incompatible fails with SCHEMA_REGISTRY_REFUSED.
 */
export async function registerSchemas(options: RegisterSchemasOptions): Promise<Record<string, number>> {
  const subjects = options.subjects ?? topicSubjects();
  const ids: Record<string, number> = {};
  for (const [subject, message] of Object.entries(subjects)) {
    ids[subject] = await registerSchema({
      registryUrl: options.registryUrl,
      subject,
      schema: avroSchema(message),
      compatibility: options.compatibility ?? 'BACKWARD',
      timeoutMs: options.timeoutMs ?? 10_000,
    });
  }
  return ids;
}

export interface RegisterSchemaOptions {
  registryUrl: string;
  subject: string;
  schema: RawSchema;
  compatibility: Compatibility;
  timeoutMs?: number;
}

/** Sets one subject's compatibility and registers one schema under it; returns the schema id. */
export async function registerSchema(options: RegisterSchemaOptions): Promise<number> {
  const base = options.registryUrl.replace(/\/+$/, '');
  const subject = encodeURIComponent(options.subject);
  const call = (method: string, path: string, body: unknown) =>
    request(method, `${base}${path}`, body, options.timeoutMs ?? 10_000);
  const setCompatibility = () => call('PUT', `/config/${subject}`, { compatibility: options.compatibility });
  const register = async () => {
    const response = await call('POST', `/subjects/${subject}/versions`, {
      schema: JSON.stringify(options.schema),
      schemaType: 'AVRO',
    });
    if (response.status === 409 || response.status === 422) {
      throw contractError(
        'SCHEMA_REGISTRY_REFUSED',
        `the registry refused the schema for ${options.subject} (${response.status}): ${response.text}`,
      );
    }
    expectOk(response, `registering a schema under ${options.subject}`);
    const id = (JSON.parse(response.text) as { id?: unknown }).id;
    if (typeof id !== 'number')
      throw contractError('SCHEMA_REGISTRY_UNAVAILABLE', `no schema id in ${response.text}`);
    return id;
  };

  const configured = await setCompatibility();
  if (configured.status === 404) {
    // Some registries keep no configuration for a subject that does not exist yet: the first version
    // has nothing to be compatible with, so register it and configure the subject right after.
    const id = await register();
    expectOk(await setCompatibility(), `setting the compatibility of ${options.subject}`);
    return id;
  }
  expectOk(configured, `setting the compatibility of ${options.subject}`);
  return register();
}

interface RegistryResponse {
  status: number;
  text: string;
}

async function request(
  method: string,
  url: string,
  body: unknown,
  timeoutMs: number,
): Promise<RegistryResponse> {
  try {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': contentType, accept: contentType },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  } catch (cause) {
    throw contractError('SCHEMA_REGISTRY_UNAVAILABLE', `schema registry unreachable: ${method} ${url}`, {
      cause,
      retriable: true,
    });
  }
}

function expectOk(response: RegistryResponse, what: string): void {
  if (response.status >= 200 && response.status < 300) return;
  throw contractError(
    'SCHEMA_REGISTRY_UNAVAILABLE',
    `${what} failed (${response.status}): ${response.text}`,
    {
      retriable: response.status >= 500 || response.status === 429,
    },
  );
}

function toType(schema: avro.Type | RawSchema): avro.Type {
  return avro.Type.isType(schema) ? (schema as avro.Type) : parseAvroSchema(schema as RawSchema);
}

export type CompatibilityResult = { compatible: true } | { compatible: false; reason: string };

/**
 * Whether a reader on `reader` can read every record written with `writer` (Avro schema resolution):
 * with reader = the current schema and writer = the last released one, this is BACKWARD compatibility.
 */
export function checkCompatibility(
  reader: avro.Type | RawSchema,
  writer: avro.Type | RawSchema,
): CompatibilityResult {
  try {
    toType(reader).createResolver(toType(writer));
    return { compatible: true };
  } catch (cause) {
    return { compatible: false, reason: (cause as Error).message };
  }
}
