import { schemaSet } from '../schema-set.ts';
import { buildAdminOpenApiDocument } from './admin-openapi.ts';
import { buildAsyncApiDocument } from './asyncapi.ts';
import { buildOpenApiDocument } from './openapi.ts';

let openApi: Record<string, unknown> | undefined;
let asyncApi: Record<string, unknown> | undefined;
let adminOpenApi: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document of the bank-facing API and the calls on banks (a fresh copy each call). */
export function openApiDocument(): Record<string, unknown> {
  openApi ??= buildOpenApiDocument(schemaSet());
  return structuredClone(openApi);
}

/** The AsyncAPI 3.0 document of the Kafka topics (a fresh copy each call). */
export function asyncApiDocument(): Record<string, unknown> {
  asyncApi ??= buildAsyncApiDocument(schemaSet());
  return structuredClone(asyncApi);
}

/** The OpenAPI 3.1 document of the operators' API: every service's /admin routes, probes and metrics. */
export function adminOpenApiDocument(): Record<string, unknown> {
  adminOpenApi ??= buildAdminOpenApiDocument();
  return structuredClone(adminOpenApi);
}
