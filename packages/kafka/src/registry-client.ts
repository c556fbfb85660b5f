import { setTimeout as delay } from 'node:timers/promises';
import { KafkaError } from './errors.ts';

/** The few calls of the Confluent schema registry API that the serde needs. */
export interface RegistryClient {
  /** Registers (or finds) `schema` under `subject`; the same schema always gets the same id. */
  register(subject: string, schema: string): Promise<number>;
  /** The schema text with this global id. */
  schemaById(id: number): Promise<string>;
  /** The latest version registered under `subject`. */
  latest(subject: string): Promise<{ id: number; schema: string }>;
}

export interface RegistryClientOptions {
  /** Base URL of the Confluent-compatible API; user:password in the URL become basic auth. */
  url: string;
  requestTimeoutMs?: number;
  /** Extra attempts after a transient failure (no answer, 5xx, 429). */
  retries?: number;
}

const contentType = 'application/vnd.schemaregistry.v1+json';

export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const parsed = new URL(options.url);
  const authorization =
    parsed.username || parsed.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`
      : undefined;
  parsed.username = '';
  parsed.password = '';
  // Credentials never reach error messages or logs: everything below uses the stripped URL.
  const base = parsed.toString().replace(/\/+$/, '');
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const retries = options.retries ?? 2;

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await once<T>(method, path, body);
      } catch (error) {
        if (!(error instanceof KafkaError) || !error.retriable || attempt >= retries) throw error;
        await delay(100 * 3 ** attempt);
      }
    }
  }

  async function once<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: contentType };
    if (body !== undefined) headers['content-type'] = contentType;
    if (authorization) headers.authorization = authorization;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new KafkaError(
        'SCHEMA_REGISTRY_UNAVAILABLE',
        `schema registry ${base} did not answer ${method} ${path}`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as T;
    const detail = registryErrorDetail(text);
    const what = `schema registry answered ${response.status} to ${method} ${path}${detail ? `: ${detail}` : ''}`;
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      throw new KafkaError('SCHEMA_REGISTRY_UNAVAILABLE', what);
    }
    if (response.status === 404) throw new KafkaError('SCHEMA_NOT_FOUND', what);
    throw new KafkaError('SCHEMA_REGISTRY_REJECTED', what);
  }

  return {
    async register(subject, schema) {
      const answer = await call<{ id: number }>('POST', `/subjects/${encodeURIComponent(subject)}/versions`, {
        schema,
      });
      return answer.id;
    },
    async schemaById(id) {
      const answer = await call<{ schema: string }>('GET', `/schemas/ids/${id}`);
      return answer.schema;
    },
    async latest(subject) {
      const answer = await call<{ id: number; schema: string }>(
        'GET',
        `/subjects/${encodeURIComponent(subject)}/versions/latest`,
      );
      return { id: answer.id, schema: answer.schema };
    },
  };
}

function registryErrorDetail(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error_code?: unknown };
    if (typeof parsed.message === 'string') {
      return parsed.error_code === undefined
        ? parsed.message
        : `${parsed.message} (${String(parsed.error_code)})`;
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.length > 0 ? text.slice(0, 300) : undefined;
}
