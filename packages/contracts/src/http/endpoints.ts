/**
 * Paths of the engine's bank-facing HTTP API and of the endpoints a bank implements. The spec shows
 * the operations without a prefix; the engine serves them under /api/v1 so that a later, incompatible
 * version can live beside this one.
 */
export const apiPrefix = '/api/v1';

/** What the engine serves (requests from banks and schemes). */
export const servicePaths = {
  outboundDirectDebit: `${apiPrefix}/outbound/direct-debit`,
  inboundDirectDebitResponse: `${apiPrefix}/inbound/direct-debit-response`,
  inboundCreditTransferAuthorization: `${apiPrefix}/inbound/credit-transfer-authorization`,
  inboundCreditTransferAuthorizationResponse: `${apiPrefix}/inbound/credit-transfer-authorization-response`,
  schemeInboundDirectDebit: `${apiPrefix}/inbound/direct-debit`,
} as const;

/**
 * What a bank reads (GET), path parameters in OpenAPI's `{name}` form. A bank reads only what it is party
 * to; anything else answers as if it did not exist.
 */
export const readPaths = {
  transaction: `${apiPrefix}/transactions/{uetr}`,
} as const;

/**
 * What a bank implements, relative to its base URL (its events URL for /events). The credit transfer
 * authorisation path is not shown by the spec and is this engine's choice.
 */
export const bankPaths = {
  eventPosting: '/events',
  outboundDirectDebitResponse: '/outbound/direct-debit-response',
  inboundDirectDebit: '/inbound/direct-debit',
  inboundCreditTransferAuthorization: '/inbound/credit-transfer-authorization',
} as const;

/**
 * Headers on every call the engine makes on a bank. The signature follows the Standard Webhooks
 * scheme: webhook-signature is "v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>" under the
 * participant's signing secret; webhook-id is stable across redeliveries of the same message.
 */
export const deliveryHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
} as const;

/** Largest request body the engine accepts (413 above it). */
export const maxRequestBodyBytes = 1_048_576;
