import { defineConfig, duration, logLevels, oneOf, port, secret, tracingConfig, url } from '@rp/runtime';

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
  SCHEDULER_ADMIN_TOKEN: secret({
    optional: true,
    doc: "Bearer token of the scheduler's admin routes, when the scheduler has ADMIN_TOKEN set",
  }),
  UPSTREAM_TIMEOUT: duration({
    default: 1_500,
    doc: 'Longest wait for any one call to another service; past it the service counts as not answering',
  }),
  SHUTDOWN_TIMEOUT: duration({ default: 5_000, doc: 'Time for requests in progress at shutdown' }),
});
