import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildAdminOpenApiDocument } from '../admin-openapi.ts';
import type { AdminService, Json } from './shape.ts';

/** One answer of a service's admin API (or its probes and metrics), as a caller saw it. */
export interface AdminExchange {
  /** Who answered: a service of the admin API, or the engine (its probes, over the services it runs). */
  service: AdminService | 'engine';
  method: string;
  /** The request's path, with its query string if any. */
  path: string;
  status: number;
  /** The Content-Type header of the answer; null when it had none. */
  contentType: string | null;
  /** The body: parsed JSON for JSON media types, else the text. */
  body: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  service: AdminService | 'any';
  operation: Json;
}

const schemaId = 'rp-admin';

interface Compiled {
  routes: Route[];
  ajv: Ajv2020.default;
  validators: Map<unknown, ValidateFunction>;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  if (compiled) return compiled;
  const document = buildAdminOpenApiDocument() as { paths: Record<string, Json>; components: Json };
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  addFormats.default(ajv, ['date', 'date-time', 'uuid', 'uri-reference']);
  ajv.addSchema({ $id: schemaId, components: document.components });
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const service = (item['x-service'] as AdminService | undefined) ?? 'any';
    const pattern = new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    );
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
      const operation = item[method] as Json | undefined;
      if (operation) routes.push({ method, template, pattern, service, operation });
    }
  }
  compiled = { routes, ajv, validators: new Map() };
  return compiled;
}

/** The schema with its references into the document's components made absolute. */
function absolute(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${schemaId}${value}`
        : absolute(value);
  }
  return out;
}

/**
 * Whether an answer is what the admin document says: an operation documented for the path and method
 * (on that service), the status among its responses, the media type among the status's, and the body
 * valid against its schema. An empty list when it is; else one line per difference.
 */
export function adminResponseProblems(exchange: AdminExchange): string[] {
  const path = exchange.path.split('?')[0] ?? '';
  return problemsOf(exchange, path, routeOf(exchange.service, exchange.method, path));
}

/** `adminResponseProblems` for the operation the request's `path` (without its query) was found to be. */
function problemsOf(exchange: AdminExchange, path: string, route: Route | undefined): string[] {
  const { ajv, validators } = compile();
  const where = `${exchange.method.toUpperCase()} ${path} (${exchange.service})`;
  if (!route) return [`${where}: no such operation in the admin document`];
  const responses = route.operation.responses as Record<string, Json>;
  const response = responses[String(exchange.status)] ?? responses.default;
  if (!response) {
    return [
      `${where}: answered ${exchange.status}, which ${route.template} does not document (${Object.keys(responses).join(', ')})`,
    ];
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    return exchange.body === undefined || exchange.body === '' || exchange.body === null
      ? []
      : [`${where}: answered ${exchange.status} with a body, which the document does not describe`];
  }
  const mediaType = (exchange.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const media = content[mediaType];
  if (!media) {
    return [
      `${where}: answered ${exchange.status} as ${mediaType || 'no media type'}, not ${Object.keys(content).join(' or ')}`,
    ];
  }
  const schema = media.schema;
  if (schema === undefined) return [];
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(absolute(schema) as Json);
    validators.set(schema, validate);
  }
  if (validate(exchange.body)) return [];
  return (validate.errors ?? []).map(
    (error) =>
      `${where} ${exchange.status}: ${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}${
        error.keyword === 'additionalProperties'
          ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
          : ''
      }`,
  );
}

/** The documented operation a request path (without its query) on a service is one of. */
function routeOf(service: AdminExchange['service'], method: string, path: string): Route | undefined {
  const wanted = method.toLowerCase();
  return compile().routes.find(
    (candidate) =>
      candidate.method === wanted &&
      candidate.pattern.test(path) &&
      (candidate.service === 'any' || candidate.service === service),
  );
}

/** An answer read and held to the admin document (see `checkAdminAnswer`). */
export interface CheckedAdminAnswer {
  /** Parsed JSON for a JSON media type (`application/json`, `application/problem+json`), else the text. */
  readonly body: unknown;
  /** What `adminResponseProblems` found; empty when the answer is as documented. */
  readonly problems: string[];
  /** The operation answered, as `GET /admin/transactions/{uetr}`; undefined when none is documented. */
  readonly operation: string | undefined;
}

/**
 * Reads an answer of a service's admin API (from a clone, so the caller can still read it) and checks it
 * against the admin document: what the contract tests and the end-to-end tests hold every call to.
 */
export async function checkAdminAnswer(
  service: AdminService,
  method: string,
  path: string,
  response: Response,
): Promise<CheckedAdminAnswer> {
  const contentType = response.headers.get('content-type');
  const text = await response.clone().text();
  const body: unknown = /[/+]json\b/.test(contentType ?? '') && text !== '' ? JSON.parse(text) : text;
  const bare = path.split('?')[0] ?? '';
  const route = routeOf(service, method, bare);
  const exchange = { service, method, path, status: response.status, contentType, body };
  const problems = problemsOf(exchange, bare, route);
  return { body, problems, operation: route && `${route.method.toUpperCase()} ${route.template}` };
}
