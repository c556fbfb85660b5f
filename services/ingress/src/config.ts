import { pipelineConfig } from '@rp/pipeline';
import { defineConfig, duration, int, oneOf, port, str, url } from '@rp/runtime';

/** Every variable the ingress reads; `loadConfig` refuses to start while any of them is invalid. */
export const ingressConfigSpec = defineConfig({
  PORT: port({ default: 8080, doc: 'HTTP port of the bank- and scheme-facing API, health and metrics' }),
  ...pipelineConfig('idempotency keys, transaction snapshots'),
  PARTICIPANTS: str({ doc: 'Participating banks: path of a JSON file, or the JSON array itself' }),
  SCHEME_CLIENTS: str({
    optional: true,
    doc: 'Payment schemes allowed to submit credit transfer authorisations and inbound off-us direct debits: JSON [{"id","tokenSha256"}] (hex SHA-256 of each bearer token), or the path of a JSON file; unset: none',
  }),
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 5_000,
    doc: 'Longest wait for the broker to acknowledge a message before the bank gets 503 (the bank resends)',
  }),
  BANK_AUTH: oneOf(['oauth2', 'message'] as const, {
    default: 'oauth2',
    doc: 'How banks prove who they are: oauth2 (a JWT access token from the identity provider, checked against its JWKS) or message (the instructing agent names the bank: development only, nothing proves it)',
  }),
  BANK_AUTH_JWKS_URL: url({
    optional: true,
    doc: "The identity provider's JWKS (required with BANK_AUTH=oauth2)",
  }),
  BANK_AUTH_ISSUER: str({
    optional: true,
    doc: 'The iss of bank access tokens (required with BANK_AUTH=oauth2)',
  }),
  BANK_AUTH_AUDIENCE: str({
    default: 'regulated-payments',
    doc: 'The aud bank access tokens must carry: this API',
  }),
  RETRY_AFTER: duration({ default: 5_000, doc: 'Retry-After sent with every 503' }),
  MAX_IN_FLIGHT: int({
    default: 1_000,
    min: 1,
    doc: 'Messages in progress at most; beyond it the ingress answers 503 with Retry-After (never a 202 it has not made durable)',
  }),
  SENDER_RATE_LIMIT: int({
    optional: true,
    min: 1,
    doc: 'Messages per second each bank and each scheme may send; beyond it 429 with Retry-After. Unset: no limit',
  }),
  SENDER_RATE_BURST: int({
    optional: true,
    min: 1,
    doc: 'Messages a sender may send at once after a quiet time (default: one second of SENDER_RATE_LIMIT)',
  }),
  CLAIM_CACHE_SIZE: int({
    default: 20_000,
    min: 0,
    doc: "Transactions whose claims this instance remembers (those it took last, about 11 MB for 20,000), so that a bank's report on one is admitted without a read; 0: every report reads its transaction's claim",
  }),
  ACCEPTED_CACHE_SIZE: int({
    default: 5_000,
    min: 0,
    doc: 'Transactions this instance remembers having acknowledged (the last ones, with their first states; about 4 MB for 5,000), so that a bank reading one before its snapshot is written is answered 200 with that state; 0: such a read answers 503 with Retry-After',
  }),
  IDEMPOTENCY_RETENTION: duration({
    optional: true,
    min: 1,
    doc: 'How long a message\'s idempotency claim and its "produced" marker are kept after its receipt; a message sent again later is taken as new, but for one that starts a transaction, still known by its UETR (those keys are kept). Unset: kept',
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 10_000,
    doc: 'How long requests in progress may take to finish at shutdown',
  }),
});
