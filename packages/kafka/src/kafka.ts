import type { Tracing } from '@rp/runtime';
import { type Admin, Kafka as KafkaJs, type Producer as KafkaJsProducer, logLevel } from 'kafkajs';
import { patchBatchChecksum } from './batch-checksum.ts';
import { type KafkaCompression, registerZstd } from './compression.ts';
import { type ConsumerOptions, type ConsumerRunner, startConsumer } from './consumer.ts';
import type { ConsumerObserver } from './consumer-metrics.ts';
import { createDeadLetterAdmin, type DeadLetterAdmin } from './dead-letters.ts';
import { fromKafkaJsError, KafkaError } from './errors.ts';
import { filterTimeoutNegativeWarning, kafkaJsLogCreator, type Logger, silentLogger } from './logger.ts';
import { isLegalTopicName } from './names.ts';
import { KeyedPartitioner } from './partitioner.ts';
import {
  createProducer,
  defaultOutboundOptions,
  type OutboundOptions,
  OutboundQueue,
  type Producer,
  type ProducerOptions,
} from './producer.ts';
import { type ReadAtOptions, type RecordPosition, readRecordsAt, type StoredRecord } from './reader.ts';
import { type KafkaRequestEvent, reportingRequests } from './request-metrics.ts';
import { patchRequestQueue } from './request-queue.ts';
import { metadataSafeAdmin } from './shared-admin.ts';

/** How long `ensureTopics` tries a broker that refuses transiently before it gives up. */
const ensureTopicsDeadlineMs = 60_000;

export interface KafkaOptions {
  brokers: readonly string[];
  /** By convention `<service>-<role>` (see `clientIdFor`). */
  clientId: string;
  logger?: Logger;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Spans for every record produced and handled, carried in the records' `traceparent` headers. */
  tracing?: Tracing;
  /** `commitIntervalMs` of every consumer that does not set its own. Default 0 (commit every batch). */
  commitIntervalMs?: number;
  /**
   * `fetchMinBytes` and `maxWaitTimeMs` of every consumer that does not set its own: a fetch returns once
   * this many bytes wait or this long has passed. Above 1 byte, a busy consumer takes its records in fewer,
   * larger batches (fewer fetches, handler calls, produce requests and batched writes) at the cost of up
   * to the wait per hop. Default: 1 byte and 500 ms (each record as soon as it is there).
   */
  fetch?: { minBytes?: number; maxWaitMs?: number };
  /**
   * `lingerMs` of every producer that does not set its own: how long a send waits for others to share its
   * produce request. Default 5 ms.
   */
  lingerMs?: number;
  /**
   * `compression` of every producer that does not set its own, and of what consumers write to their retry
   * tiers and dead-letter topics. Default `none`. Consumers read every compression whatever this is.
   */
  compression?: KafkaCompression;
  /** Told of every request a producer, consumer or admin of this client sends (see `kafkaRequestMetrics`). */
  onRequest?: (event: KafkaRequestEvent) => void;
  /** Told of every consumer's dead letters, stalls, crashes and lag (see `kafkaConsumerMetrics`). */
  consumers?: ConsumerObserver;
}

/** A topic as the project declares it (the broker does not create topics on first use). */
export interface TopicSpec {
  topic: string;
  partitions: number;
  /** Default: 3, or the number of brokers when there are fewer. */
  replicationFactor?: number;
  retentionMs?: number;
  cleanupPolicy?: 'delete' | 'compact' | 'compact,delete';
}

export interface KafkaClient {
  /**
   * Creates the topics that do not exist yet; existing ones are left as they are (a differing partition
   * count is logged, never changed: adding partitions would move keys and break their order).
   */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  /** An idempotent, acks=all producer that coalesces concurrent sends into batches. */
  createProducer<M>(options: ProducerOptions<M>): Producer<M>;
  /** Joins the group and starts handling; resolves once the consumer has joined. */
  runConsumer<T>(options: ConsumerOptions<T>): Promise<ConsumerRunner>;
  /** Lists, reads and redrives the consumer groups' dead-letter topics (operator work, off the hot path). */
  deadLetters(): DeadLetterAdmin;
  /**
   * The records of `topic` at `positions`, keyed by `positionKey` (off the hot path: a consumer of its
   * own reads each partition from the first wanted offset to the last). Positions the topic does not
   * hold are missing.
   */
  readAt(
    topic: string,
    positions: readonly RecordPosition[],
    options?: ReadAtOptions,
  ): Promise<Map<string, StoredRecord>>;
  /** Disconnects the admin connection. Producers and consumers are disconnected by their owners first. */
  close(): Promise<void>;
}

/**
 * This package's changes to kafkajs's internals (the request queue's idle polling, the record batches'
 * checksum) and its zstd codec, once per process: every client, producer and consumer in it has them,
 * those made before the call too, but for the checksum, which kafkajs takes when it first produces or
 * fetches (so `createKafka` makes the changes before its client does either). The changes leave the bytes
 * on the wire as they were; the codec lets consumers read zstd batches and producers write them.
 */
export function patchKafkajs(): void {
  patchRequestQueue();
  patchBatchChecksum();
  registerZstd();
}

export function createKafka(options: KafkaOptions): KafkaClient {
  patchKafkajs();
  filterTimeoutNegativeWarning();
  const logger = options.logger ?? silentLogger;
  const kafka = reportingRequests(
    new KafkaJs({
      clientId: options.clientId,
      brokers: [...options.brokers],
      logLevel: logLevel.WARN,
      logCreator: kafkaJsLogCreator(logger),
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
    }),
    options.onRequest,
  );

  let admin: Promise<Admin> | undefined;
  function connectedAdmin(): Promise<Admin> {
    admin ??= (async () => {
      const client = kafka.admin();
      try {
        await client.connect();
      } catch (error) {
        admin = undefined;
        throw fromKafkaJsError(error, 'connecting the admin client');
      }
      return metadataSafeAdmin(client);
    })();
    return admin;
  }

  /**
   * Idempotent producer: acks=all and one request in flight per broker connection. kafkajs rolls back its
   * sequence numbers when a request fails, which is only safe with a single request in flight, and its
   * idempotent producer serialises requests per broker anyway, so nothing is lost by it. Retries are
   * unlimited inside kafkajs (limiting them can break the idempotence); callers get their answer from
   * the delivery timeout instead.
   */
  function kafkaJsProducer(): KafkaJsProducer {
    return kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: KeyedPartitioner,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2_000 },
    });
  }

  /**
   * Creates the topics that are missing. A broker that is busy, one still loading its partitions after a
   * restart, or a topic that another client created a moment ago and whose metadata has not reached every
   * listener yet ("does not host this topic-partition"), fails the call transiently: it is tried again,
   * for up to a minute (a broker with thousands of partitions takes that long), before a retriable error
   * is thrown.
   */
  async function ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    const deadline = Date.now() + ensureTopicsDeadlineMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await declareTopics(topics);
      } catch (error) {
        if (!(error instanceof KafkaError) || !error.retriable || Date.now() >= deadline) throw error;
        logger.warn({ err: error, attempt }, 'declaring topics failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * 2 ** (attempt - 1))));
      }
    }
  }

  async function declareTopics(topics: readonly TopicSpec[]): Promise<void> {
    if (topics.length === 0) return;
    for (const spec of topics) {
      if (!isLegalTopicName(spec.topic)) throw new RangeError(`illegal topic name ${spec.topic}`);
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
        throw new RangeError(
          `topic ${spec.topic} needs a whole number of partitions, not ${spec.partitions}`,
        );
      }
    }
    const client = await connectedAdmin();
    try {
      // Only the missing ones are asked for: a topic that exists would come back as an error the client
      // logs at error level, and a batch with such an error is not waited on for its new topics' leaders.
      const existing = new Set(await client.listTopics());
      const missing = topics.filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0) {
        const { brokers } = await client.describeCluster();
        const defaultReplication = Math.max(1, Math.min(3, brokers.length));
        await client.createTopics({
          waitForLeaders: true,
          topics: missing.map((spec) => ({
            topic: spec.topic,
            numPartitions: spec.partitions,
            replicationFactor: spec.replicationFactor ?? defaultReplication,
            configEntries: [
              ...(spec.retentionMs === undefined
                ? []
                : [{ name: 'retention.ms', value: String(spec.retentionMs) }]),
              ...(spec.cleanupPolicy === undefined
                ? []
                : [{ name: 'cleanup.policy', value: spec.cleanupPolicy }]),
            ],
          })),
        });
      }
      const metadata = await client.fetchTopicMetadata({ topics: topics.map((spec) => spec.topic) });
      for (const spec of topics) {
        const found = metadata.topics.find((topic) => topic.name === spec.topic);
        if (found && found.partitions.length !== spec.partitions) {
          logger.warn(
            { topic: spec.topic, declared: spec.partitions, actual: found.partitions.length },
            'topic exists with a different partition count; left unchanged',
          );
        }
      }
    } catch (error) {
      throw fromKafkaJsError(error, 'declaring topics');
    }
  }

  return {
    ensureTopics,
    createProducer<M>(producerOptions: ProducerOptions<M>): Producer<M> {
      const outbound = new OutboundQueue(kafkaJsProducer, outboundOptions(producerOptions, options), logger);
      return createProducer(outbound, producerOptions.codecs, options.tracing);
    },
    runConsumer<T>(consumerOptions: ConsumerOptions<T>): Promise<ConsumerRunner> {
      return startConsumer(
        {
          kafka,
          admin: connectedAdmin,
          ensureTopics,
          logger,
          createKafkaJsProducer: kafkaJsProducer,
          ...(options.tracing ? { tracing: options.tracing } : {}),
          ...(options.consumers ? { observer: options.consumers } : {}),
        },
        withConsumerDefaults(consumerOptions, options),
      );
    },
    deadLetters() {
      return createDeadLetterAdmin({ kafka, admin: connectedAdmin, createKafkaJsProducer: kafkaJsProducer });
    },
    readAt(topic, positions, readOptions) {
      return readRecordsAt({ kafka, admin: connectedAdmin }, topic, positions, readOptions);
    },
    async close() {
      const client = admin;
      admin = undefined;
      if (client) await (await client.catch(() => undefined))?.disconnect();
    },
  };
}

/** A producer's batching and delivery settings: its own, else the client's linger, else the defaults. */
export function outboundOptions(
  producer: Omit<ProducerOptions<never>, 'codecs'>,
  client: Pick<KafkaOptions, 'lingerMs' | 'compression'>,
): OutboundOptions {
  return {
    lingerMs: producer.lingerMs ?? client.lingerMs ?? defaultOutboundOptions.lingerMs,
    compression: producer.compression ?? client.compression ?? defaultOutboundOptions.compression,
    limits: {
      maxRecords: producer.maxBatchRecords ?? defaultOutboundOptions.limits.maxRecords,
      maxBytes: producer.maxBatchBytes ?? defaultOutboundOptions.limits.maxBytes,
    },
    deliveryTimeoutMs: producer.deliveryTimeoutMs ?? defaultOutboundOptions.deliveryTimeoutMs,
  };
}

/** The client-wide consumer settings under what a consumer sets itself. */
export function withConsumerDefaults<T>(
  consumer: ConsumerOptions<T>,
  client: KafkaOptions,
): ConsumerOptions<T> {
  return {
    ...(client.commitIntervalMs === undefined ? {} : { commitIntervalMs: client.commitIntervalMs }),
    ...(client.fetch?.minBytes === undefined ? {} : { fetchMinBytes: client.fetch.minBytes }),
    ...(client.fetch?.maxWaitMs === undefined ? {} : { maxWaitTimeMs: client.fetch.maxWaitMs }),
    ...(client.compression === undefined ? {} : { compression: client.compression }),
    ...consumer,
  };
}
