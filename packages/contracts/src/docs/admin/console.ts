import { engineServices } from '../../event-types.ts';
import {
  type AdminOperation,
  type AdminServiceDoc,
  dateTime,
  type Json,
  jsonBody,
  jsonResponse,
  pathParameter,
  problem,
  queryParameter,
  retryAfterHeader,
  schemaRef,
  uuid,
} from './shape.ts';

/**
 * The console's JSON API (services/console/src/app.ts): what its page reads, for operators' own tools
 * too. Checked against the service by services/console/src/api-contract.test.ts.
 */

const count: Json = { type: 'integer', minimum: 0 };
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
/** A rate per second between two scrapes; null on the first one (nothing to compare with). */
const rate: Json = { oneOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] };
const target: Json = {
  type: 'string',
  enum: [...engineServices],
};
const object = (required: string[], properties: Json, description?: string): Json => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
  additionalProperties: false,
});

/** A section of the overview: its data with `available: true`, or `ConsoleUnavailable`. */
function section(title: string, required: string[], properties: Json, description: string): Json {
  return {
    description,
    oneOf: [
      { title, ...object(['available', ...required], { available: { const: true }, ...properties }) },
      schemaRef('ConsoleUnavailable'),
    ],
  };
}

const sessionProperties: Json = {
  operator: {
    type: 'string',
    description:
      "The operator the token names (its client id or subject); 'unauthenticated' without authentication.",
  },
  roles: {
    type: 'array',
    items: { type: 'string' },
    description: 'The operator roles the token grants (operator.read, operator.replay), sorted.',
  },
  authentication: {
    type: 'string',
    enum: ['oauth2', 'none'],
    description: '`none`: the console runs without authentication (ADMIN_AUTH=none, development only).',
  },
  signIn: {
    type: 'boolean',
    description: 'Whether the sign-in form may exchange client credentials here (ADMIN_AUTH_TOKEN_URL set).',
  },
};

const transactionProperties: Json = {
  uetr: uuid,
  state: nullable({ type: 'string', description: "The transaction's current state." }),
  endToEndIdentification: nullable({ type: 'string' }),
  debtorAgentMemberId: nullable({ type: 'string' }),
  creditorAgentMemberId: nullable({ type: 'string' }),
  createdAt: nullable(dateTime),
  updatedAt: nullable(dateTime),
};

const schemas: Record<string, Json> = {
  ConsoleSession: object(
    ['operator', 'roles', 'authentication', 'signIn'],
    sessionProperties,
    'Who the access token names, and how this console signs operators in.',
  ),
  ConsoleSignIn: object(
    ['clientId', 'clientSecret'],
    {
      clientId: { type: 'string', minLength: 1, maxLength: 200 },
      clientSecret: { type: 'string', minLength: 1, maxLength: 500, writeOnly: true },
    },
    "An operator's OAuth2 client credentials, exchanged at the identity provider; never stored or logged.",
  ),
  ConsoleSignedIn: object(
    ['accessToken', 'tokenType', 'expiresIn', ...Object.keys(sessionProperties)],
    {
      accessToken: {
        type: 'string',
        description: 'The access token for the admin audience: the page sends it as a bearer token.',
      },
      tokenType: { const: 'Bearer' },
      expiresIn: { type: 'number', exclusiveMinimum: 0, description: 'Seconds the token is valid for.' },
      ...sessionProperties,
    },
    'The token the identity provider issued, checked as every later call checks it.',
  ),
  ConsoleUnavailable: object(
    ['available', 'source', 'error'],
    {
      available: { const: false },
      source: { ...target, description: 'The service that did not give the section.' },
      error: { type: 'string', description: 'Why: the call that failed, or the shape it answered in.' },
    },
    'A section a service did not give: the rest of the overview stands.',
  ),
  ConsoleOverview: object(
    [
      'generatedAt',
      'status',
      'problems',
      'services',
      'stages',
      'queue',
      'banks',
      'lanes',
      'reconciliation',
      'windows',
    ],
    {
      generatedAt: dateTime,
      status: {
        type: 'string',
        enum: ['ok', 'degraded'],
        description: '`degraded` when any call to a service failed: `problems` says which.',
      },
      problems: {
        type: 'array',
        items: { type: 'string' },
        description: 'One line per call that failed: which service, which route, why.',
      },
      services: { type: 'array', items: schemaRef('ConsoleService') },
      stages: { type: 'array', items: schemaRef('ConsoleStage') },
      queue: section(
        'ConsoleQueue',
        ['depth', 'byWindow', 'awaitingStatusReport', 'from'],
        {
          depth: count,
          byWindow: {
            type: 'object',
            additionalProperties: count,
            description: 'Queued debits by the business date of their window.',
          },
          awaitingStatusReport: nullable(count),
          from: {
            type: 'string',
            enum: ['admin', 'metrics'],
            description:
              "`admin`: the scheduler's GET /admin/queue; `metrics`: its gauge, when that route failed.",
          },
        },
        'The debit queue.',
      ),
      banks: section(
        'ConsoleBanks',
        ['items'],
        { items: { type: 'array', items: schemaRef('ConsoleBank') } },
        "Delivery health per bank, from the dispatcher's and the event publisher's metrics.",
      ),
      lanes: section(
        'ConsoleLanes',
        ['items'],
        { items: { type: 'array', items: schemaRef('ConsoleLane') } },
        "The event publisher's parked lanes (the first 20).",
      ),
      reconciliation: section(
        'ConsoleReconciliation',
        ['windowId', 'open', 'items'],
        {
          windowId: { type: 'string' },
          open: count,
          items: { type: 'array', items: schemaRef('ConsoleReconciliationItem') },
        },
        "Today's reconciliation report: the open count and the first 20 items.",
      ),
      windows: {
        description: "Today's windows, as the scheduler's GET /admin/windows answers them.",
        oneOf: [
          {
            type: 'object',
            required: ['available', 'businessDate', 'debitWindow'],
            properties: {
              available: { const: true },
              businessDate: { type: 'string', format: 'date' },
              debitWindow: schemaRef('SchedulerDebitWindow'),
              reconciliationWindow: schemaRef('SchedulerReconciliationWindowState'),
            },
          },
          schemaRef('ConsoleUnavailable'),
        ],
      },
    },
    'The pipeline now, from every service at once. Always answered: a service that fails is a problem listed and a section unavailable.',
  ),
  ConsoleService: {
    type: 'object',
    required: ['name', 'url', 'state', 'latencyMs'],
    properties: {
      name: target,
      url: { type: 'string', description: 'The base URL the console reads it at.' },
      state: {
        type: 'string',
        enum: ['up', 'not-ready', 'down'],
        description: '`down`: its /metrics did not answer; `not-ready`: its /health/ready did not pass.',
      },
      latencyMs: { type: 'number', minimum: 0, description: 'How long its /metrics took.' },
      error: { type: 'string' },
    },
    additionalProperties: false,
  },
  ConsoleStage: object(['id', 'label', 'service', 'help', 'total', 'ratePerSecond'], {
    id: { type: 'string' },
    label: { type: 'string' },
    service: target,
    help: { type: 'string' },
    total: {
      ...nullable({ type: 'number', minimum: 0 }),
      description: "The counter since the service's process started; null while it does not answer.",
    },
    ratePerSecond: rate,
  }),
  ConsoleBank: object(
    ['memberId', 'state', 'dispatcher', 'events'],
    {
      memberId: { type: 'string' },
      state: { type: 'string', enum: ['healthy', 'retrying', 'failing', 'paused', 'idle'] },
      dispatcher: nullable(
        object(['attempts', 'retryablePerSecond', 'finalPerSecond', 'inFlight', 'meanLatencyMs'], {
          attempts: object(['acknowledged', 'retryable', 'final'], {
            acknowledged: count,
            retryable: count,
            final: count,
          }),
          retryablePerSecond: rate,
          finalPerSecond: rate,
          inFlight: count,
          meanLatencyMs: nullable({ type: 'number', minimum: 0 }),
        }),
      ),
      events: nullable(
        object(
          [
            'attempts',
            'deliveries',
            'retryablePerSecond',
            'finalPerSecond',
            'parkedLanes',
            'parkedPostings',
            'paused',
            'meanLatencyMs',
          ],
          {
            attempts: object(['delivered', 'retryable', 'final'], {
              delivered: count,
              retryable: count,
              final: count,
            }),
            deliveries: object(['delivered', 'failed', 'expired'], {
              delivered: count,
              failed: count,
              expired: count,
            }),
            retryablePerSecond: rate,
            finalPerSecond: rate,
            parkedLanes: count,
            parkedPostings: count,
            paused: { type: 'boolean' },
            meanLatencyMs: nullable({ type: 'number', minimum: 0 }),
          },
        ),
      ),
    },
    "`paused`: the event publisher's breaker holds the bank; `failing`: final refusals since the last scrape; `retrying`: retryable failures since then, or lanes parked; `idle`: nothing sent yet. `dispatcher` and `events` are null when that service does not answer.",
  ),
  ConsoleLane: object(
    ['memberId', 'uetr', 'queued', 'headFailures', 'nextAttemptAt', 'parkedAt', 'lastError'],
    {
      memberId: { type: 'string' },
      uetr: { type: 'string' },
      queued: count,
      headFailures: count,
      nextAttemptAt: nullable(dateTime),
      parkedAt: nullable(dateTime),
      lastError: nullable({ type: 'string' }),
    },
  ),
  ConsoleReconciliationItem: object(['uetr', 'row', 'code', 'text', 'stateAtClose', 'status', 'createdAt'], {
    uetr: { type: 'string' },
    row: { type: 'integer' },
    code: { type: 'string' },
    text: { type: 'string' },
    stateAtClose: { type: 'string' },
    status: { type: 'string' },
    createdAt: { type: 'string' },
  }),
  ConsoleJourney: object(
    [...Object.keys(transactionProperties), 'states', 'deliveryAttemptCount', 'status', 'problems'],
    {
      ...transactionProperties,
      states: {
        type: 'array',
        items: schemaRef('ConsoleJourneyState'),
        description: 'In sequence order; messages and attempts sit under the state they happened in.',
      },
      deliveryAttemptCount: { ...count, description: 'Every delivery attempt ever recorded.' },
      status: {
        type: 'string',
        enum: ['ok', 'degraded'],
        description: '`degraded`: the event publisher did not answer; the postings are null.',
      },
      problems: { type: 'array', items: { type: 'string' } },
    },
    "A transaction's journey: its states, each with the messages, the delivery attempts and the event postings of its time.",
  ),
  ConsoleJourneyState: object(
    ['seq', 'eventId', 'eventType', 'from', 'to', 'at', 'service', 'messages', 'attempts', 'postings'],
    {
      seq: { type: 'integer', minimum: 0 },
      eventId: { type: 'string' },
      eventType: { type: 'string' },
      from: nullable({ type: 'string' }),
      to: { type: 'string' },
      at: { type: 'string' },
      service: { type: 'string', description: 'The service that emitted the change.' },
      messages: {
        type: 'array',
        items: object(['at', 'kind', 'messageIdentification', 'body'], {
          at: { type: 'string' },
          kind: { type: 'string' },
          messageIdentification: { type: 'string' },
          body: { description: 'The message as the record keeps it; a string when not JSON or too large.' },
        }),
      },
      attempts: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'at',
            'memberId',
            'endpoint',
            'messageIdentification',
            'httpStatus',
            'latencyMs',
            'outcome',
          ],
          properties: {
            at: { type: 'string' },
            memberId: { type: 'string' },
            endpoint: { type: 'string' },
            messageIdentification: { type: 'string' },
            httpStatus: nullable({ type: 'integer' }),
            latencyMs: { type: 'number', minimum: 0 },
            outcome: { type: 'string' },
            error: { type: 'string' },
          },
          additionalProperties: false,
        },
      },
      postings: {
        ...nullable({
          type: 'array',
          items: object(['memberId', 'outcome', 'attemptCount', 'lastStatus', 'lastLatencyMs'], {
            memberId: { type: 'string' },
            outcome: {
              type: 'string',
              enum: ['delivered', 'failed', 'expired', 'pending', 'queued', 'unknown'],
            },
            attemptCount: count,
            lastStatus: nullable({ type: 'integer' }),
            lastLatencyMs: nullable({ type: 'number', minimum: 0 }),
          }),
        }),
        description: "The change's event posting per bank; null when the event publisher could not be asked.",
      },
    },
  ),
  ConsoleTransactions: object(['transactions'], {
    transactions: {
      type: 'array',
      items: object(Object.keys(transactionProperties), transactionProperties),
      description: 'Newest first.',
    },
  }),
};

const trackerFailures = {
  '502': problem('DOWNSTREAM_REJECTED: the tracker answered with an error.'),
  '503': problem('DOWNSTREAM_REJECTED: the tracker could not be reached (Retry-After).', retryAfterHeader),
  '504': problem('DOWNSTREAM_TIMEOUT: the tracker did not answer within UPSTREAM_TIMEOUT.'),
};

const operations: AdminOperation[] = [
  {
    method: 'get',
    path: '/console/api/session',
    operationId: 'consoleSession',
    summary: 'Who is signed in',
    description:
      'The operator the access token names, the roles it grants, and how this console signs operators in.',
    responses: { '200': jsonResponse('The session.', schemaRef('ConsoleSession')) },
  },
  {
    method: 'post',
    path: '/console/api/session',
    operationId: 'consoleSignIn',
    summary: 'Sign in with client credentials',
    description:
      "Exchanges an operator's OAuth2 client id and secret for an access token at the identity provider (ADMIN_AUTH_TOKEN_URL, for ADMIN_AUTH_AUDIENCE): the page cannot reach another origin. The token is checked as every later call checks it. No token is needed for this call; the secret is neither stored nor logged.",
    role: null,
    requestBody: jsonBody('The client credentials.', schemaRef('ConsoleSignIn')),
    responses: {
      '200': jsonResponse('Signed in.', schemaRef('ConsoleSignedIn')),
      '400': problem('MALFORMED_JSON: the body is not JSON.'),
      '401': problem(
        'UNAUTHORIZED: the identity provider refused the client id and secret, or its token is not accepted here.',
        { 'WWW-Authenticate': { description: 'Bearer.', schema: { type: 'string' } } },
      ),
      '403': problem('FORBIDDEN: the client holds no operator role (operator.read).'),
      '404': problem(
        'NOT_FOUND: sign-in with client credentials is not set up (ADMIN_AUTH_TOKEN_URL unset).',
      ),
      '409': problem('CONFLICT: the console runs without authentication (ADMIN_AUTH=none).'),
      '413': problem('PAYLOAD_TOO_LARGE: over 16 kB.'),
      '415': problem('UNSUPPORTED_MEDIA_TYPE: the body is not application/json.'),
      '422': problem('VALIDATION_FAILED: errors names /clientId or /clientSecret.'),
      '503': problem(
        'DOWNSTREAM_TIMEOUT: the identity provider could not be asked (Retry-After: 5).',
        retryAfterHeader,
      ),
    },
  },
  {
    method: 'get',
    path: '/console/api/overview',
    operationId: 'consoleOverview',
    summary: 'The pipeline now',
    description:
      "Every service's /metrics and /health/ready, and the scheduler's and the event publisher's admin routes, read at once under UPSTREAM_TIMEOUT each (requests that arrive together share one round). Always 200: what did not answer is listed in problems and its section is unavailable.",
    responses: { '200': jsonResponse('The overview.', schemaRef('ConsoleOverview')) },
  },
  {
    method: 'get',
    path: '/console/api/transactions/{uetr}',
    operationId: 'consoleJourney',
    summary: "A transaction's journey",
    description:
      "The tracker's record of the transaction, with each state's event postings from the event publisher (four at a time; status degraded and postings null once it fails).",
    parameters: [pathParameter('uetr', "The transaction's UETR.", uuid)],
    responses: {
      '200': jsonResponse('The journey.', schemaRef('ConsoleJourney')),
      '404': problem(
        "NOT_FOUND: no such transaction (for one received and not yet recorded, the tracker's words, which say when).",
      ),
      '422': problem('VALIDATION_FAILED: the UETR is not a UUID; errors names /uetr.'),
      ...trackerFailures,
    },
  },
  {
    method: 'get',
    path: '/console/api/transactions',
    operationId: 'consoleTransactions',
    summary: 'Transactions by end-to-end identification',
    description: 'The transactions that carry an endToEndIdentification, newest first.',
    parameters: [
      queryParameter(
        'endToEndId',
        'The endToEndIdentification (1 to 35 characters).',
        {
          type: 'string',
          minLength: 1,
          maxLength: 35,
        },
        true,
      ),
      queryParameter('limit', 'How many at most (default 20).', {
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 20,
      }),
    ],
    responses: {
      '200': jsonResponse(
        'The transactions found (none is an empty list).',
        schemaRef('ConsoleTransactions'),
      ),
      '422': problem(
        'VALIDATION_FAILED: endToEndId missing or too long, or a bad limit; errors names which.',
      ),
      ...trackerFailures,
    },
  },
];

export const consoleAdmin: AdminServiceDoc = {
  service: 'console',
  description:
    "The console's JSON API: what its page reads (the pipeline now, a transaction's journey, a search) and its sign-in. Every call but the sign-in needs operator.read.",
  operations,
  schemas,
};
