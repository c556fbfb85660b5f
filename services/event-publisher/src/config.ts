import { pipelineConfig } from '@rp/pipeline';
import { adminAuthConfig, defineConfig, duration, int, list, port, secret, str } from '@rp/runtime';

/** Every variable the event publisher reads; `loadConfig` refuses to start while any of them is invalid. */
export const eventPublisherConfigSpec = defineConfig({
  PORT: port({ default: 8086, doc: 'HTTP port of the admin API (replay, delivery log), health and metrics' }),
  ...pipelineConfig('delivery log, stored postings, parked lanes, transaction snapshots'),
  ...adminAuthConfig,
  PARTICIPANTS: str({
    doc: 'Participating banks (events URL, event classes): path of a JSON file, or the JSON array itself',
  }),
  SIGNING_SECRETS: secret({
    optional: true,
    doc: 'JSON {"<memberId>" or "*": ["secret", ...]}: every active secret of a bank signs its postings (rotation); required for each bank with an events URL',
  }),
  EVENTS_ATTEMPT_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest one POST to a bank may take before it counts as no answer (and is retried)',
  }),
  EVENTS_CONNECT_TIMEOUT: duration({
    default: 3_000,
    doc: 'Longest opening a connection to a bank may take',
  }),
  EVENTS_RETRY_SCHEDULE: list({
    default: ['1s', '2s', '5s', '15s', '1m', '5m', '15m'],
    doc: 'Delays before the 1st, 2nd, ... retry of a posting; the last one repeats',
  }),
  EVENTS_RETRY_JITTER: int({
    default: 20,
    min: 0,
    max: 99,
    doc: 'Percentage each retry delay is moved at random either way, so parked postings do not return together',
  }),
  EVENTS_RETRY_MAX_AGE: duration({
    default: 48 * 3_600_000,
    doc: 'How long a posting may wait for its bank before it is recorded as expired',
  }),
  EVENTS_POSTING_RETENTION: duration({
    optional: true,
    doc: 'How long a stored posting (one that waited for its bank, or was replayed) is kept after it was last stored; longer than EVENTS_RETRY_MAX_AGE; default: EVENTS_RETRY_MAX_AGE and a day',
  }),
  EVENTS_DELIVERY_LOG_RETENTION: duration({
    optional: true,
    doc: 'How long a delivery log entry is kept once its delivery ended (delivered, failed or expired), after it last changed; longer than EVENTS_RETRY_MAX_AGE; unset: kept, as the audit of what each bank was sent',
  }),
  EVENTS_RETRY_AFTER_MAX: duration({
    default: 3_600_000,
    doc: 'Longest Retry-After from a bank that is honoured (a longer one is cut to it)',
  }),
  EVENTS_BANK_CONCURRENCY: int({
    default: 32,
    min: 1,
    doc: 'Requests in flight to one bank (its keep-alive connection pool)',
  }),
  EVENTS_KEEPALIVE: duration({
    default: 4_000,
    doc: 'Idle time a pooled connection is kept (below the usual server keep-alive of 5 s)',
  }),
  EVENTS_BREAKER_THRESHOLD: int({
    default: 5,
    min: 1,
    doc: 'Retryable failures in a row after which a bank is paused (its postings parked without attempts)',
  }),
  EVENTS_BREAKER_COOLDOWN: duration({ default: 1_000, doc: 'First pause of a bank before a probe' }),
  EVENTS_BREAKER_MAX_COOLDOWN: duration({
    default: 15_000,
    doc: 'Longest pause between probes of a bank that is down (the pause doubles per failed probe)',
  }),
  EVENTS_MAX_PARKED_LANES: int({
    default: 250_000,
    min: 1,
    doc: 'Parked (bank, transaction) lanes one process tracks; beyond, consumption waits (the rest stays in Kafka)',
  }),
  EVENTS_PARTITIONS_CONCURRENTLY: int({
    default: 4,
    min: 1,
    doc: 'rp.events.v1 partitions handled at the same time',
  }),
  EVENTS_LANE_CONCURRENCY: int({
    default: 256,
    min: 1,
    doc: 'Transactions of one batch delivered at the same time (each one in order)',
  }),
  EVENTS_DIRECT_BUDGET: duration({
    optional: true,
    doc: 'How long one batch sends directly before queueing the rest for the worker (a slow bank delays its partition by at most this); default: EVENTS_ATTEMPT_TIMEOUT',
  }),
  EVENTS_WORKER_CONCURRENCY: int({ default: 64, min: 1, doc: 'Parked lanes retried at the same time' }),
  EVENTS_RECENT_POSTINGS: int({
    default: 10_000,
    min: 0,
    doc: 'Stored postings kept in memory (about 3 kB each), so that the worker delivers the postings this process parked without reading them back; 0 keeps none',
  }),
  EVENTS_REPLAY_MAX: int({ default: 10_000, min: 1, doc: 'Most postings one replay request queues' }),
  SHUTDOWN_TIMEOUT: duration({
    default: 20_000,
    doc: 'How long the batch and the attempts in progress may take to finish at shutdown',
  }),
});
