import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildAdminOpenApiDocument } from '../admin-openapi.ts';
import type { AdminService, Json } from './shape.ts';

/** One answer of a service's admin API (or its probes and metrics), as a caller saw it. */
export interface AdminExchange {
  service: AdminService;
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
    const servers = (item.servers ?? []) as Json[];
    const service = servers.length === 1 ? serviceOf(servers[0] as Json) : 'any';
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

function serviceOf(server: Json): AdminService | 'any' {
  const description = String(server.description ?? '');
  for (const service of ['tracker', 'scheduler', 'event-publisher'] as const) {
    if (description.startsWith(`The ${service} `)) return service;
  }
  return 'any';
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
  const { routes, ajv, validators } = compile();
  const method = exchange.method.toLowerCase();
  const path = exchange.path.split('?')[0] ?? '';
  const where = `${exchange.method.toUpperCase()} ${path} (${exchange.service})`;
  const route = routes.find(
    (candidate) =>
      candidate.method === method &&
      candidate.pattern.test(path) &&
      (candidate.service === 'any' || candidate.service === exchange.service),
  );
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
