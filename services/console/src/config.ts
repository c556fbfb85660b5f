import {
  adminAuthConfig,
  defineConfig,
  duration,
  logLevels,
  oneOf,
  port,
  secret,
  str,
  tracingConfig,
  url,
} from '@rp/runtime';

/** Every variable the console reads; `loadConfig` refuses to start while any of them is invalid. */
export const consoleConfigSpec = defineConfig({
  PORT: port({ default: 8087, doc: 'HTTP port of the console page, its JSON API, health and metrics' }),
  LOG_LEVEL: oneOf(logLevels, { default: 'info', doc: 'Minimum level of the JSON log lines' }),
  ...tracingConfig,
  INGRESS_URL: url({ default: 'http://127.0.0.1:8080', doc: "The ingress's base URL (its /metrics)" }),
  VALIDATOR_URL: url({ default: 'http://127.0.0.1:8081', doc: "The validator's base URL (its /metrics)" }),
  SCHEDULER_URL: url({
    default: 'http://127.0.0.1:8083',
    doc: "The scheduler's base URL (/metrics, /admin/windows, /admin/queue, /admin/reconciliation)",
  }),
  DISPATCHER_URL: url({ default: 'http://127.0.0.1:8084', doc: "The dispatcher's base URL (its /metrics)" }),
  TRACKER_URL: url({
    default: 'http://127.0.0.1:8085',
    doc: "The tracker's base URL (/metrics, /admin/transactions)",
  }),
  EVENT_PUBLISHER_URL: url({
    default: 'http://127.0.0.1:8086',
    doc: "The event publisher's base URL (/metrics, /admin/events/lanes, /admin/events/:id/deliveries)",
  }),
  // Operators signing in to the console: the same tokens and roles as the services' admin APIs.
  ...adminAuthConfig,
  ADMIN_AUTH_TOKEN_URL: url({
    optional: true,
    doc: "The identity provider's token endpoint: the console's own client takes its token there, and the sign-in form exchanges an operator's client credentials there (unset: operators paste an access token)",
  }),
  // The console's own OAuth2 client, for its calls on the services' admin routes (operator.read).
  ADMIN_CLIENT_ID: str({
    optional: true,
    doc: "The console's own OAuth2 client id, for the services' admin routes (needs ADMIN_AUTH_TOKEN_URL and ADMIN_CLIENT_SECRET; unset: it calls them without a token, for services with ADMIN_AUTH=none)",
  }),
  ADMIN_CLIENT_SECRET: secret({ optional: true, doc: "The console's own OAuth2 client secret" }),
  ADMIN_CLIENT_SCOPE: str({
    default: 'operator.read',
    doc: 'The scope the console asks for its own token: it only reads',
  }),
  UPSTREAM_TIMEOUT: duration({
    default: 1_500,
    doc: 'Longest wait for any one call to another service; past it the service counts as not answering',
  }),
  SHUTDOWN_TIMEOUT: duration({ default: 5_000, doc: 'Time for requests in progress at shutdown' }),
});
