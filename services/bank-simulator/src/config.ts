import { defineConfig, duration, int, list, logLevels, oneOf, port, secret, str, url } from '@rp/runtime';

/** Every variable the bank simulator reads; `loadConfig` refuses to start while any of them is invalid. */
export const bankSimulatorConfigSpec = defineConfig({
  PORT: port({
    default: 8090,
    doc: 'HTTP port: the banks under /banks/<memberId>, the /sim admin routes, health, metrics',
  }),
  LOG_LEVEL: oneOf(logLevels, { default: 'info', doc: 'Minimum level of the JSON log lines' }),
  ENGINE_URL: url({
    optional: true,
    doc: "The engine's ingress base URL, where inbound debits and credit transfer authorisations are answered; unset: they are stored, not answered",
  }),
  RESPONSE_DELAY: duration({
    default: 50,
    doc: 'How long a bank takes to debit or credit the account before it reports',
  }),
  INSUFFICIENT_FUNDS_ACCOUNTS: list({
    optional: true,
    doc: 'Debtor account numbers the banks answer RJCT AM04 (insufficient funds) for',
  }),
  CLOSED_ACCOUNTS: list({
    optional: true,
    doc: 'Creditor account numbers the banks answer RJCT AC04 (closed account) to credit transfer authorisations for',
  }),
  SIGNING_SECRETS: secret({
    optional: true,
    doc: 'JSON {"<memberId>": ["secret", ...]}: secrets whose signatures a bank accepts on postings and credits (several during rotation)',
  }),
  OAUTH_ISSUER: url({
    optional: true,
    doc: "Play the banks' identity provider under this issuer URL (its path on this server: {path}/token, {path}/jwks); unset: none",
  }),
  OAUTH_AUDIENCE: str({ default: 'regulated-payments', doc: 'The aud of the access tokens it issues' }),
  OAUTH_CLIENTS: secret({
    optional: true,
    doc: 'JSON {"<clientId>": "<secret>"}: the banks\' OAuth2 clients (client id: the member id)',
  }),
  OAUTH_CLIENT_SCOPES: str({
    optional: true,
    doc: 'JSON {"<clientId>": "<scope> ..."}: the scopes a client may be granted (operators: operator.read, operator.replay); clients not named: payments',
  }),
  SIGNATURE_TOLERANCE: int({
    optional: true,
    min: 1,
    doc: 'Largest accepted age of webhook-timestamp in seconds; unset: not checked (demo clocks may run fast)',
  }),
  FAULTS: str({
    optional: true,
    doc: 'JSON array of fault rules in force from the start (same shape as POST /sim/faults)',
  }),
  REQUEST_LOG_SIZE: int({
    default: 10_000,
    min: 1,
    doc: 'Requests to the message routes kept for inspection (/sim/requests); the oldest are forgotten first',
  }),
  POSTING_LOG_SIZE: int({
    default: 100_000,
    min: 1,
    doc: 'Event postings kept for inspection (/sim/postings); the oldest are forgotten first, the counters and the order check cover all',
  }),
  MESSAGE_LOG_SIZE: int({
    default: 100_000,
    min: 1,
    doc: 'Messages exchanged with the engine kept for inspection (/sim/messages) and for spotting resends; the oldest are forgotten first, the counters cover all',
  }),
  RESPONSE_MAX_ATTEMPTS: int({
    default: 100,
    min: 1,
    doc: 'Attempts to deliver a report to the engine before giving up',
  }),
});
