import { defaultCompression, defaultLingerMs, kafkaCompressions } from '@rp/kafka';
import { duration, int, list, logLevels, oneOf, str, tracingConfig, url } from '@rp/runtime';

/**
 * The settings every pipeline service reads alike: log level, tracing, Kafka and its schema registry,
 * MongoDB, the topic namespace and partitions. `storeUse` says what the service keeps in MongoDB (it is
 * shown in the MONGODB_URI description).
 */
export function pipelineConfig(storeUse: string) {
  return {
    ...streamConfig(),
    MONGODB_URI: url({
      protocols: ['mongodb:', 'mongodb+srv:'],
      doc: `MongoDB connection string (${storeUse})`,
    }),
    MONGODB_DATABASE: str({ default: 'rp', doc: 'Database holding the engine collections' }),
  };
}

/** The settings of a pipeline service that keeps nothing in MongoDB: `pipelineConfig` without MongoDB. */
export function streamConfig() {
  return {
    LOG_LEVEL: oneOf(logLevels, { default: 'info', doc: 'Minimum level of the JSON log lines' }),
    ...tracingConfig,
    KAFKA_BROKERS: list({ doc: 'Kafka bootstrap brokers, host:port,...' }),
    SCHEMA_REGISTRY_URL: url({ doc: 'Confluent-compatible schema registry API base URL' }),
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
    KAFKA_COMMIT_INTERVAL: duration({
      default: 250,
      doc: "Longest wait before a consumer commits what it handled, every partition's offsets in one request (0: after every batch); a crash re-delivers up to this much",
    }),
    KAFKA_LINGER: duration({
      default: defaultLingerMs,
      doc: "Longest a produced record waits for others to share its produce request: higher, fewer and larger requests (less CPU per record in the broker and in every service that reads them, most of all near the machine's limit), each hop (and the ingress's 202) waiting up to this long",
    }),
    KAFKA_COMPRESSION: oneOf(kafkaCompressions, {
      default: defaultCompression,
      doc: "How the record batches a service produces are compressed: zstd makes a journey's records 3.7-4.5 times smaller in Kafka's log, on the network and between replicas, for 3-6% more CPU a debit where everything shares one host; the services read every compression whatever this is",
    }),
    KAFKA_FETCH_MIN_BYTES: int({
      default: 1,
      min: 1,
      doc: 'Bytes a consumer fetch waits for (up to KAFKA_FETCH_MAX_WAIT) before it returns: above 1, a busy consumer handles fewer, larger batches, each hop waiting up to KAFKA_FETCH_MAX_WAIT (set it lower with it)',
    }),
    KAFKA_FETCH_MAX_WAIT: duration({
      default: 2_000,
      doc: 'Longest a consumer fetch waits for KAFKA_FETCH_MIN_BYTES; also how often an idle consumer asks, how soon a resumed partition is fetched again and how long a graceful stop waits for the fetch in flight',
    }),
  };
}
