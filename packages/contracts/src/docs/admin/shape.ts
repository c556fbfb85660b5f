import { problemContentType } from '../../http/problems.ts';

/** A piece of an OpenAPI 3.1 document (JSON Schema 2020-12 for schemas). */
export type Json = Record<string, unknown>;

/** The services that serve an operators' API: under `/admin`, and the console's under `/console/api`. */
export type AdminService = 'tracker' | 'scheduler' | 'event-publisher' | 'console';
export const adminServices: readonly AdminService[] = ['tracker', 'scheduler', 'event-publisher', 'console'];

/** The role an operation needs: reads (GET) `operator.read`, every other method `operator.replay`. */
export type OperatorRole = 'operator.read' | 'operator.replay';

/** One operation of a service's admin API. */
export interface AdminOperation {
  method: 'get' | 'post';
  /** An OpenAPI path template: `/admin/transactions/{uetr}` (Hono's `:uetr` written `{uetr}`). */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /**
   * The role the operation needs; default: the operator guard's rule by method (see `adminRoleOf`).
   * `null`: no token at all (the console's sign-in), and none of the guard's answers.
   */
  role?: OperatorRole | null;
  /** Path and query parameters (OpenAPI Parameter Objects); see `pathParameter`, `queryParameter`. */
  parameters?: Json[];
  /** An OpenAPI Request Body Object; see `jsonBody`. */
  requestBody?: Json;
  /**
   * Every answer the operation gives, by status, as OpenAPI Response Objects: see `jsonResponse`,
   * `textResponse` and `problem`. 401 and 403 (the operator's token) are added for every operation that
   * needs a role.
   */
  responses: Record<string, Json>;
}

/** A service's part of the admin document. */
export interface AdminServiceDoc {
  service: AdminService;
  /** What the service's admin API is for, in a sentence or two (the tag's description). */
  description: string;
  operations: AdminOperation[];
  /** Component schemas by name, referenced as `#/components/schemas/<Name>` (see `schemaRef`). */
  schemas: Record<string, Json>;
}

export const schemaRef = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

export function pathParameter(name: string, description: string, schema: Json, example?: unknown): Json {
  return {
    name,
    in: 'path',
    required: true,
    description,
    schema,
    ...(example === undefined ? {} : { example }),
  };
}

export function queryParameter(name: string, description: string, schema: Json, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

export function jsonBody(description: string, schema: Json, required = true): Json {
  return { description, required, content: { 'application/json': { schema } } };
}

export function jsonResponse(description: string, schema: Json, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema } },
  };
}

export function textResponse(description: string, mediaType: string, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [mediaType]: { schema: { type: 'string' } } },
  };
}

/** An error answer: RFC 9457 problem details (`#/components/schemas/Problem`). */
export function problem(description: string, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [problemContentType]: { schema: schemaRef('Problem') } },
  };
}

export const retryAfterHeader: Json = {
  'Retry-After': {
    description:
      'Seconds to wait before trying again: sent with every 503 (5 unless the cause names its own time).',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** JSON Schema of a date-time string as the services write them (`Date.prototype.toISOString`). */
export const dateTime: Json = { type: 'string', format: 'date-time' };
export const uuid: Json = { type: 'string', format: 'uuid' };
