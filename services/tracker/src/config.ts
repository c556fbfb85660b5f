import {
  bool,
  defineConfig,
  duration,
  int,
  list,
  logLevels,
  oneOf,
  port,
  str,
  tracingConfig,
  url,
} from '@rp/runtime';

/** Every variable the tracker reads; `loadConfig` refuses to start while any of them is invalid. */
export const trackerConfigSpec = defineConfig({
  PORT: port({ default: 8085, doc: 'HTTP port of the admin API, health and metrics' }),
  LOG_LEVEL: oneOf(logLevels, { default: 'info', doc: 'Minimum level of the JSON log lines' }),
  ...tracingConfig,
  KAFKA_BROKERS: list({ doc: 'Kafka bootstrap brokers, host:port,...' }),
  SCHEMA_REGISTRY_URL: url({ doc: 'Confluent-compatible schema registry API base URL' }),
  MONGODB_URI: url({
    protocols: ['mongodb:', 'mongodb+srv:'],
    doc: 'MongoDB connection string (transaction snapshots)',
  }),
  MONGODB_DATABASE: str({ default: 'rp', doc: 'Database holding the engine collections' }),
  TOPIC_NAMESPACE: str({
    optional: true,
    pattern: /^[a-zA-Z0-9._-]+$/,
    doc: 'Prefix of every topic name, so that several pipelines (or tests) share one cluster',
  }),
  TOPIC_PARTITIONS: int({
    optional: true,
    min: 1,
    doc: 'Partitions of topics created at start-up when missing; default: the topic catalogue',
  }),
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest wait for the broker to acknowledge postings before the batch is retried',
  }),
  TRACKER_CACHE_SIZE: int({
    default: 100_000,
    min: 1,
    doc: 'Transactions kept in memory to sequence without a snapshot read (a few hundred bytes each)',
  }),
  TRACKER_PARTITIONS_CONCURRENTLY: int({
    default: 4,
    min: 1,
    doc: 'State topic partitions handled at the same time',
  }),
  TRACKER_RECORD_EVENT_DELIVERIES: bool({
    default: false,
    doc: "Also record event posting deliveries in snapshots (they are in the event-publisher's delivery log)",
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 10_000,
    doc: 'How long batches in progress may take to finish at shutdown',
  }),
});
