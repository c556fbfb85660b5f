import { eventsApiVersion } from '../api-version.ts';
import { jsonSchemaDialect } from '../json/json-schema.ts';
import { consoleAdmin } from './admin/console.ts';
import { eventPublisherAdmin } from './admin/event-publisher.ts';
import { schedulerAdmin } from './admin/scheduler.ts';
import {
  type AdminOperation,
  type AdminService,
  type AdminServiceDoc,
  type Json,
  jsonResponse,
  type OperatorRole,
  problem,
  retryAfterHeader,
  schemaRef,
  textResponse,
} from './admin/shape.ts';
import { trackerAdmin } from './admin/tracker.ts';

/** Every service's admin API, in the order the document lists them. */
export const adminServiceDocs: readonly AdminServiceDoc[] = [
  trackerAdmin,
  schedulerAdmin,
  eventPublisherAdmin,
  consoleAdmin,
];

/** The services every probe and scrape below is served by, with their default ports. */
const servicePorts = {
  ingress: 8080,
  validator: 8081,
  scheduler: 8083,
  dispatcher: 8084,
  tracker: 8085,
  'event-publisher': 8086,
  console: 8087,
} as const;

const serviceTitles: Record<AdminService, string> = {
  tracker: 'Tracker',
  scheduler: 'Scheduler',
  'event-publisher': 'Event publisher',
  console: 'Console',
};

const operatorSecurity = 'operatorOAuth2';
const healthTag = 'Health and metrics';

function server(service: keyof typeof servicePorts): Json {
  return {
    url: '{base_url}',
    description: `The ${service} (PORT, default ${servicePorts[service]})`,
    variables: {
      base_url: {
        default: `http://localhost:${servicePorts[service]}`,
        description: `Base URL of the ${service}`,
      },
    },
  };
}

/** The role an operation needs: the operator guard's rule (reads `operator.read`, the rest `operator.replay`). */
export function adminRoleOf(method: string): OperatorRole {
  return method.toLowerCase() === 'get' || method.toLowerCase() === 'head'
    ? 'operator.read'
    : 'operator.replay';
}

/** The role one operation needs (its own, else by its method); null when it takes no token. */
function roleOf(operation: AdminOperation): OperatorRole | null {
  return operation.role === undefined ? adminRoleOf(operation.method) : operation.role;
}

const bearerHeader = (description: string): Json => ({
  'WWW-Authenticate': { description, schema: { type: 'string' } },
});

const keysUnavailable =
  "the identity provider's keys could not be fetched to check the token (Retry-After: 5)";

/**
 * An operation's answers with the operator guard's: 401 and 403 for the token, and 503 when the
 * provider's keys cannot be fetched (merged into the operation's own 503 when it has one).
 */
function withGuardResponses(operation: AdminOperation, role: OperatorRole): Record<string, Json> {
  const responses: Record<string, Json> = {
    ...operation.responses,
    '401': problem(
      'No bearer token, or one that does not verify against the identity provider (signature, issuer, audience, expiry).',
      bearerHeader('Bearer, with error="invalid_token" when a token was sent.'),
    ),
    '403': problem(
      `The token verifies but does not grant ${role}.`,
      bearerHeader(`Bearer error="insufficient_scope", scope="${role}".`),
    ),
  };
  const own = operation.responses['503'];
  responses['503'] = own
    ? { ...own, description: `${String(own.description)} Also when ${keysUnavailable}.` }
    : problem(`The ${keysUnavailable.replace(/^the /, '')}.`, retryAfterHeader);
  return responses;
}

const problemSchema: Json = {
  type: 'object',
  description: "RFC 9457 problem details, with the engine's error code and, for a 422, every invalid member.",
  required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      description: 'The problem type: /problems/<code in kebab case>.',
    },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong; for a 5xx only its kind and whether to retry.' },
    instance: { type: 'string', description: 'The request path.' },
    code: {
      type: 'string',
      description: "The engine's error code (VALIDATION_FAILED, NOT_FOUND, STORE_UNAVAILABLE, ...).",
      pattern: '^[A-Z_]+$',
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'detail'],
        properties: {
          pointer: {
            type: 'string',
            description: 'An RFC 6901 JSON pointer to the member (or the parameter, /<name>).',
          },
          detail: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

const healthCheckSchema: Json = {
  type: 'object',
  required: ['name', 'ok', 'durationMs'],
  properties: {
    name: { type: 'string', description: 'The dependency: mongodb, kafka, a consumer, ...' },
    ok: { type: 'boolean' },
    durationMs: { type: 'integer', minimum: 0 },
    error: { type: 'string', description: 'Why the check failed.' },
  },
  additionalProperties: false,
};

const healthState: Json = { type: 'string', enum: ['starting', 'ready', 'draining', 'stopped'] };

/** The engine's own port (ENGINE_PORT, default 8088): its probes over the services it runs in one process. */
const engineServer: Json = {
  url: '{base_url}',
  description:
    'The engine (ENGINE_PORT, default 8088): its probes over the services it runs in one process, each service a check',
  variables: { base_url: { default: 'http://localhost:8088', description: 'Base URL of the engine' } },
};

/**
 * `/health/live`, `/health/ready` and `/metrics`, served by every service on its PORT; the probes by the
 * engine on its own port too.
 */
function healthPaths(): Json {
  const servers = (Object.keys(servicePorts) as (keyof typeof servicePorts)[]).map(server);
  const probeServers = [...servers, engineServer];
  const live = {
    type: 'object',
    required: ['status', 'state'],
    properties: { status: { type: 'string', enum: ['live', 'stopped'] }, state: healthState },
    additionalProperties: false,
  };
  const ready = {
    type: 'object',
    required: ['status', 'state', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ready', 'unavailable'] },
      state: healthState,
      checks: { type: 'array', items: schemaRef('HealthCheck') },
    },
    additionalProperties: false,
  };
  return {
    '/health/live': {
      servers: probeServers,
      get: {
        operationId: 'healthLive',
        summary: 'Liveness',
        description:
          "The process runs and has not stopped: the orchestrator's liveness probe. No dependency is checked, so a broker or store outage never restarts a service. No token.",
        tags: [healthTag],
        security: [],
        responses: {
          '200': jsonResponse('Live.', live),
          '503': jsonResponse('Stopped: the process is ending.', live),
        },
      },
    },
    '/health/ready': {
      servers: probeServers,
      get: {
        operationId: 'healthReady',
        summary: 'Readiness',
        description:
          "Started, not draining, and every dependency check passing (MongoDB, each consumer running, ...): the orchestrator's readiness probe. Each check is given a deadline. No token.",
        tags: [healthTag],
        security: [],
        responses: {
          '200': jsonResponse('Ready.', ready),
          '503': jsonResponse('Starting, draining, or a check failing (its error says why).', ready),
        },
      },
    },
    '/metrics': {
      servers,
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description:
          'Every metric of the service in the Prometheus text format (rp_* metrics of the engine, the Node process, the Kafka and MongoDB clients). No token; keep the port inside the cluster.',
        tags: [healthTag],
        security: [],
        responses: { '200': textResponse('The metrics.', 'text/plain') },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the operators' API: each service's `/admin` routes (transactions, dead
 * letters and audit on the tracker; windows, queue and reconciliation on the scheduler; replay, delivery
 * log and lanes on the event publisher), the console's `/console/api` (the overview, a journey, a search,
 * its sign-in), and the probes and metrics every service serves.
 */
export function buildAdminOpenApiDocument(docs: readonly AdminServiceDoc[] = adminServiceDocs): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = { Problem: problemSchema, HealthCheck: healthCheckSchema };
  const operationIds = new Set<string>();
  for (const doc of docs) {
    for (const [name, schema] of Object.entries(doc.schemas)) {
      if (name in schemas) throw new Error(`admin document: schema ${name} is defined twice`);
      schemas[name] = schema;
    }
    for (const operation of doc.operations) {
      if (operationIds.has(operation.operationId)) {
        throw new Error(`admin document: operationId ${operation.operationId} is used twice`);
      }
      operationIds.add(operation.operationId);
      // x-service: which service serves the path (the server's URL is a variable), for tools and checks.
      const item = paths[operation.path] ?? { servers: [server(doc.service)], 'x-service': doc.service };
      paths[operation.path] = item;
      if (operation.method in item)
        throw new Error(`admin document: ${operation.method} ${operation.path} twice`);
      const role = roleOf(operation);
      item[operation.method] = {
        operationId: operation.operationId,
        summary: operation.summary,
        description: `${operation.description}\n\nRole: ${role ?? 'none (no token)'}.`,
        tags: [serviceTitles[doc.service]],
        ...(operation.parameters ? { parameters: operation.parameters } : {}),
        ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
        security: role === null ? [] : [{ [operatorSecurity]: [role] }],
        responses: role === null ? operation.responses : withGuardResponses(operation, role),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: "Regulated Payments engine: operators' API",
      version: eventsApiVersion,
      description:
        "The admin API operators and the console use: a transaction's snapshot, history and postings; search; dead letters and their redrive; the audit trail; the debit and reconciliation windows; the debit queue; the reconciliation report; replays of event postings and their delivery log. Then the console's own JSON API, what its page reads. Each service serves its part on its own port, inside the cluster. Every action is audited with the operator's identity. Errors are application/problem+json (RFC 9457). With ADMIN_AUTH=none (development only) no token is asked for and actions are audited as 'unauthenticated'.",
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect,
    tags: [
      ...docs.map((doc) => ({ name: serviceTitles[doc.service], description: doc.description })),
      { name: healthTag, description: 'Probes and metrics, on every service.' },
    ],
    paths: { ...paths, ...healthPaths() },
    components: {
      schemas,
      securitySchemes: {
        [operatorSecurity]: {
          type: 'oauth2',
          description:
            "An operator's access token (a JWT, RFC 9068) from the identity provider the operator names (ADMIN_AUTH_ISSUER, ADMIN_AUTH_JWKS_URL), for the admin audience. Its roles (or scope) claim carries operator.read (every read) or operator.replay (the actions too; it includes operator.read).",
          flows: {
            clientCredentials: {
              tokenUrl: 'https://identity-provider.example/oauth2/token',
              scopes: {
                'operator.read':
                  'Read transactions, dead letters, deliveries, lanes, windows, the queue and the audit trail',
                'operator.replay':
                  'Replay postings, redrive dead letters, open and close windows (and every read)',
              },
            },
          },
        },
      },
    },
  };
}
