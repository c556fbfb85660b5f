import { eventsApiVersion } from '../api-version.ts';
import type { SchemaSet } from '../avro/schema-set.ts';
import {
  bankPaths,
  deliveryHeaders,
  maxRequestBodyBytes,
  readPaths,
  servicePaths,
} from '../http/endpoints.ts';
import { problemContentType, problemTypes } from '../http/problems.ts';
import { type JsonSchema, JsonSchemaBuilder, jsonSchemaDialect } from '../json/json-schema.ts';

type Json = Record<string, unknown>;

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

const errorResponses = {
  '400': responseRef('MalformedJson'),
  '409': responseRef('DuplicateMessage'),
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
  '422': responseRef('ValidationFailed'),
  '429': responseRef('RateLimited'),
  '503': responseRef('Unavailable'),
};

interface Operation {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  body: string;
  sentBy: string;
  /** The caller proves who it is with the scheme's bearer token (a 401 otherwise). */
  schemeCredentials?: boolean;
}

/** Name of the security scheme of the routes payment schemes call. */
const schemeSecurity = 'schemeBearerToken';
/** Name of the security scheme of the routes banks call. */
const bankSecurity = 'bankOAuth2';

const serviceOperations: Operation[] = [
  {
    path: servicePaths.outboundDirectDebit,
    operationId: 'outboundDirectDebit',
    summary: 'Submit an on-us direct debit',
    sentBy: 'The initiating bank.',
    description:
      "The engine answers 202 once the debit is durably stored; it then validates the accounts (CDV) and limits and sends a PaymentStatusReport (ACCP or RJCT) to the bank's /outbound/direct-debit-response. A resent debit with the same messageIdentification and the same content gets the same 202; different content under a used messageIdentification is a 409.",
    body: 'DirectDebit',
  },
  {
    path: servicePaths.inboundDirectDebitResponse,
    operationId: 'inboundDirectDebitResponse',
    summary: 'Report the outcome of an inbound direct debit',
    sentBy: 'The actioning bank, after debiting the account (ACSC) or refusing it (RJCT).',
    description: 'The PaymentStatusReport for an inbound DirectDebit the engine delivered. 202 once stored.',
    body: 'PaymentStatusReport',
  },
  {
    path: servicePaths.inboundCreditTransferAuthorization,
    operationId: 'inboundCreditTransferAuthorization',
    summary: 'Submit a credit transfer authorisation',
    sentBy: 'A payment scheme or clearing house, with its own bearer token (not a bank).',
    description:
      "The switch receives a credit transfer for a participating bank (the event CREDIT_AUTH_RECEIVED is posted for it) and delivers it to the creditor's bank. 202 once stored. creditorAgent.memberId must name a participant (422 otherwise). A resent credit with the same messageIdentification and the same content gets the same 202; different content under a used messageIdentification, or a UETR another message already started a transaction with, is a 409. The spec does not show this path; it is the engine's choice.",
    body: 'CreditTransfer',
    schemeCredentials: true,
  },
  {
    path: servicePaths.schemeInboundDirectDebit,
    operationId: 'inboundDirectDebitFromScheme',
    summary: 'Submit an inbound off-us direct debit',
    sentBy: 'A payment scheme or clearing house, with its own bearer token (not a bank).',
    description:
      "A direct debit from another scheme's bank on an account at a participating bank (the event DEBIT_REQUEST_RECEIVED is posted for it). The engine validates it and holds it in the debit queue until the debit window, then delivers it to the actioning bank; no status report goes back to the clearing house. 202 once stored. debtorAgent.memberId must name a participant (422 otherwise). A resent debit with the same messageIdentification and the same content gets the same 202; different content under a used messageIdentification, or a UETR another message already started a transaction with, is a 409. The spec does not show this path; it is the engine's choice.",
    body: 'DirectDebit',
    schemeCredentials: true,
  },
  {
    path: servicePaths.inboundCreditTransferAuthorizationResponse,
    operationId: 'inboundCreditTransferAuthorizationResponse',
    summary: 'Answer a credit transfer authorisation',
    sentBy: "The creditor's bank, after crediting the account (ACSC or ACCC) or refusing it (RJCT).",
    description:
      "The PaymentStatusReport for a credit transfer authorisation the engine delivered; the transaction's CREDIT_AUTH_RESPONSE_ACCEPTED. 202 once stored. The spec does not show this path; it is the engine's choice.",
    body: 'PaymentStatusReport',
  },
];

const webhookOperations: (Operation & { name: string })[] = [
  {
    name: 'events',
    path: bankPaths.eventPosting,
    operationId: 'eventPosting',
    summary: 'Event posting',
    sentBy: 'The engine, to {bank_events_url}/events.',
    description:
      'One POST for every event of every transaction the bank takes part in, in state order per transaction. Informational: the bank stores it; nothing it answers changes processing. Retried until 202 when the failure is retryable.',
    body: 'EventPosting',
  },
  {
    name: 'outbound-direct-debit-response',
    path: bankPaths.outboundDirectDebitResponse,
    operationId: 'outboundDirectDebitResponse',
    summary: 'Status report for an outbound direct debit',
    sentBy: 'The engine, to the initiating bank.',
    description:
      'ACCP or RJCT (with reasons) for a DirectDebit the bank submitted. Sent store-and-forward until the bank answers 202.',
    body: 'PaymentStatusReport',
  },
  {
    name: 'inbound-direct-debit',
    path: bankPaths.inboundDirectDebit,
    operationId: 'inboundDirectDebit',
    summary: 'Direct debit to action',
    sentBy: 'The engine, to the actioning bank, in the debit window.',
    description:
      "The bank answers 202, debits the account, then POSTs a PaymentStatusReport to the engine's inbound/direct-debit-response.",
    body: 'DirectDebit',
  },
  {
    name: 'inbound-credit-transfer-authorization',
    path: bankPaths.inboundCreditTransferAuthorization,
    operationId: 'deliverCreditTransferAuthorization',
    summary: 'Credit transfer for the creditor',
    sentBy: "The engine, to the creditor's bank.",
    description:
      "A validated credit transfer authorisation. The path is the engine's choice (the spec does not show it).",
    body: 'CreditTransfer',
  },
];

function problemResponse(description: string, extra: Json = {}): Json {
  return {
    description,
    content: { [problemContentType]: { schema: schemaRef('ProblemDetails') } },
    ...extra,
  };
}

function headerParameter(name: string, description: string, required: boolean): Json {
  return { name, in: 'header', required, description, schema: { type: 'string' } };
}

const traceParameters = [
  headerParameter(deliveryHeaders.traceparent, 'W3C trace context.', false),
  headerParameter(deliveryHeaders.tracestate, 'W3C trace context.', false),
];

const signatureParameters = [
  headerParameter(deliveryHeaders.id, 'Message id, the same on every redelivery of the message.', true),
  headerParameter(deliveryHeaders.timestamp, 'Unix time in seconds when this attempt was signed.', true),
  headerParameter(
    deliveryHeaders.signature,
    'Space-separated signatures "v1,<base64 HMAC-SHA256 of <webhook-id>.<webhook-timestamp>.<body>>" under the participant\'s signing secret (several during a key rotation).',
    true,
  ),
];

/**
 * A bank reads the status of one transaction it is party to. Everything it may not see answers exactly as
 * what does not exist (404), so the answers tell a bank nothing about other banks' transactions.
 */
function getTransactionOperation(): Json {
  return {
    operationId: 'getTransaction',
    summary: 'Read the status of a transaction',
    description:
      "Where a transaction stands: its type, current state, whether that state is final, every state it reached with its time and sequence number, its end-to-end identification, agents and amount (exact, as the message carried it). The calling bank must be a party to the transaction: the instructing, instructed, debtor or creditor agent (by memberId) of the message that started it. Any other transaction, and one that does not exist, answers 404 with the same body. Needs bank authentication: an engine that identifies banks by their messages (BANK_AUTH=message, development only) refuses every read with 403. The state follows the engine's record, which may lag the latest event posting by a moment (up to half a second). A transaction read before it is recorded answers with its first state when the instance that acknowledged it answers the read, and otherwise 503 with Retry-After: 1 (to a party only) for a minute after its acknowledgement.\n\nSent by: A participating bank.",
    tags: ['Bank-facing API'],
    parameters: [
      {
        name: 'uetr',
        in: 'path',
        required: true,
        description: "The transaction's UETR, as its first message carried it.",
        schema: { type: 'string', format: 'uuid' },
        example: '2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24',
      },
      ...traceParameters,
    ],
    security: [{ [bankSecurity]: ['payments'] }],
    responses: {
      '200': {
        description: 'The transaction as the engine records it.',
        headers: {
          'Cache-Control': {
            description: "no-store: the answer is one bank's and changes as the transaction moves.",
            schema: { type: 'string' },
          },
        },
        content: { 'application/json': { schema: schemaRef('TransactionStatus') } },
      },
      '401': responseRef('Unauthorized'),
      '403': problemResponse(
        `${problemTypes.forbidden.title} (${problemTypes.forbidden.type}): the access token's client is no participant, or the engine does not authenticate banks (reads need bank authentication).`,
      ),
      '404': problemResponse(
        `${problemTypes.notFound.title} (${problemTypes.notFound.type}): no transaction with this UETR that the calling bank is party to. A transaction of other banks answers the same.`,
      ),
      '422': problemResponse(
        `${problemTypes.validationFailed.title} (${problemTypes.validationFailed.type}): the UETR is not a UUID; errors names /uetr.`,
      ),
      '429': problemResponse(
        `${problemTypes.rateLimited.title} (${problemTypes.rateLimited.type}): each bank has its own rate of reads, apart from its rate of messages.`,
        {
          headers: {
            'Retry-After': {
              description: 'Seconds to wait before reading again.',
              schema: { type: 'integer', minimum: 1 },
            },
          },
        },
      ),
      '503': problemResponse(
        `${problemTypes.unavailable.title} (${problemTypes.unavailable.type}): the store did not answer in time, the service is shutting down or too busy, the identity provider's keys could not be fetched, or the transaction was acknowledged moments ago and is not recorded yet (Retry-After: 1).`,
        {
          headers: {
            'Retry-After': {
              description: 'Seconds to wait before retrying.',
              schema: { type: 'integer', minimum: 0 },
            },
          },
        },
      ),
    },
  };
}

/** The OpenAPI 3.1 document of the engine's bank-facing API and of the calls it makes on banks (webhooks). */
export function buildOpenApiDocument(set: SchemaSet): Json {
  const builder = new JsonSchemaBuilder(set, { refPrefix: '#/components/schemas/', flavour: 'document' });
  const bodies = [
    'DirectDebit',
    'PaymentStatusReport',
    'CreditTransfer',
    'EventPosting',
    'Acknowledgement',
    'TransactionStatus',
    'ProblemDetails',
  ];
  const roots: Record<string, JsonSchema> = {};
  for (const name of bodies) {
    const root = builder.message(name);
    if (!('$ref' in root)) roots[name] = root;
  }
  const schemas = { ...builder.definitions(), ...roots };

  const paths: Json = {};
  for (const operation of serviceOperations) {
    paths[operation.path] = {
      post: {
        operationId: operation.operationId,
        summary: operation.summary,
        description: `${operation.description}\n\nSent by: ${operation.sentBy}`,
        tags: ['Bank-facing API'],
        parameters: traceParameters,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schemaRef(operation.body) } },
        },
        security: [operation.schemeCredentials ? { [schemeSecurity]: [] } : { [bankSecurity]: ['payments'] }],
        responses: {
          '202': responseRef('Accepted'),
          '401': responseRef('Unauthorized'),
          ...(operation.schemeCredentials ? {} : { '403': responseRef('Forbidden') }),
          ...errorResponses,
        },
      },
    };
  }

  paths[readPaths.transaction] = { get: getTransactionOperation() };

  const webhooks: Json = {};
  for (const operation of webhookOperations) {
    webhooks[operation.name] = {
      post: {
        operationId: operation.operationId,
        summary: operation.summary,
        description: `POST {bank base URL}${operation.path}. ${operation.description}\n\nSent by: ${operation.sentBy}`,
        tags: ['Calls on banks'],
        parameters: [...signatureParameters, ...traceParameters],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schemaRef(operation.body) } },
        },
        responses: {
          '202': { description: 'Acknowledged: the engine stops delivering this message.' },
          default: {
            description:
              'Not acknowledged. No response, a timeout, 5xx, 408, 425 and 429 are retried with backoff until the reconciliation window closes; any other status is final.',
          },
        },
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Regulated Payments engine',
      version: eventsApiVersion,
      description:
        'The bank-facing HTTP API of the payments engine (on-us direct debits, inbound off-us direct debits and credit transfer authorisations from clearing houses) and, as webhooks, the calls it makes on participating banks. Message schemas are generated from the Avro schemas in avro/. Amounts are JSON numbers kept exact end to end. Unknown members are refused (422). Every success is 202; errors are application/problem+json (RFC 9457).',
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect,
    servers: [
      {
        url: '{base_url}',
        description: 'The engine',
        variables: { base_url: { default: 'http://localhost:8080', description: 'Base URL of the engine' } },
      },
    ],
    tags: [
      { name: 'Bank-facing API', description: 'Requests banks and schemes make on the engine.' },
      { name: 'Calls on banks', description: 'Requests the engine makes on a participating bank.' },
    ],
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: {
        [bankSecurity]: {
          type: 'oauth2',
          description:
            "A bank's OAuth2 access token (a JWT, RFC 9068) from the identity provider the operator names, by the client credentials grant. The engine checks it against the provider's JWKS (signature, iss, aud, exp) and maps its client_id to one participant; a bank sends only as itself (its instructingAgent). Mutual TLS at the cluster's edge is the documented alternative (BANK_AUTH=message behind it).",
          flows: {
            clientCredentials: {
              tokenUrl: 'https://identity-provider.example/oauth2/token',
              scopes: {
                payments:
                  'Submit payment messages, and read the transactions it is party to, as the bank the token names',
              },
            },
          },
        },
        [schemeSecurity]: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A payment scheme's or clearing house's own token, issued by the engine's operator (separate from any bank's credentials). The engine keeps only its SHA-256. Bank-facing routes do not take it.",
        },
      },
      responses: {
        Accepted: {
          description: 'Durably accepted; processing continues asynchronously.',
          content: { 'application/json': { schema: schemaRef('Acknowledgement') } },
        },
        MalformedJson: problemResponse(
          `${problemTypes.malformedJson.title} (${problemTypes.malformedJson.type}).`,
        ),
        Forbidden: problemResponse(
          `${problemTypes.forbidden.title} (${problemTypes.forbidden.type}): the access token is another bank's than the message's instructingAgent, or its client is no participant.`,
        ),
        Unauthorized: problemResponse(
          `${problemTypes.unauthorized.title} (${problemTypes.unauthorized.type}): no bearer token, or one that does not verify (a bank's: signature, issuer, audience, expiry; a scheme's: not a configured scheme's). Checked before the body is read.`,
          {
            headers: {
              'WWW-Authenticate': {
                description:
                  'The scheme to authenticate with: Bearer (with error="invalid_token" when a token was sent).',
                schema: { type: 'string' },
              },
            },
          },
        ),
        DuplicateMessage: problemResponse(
          `${problemTypes.duplicateMessage.title} (${problemTypes.duplicateMessage.type}). The same content again is accepted (202). ` +
            `For a message that starts a transaction (a DirectDebit, a CreditTransfer) also: ${problemTypes.duplicateTransaction.title.toLowerCase()} (${problemTypes.duplicateTransaction.type}), with errors at /transactionIdentifiers/uetr; a corrected message needs a new UETR.`,
        ),
        PayloadTooLarge: problemResponse(
          `${problemTypes.payloadTooLarge.title}: at most ${maxRequestBodyBytes} bytes (${problemTypes.payloadTooLarge.type}).`,
        ),
        UnsupportedMediaType: problemResponse(
          `${problemTypes.unsupportedMediaType.title} (${problemTypes.unsupportedMediaType.type}).`,
        ),
        ValidationFailed: problemResponse(
          `${problemTypes.validationFailed.title} (${problemTypes.validationFailed.type}): errors lists every invalid member with a JSON pointer.`,
        ),
        RateLimited: problemResponse(
          `${problemTypes.rateLimited.title} (${problemTypes.rateLimited.type}): each bank and each scheme has its own rate; nothing was recorded.`,
          {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before sending again.',
                schema: { type: 'integer', minimum: 1 },
              },
            },
          },
        ),
        Unavailable: problemResponse(
          `${problemTypes.unavailable.title} (${problemTypes.unavailable.type}): shutting down, too many messages in progress, or the broker or the store away; nothing was acknowledged. A bank's report on a transaction whose UETR was claimed before claims recorded their transactions, and whose record lags, is answered so too, with Retry-After: 1.`,
          {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before retrying.',
                schema: { type: 'integer', minimum: 0 },
              },
            },
          },
        ),
      },
    },
  };
}
