import { avroTypeOptions, type TopicName } from '@rp/contracts';
import {
  type AvroSerde,
  clientIdFor,
  createAvroSerde,
  createKafka,
  type KafkaClient,
  type KafkaCompression,
  kafkaMetrics,
} from '@rp/kafka';
import type { Lifecycle, ServiceBase } from '@rp/runtime';
import { createPlainCodecs } from './plain-codecs.ts';
import { createPipelineProducer, type PipelineCodecs, type PipelineProducer } from './producer.ts';
import { resolveTopicNames, type TopicNames, topicSpecs } from './topics.ts';

/** The settings of `streamConfig()` that a service's Kafka client, topics and codecs are made from. */
export interface StreamSettings {
  readonly KAFKA_BROKERS: readonly string[];
  readonly SCHEMA_REGISTRY_URL: string;
  readonly TOPIC_NAMESPACE?: string | undefined;
  readonly TOPIC_PARTITIONS?: number | undefined;
  readonly KAFKA_COMMIT_INTERVAL: number;
  readonly KAFKA_LINGER: number;
  readonly KAFKA_COMPRESSION: KafkaCompression;
  readonly KAFKA_FETCH_MIN_BYTES: number;
  readonly KAFKA_FETCH_MAX_WAIT: number;
}

/** A pipeline service's Kafka: its client, its topics' names, its serde and the codecs of its topics. */
export interface ServiceStream {
  readonly names: TopicNames;
  readonly kafka: KafkaClient;
  readonly serde: AvroSerde;
  readonly codecs: Partial<PipelineCodecs>;
}

/**
 * Connects a pipeline service to its stream: the Kafka client of its settings (its requests counted in
 * its metrics, its spans in its tracing, closed when it stops), the catalogue's topics created where
 * missing, and the plain codecs of `topics` (the ones it reads and writes), their schemas registered with
 * BACKWARD compatibility first. `role` names its client among its others (`main` unless said).
 */
export async function connectStream(
  service: string,
  base: Pick<ServiceBase<StreamSettings>, 'config' | 'logger' | 'metrics' | 'lifecycle' | 'tracing'>,
  topics: readonly TopicName[],
  options: { readonly role?: string } = {},
): Promise<ServiceStream> {
  const { config, logger, metrics, lifecycle, tracing } = base;
  const names = resolveTopicNames(config.TOPIC_NAMESPACE);
  const kafka = createKafka({
    tracing,
    brokers: config.KAFKA_BROKERS,
    clientId: clientIdFor(service, options.role ?? 'main'),
    logger,
    ...kafkaMetrics(metrics),
    commitIntervalMs: config.KAFKA_COMMIT_INTERVAL,
    lingerMs: config.KAFKA_LINGER,
    compression: config.KAFKA_COMPRESSION,
    fetch: { minBytes: config.KAFKA_FETCH_MIN_BYTES, maxWaitMs: config.KAFKA_FETCH_MAX_WAIT },
  });
  lifecycle.onStop('other', 'kafka', () => kafka.close());
  await kafka.ensureTopics(
    topicSpecs(names, config.TOPIC_PARTITIONS === undefined ? {} : { partitions: config.TOPIC_PARTITIONS }),
  );
  const serde = createAvroSerde({ registryUrl: config.SCHEMA_REGISTRY_URL, avro: avroTypeOptions() });
  const codecs = await createPlainCodecs(serde, names, topics, { registryUrl: config.SCHEMA_REGISTRY_URL });
  return { names, kafka, serde, codecs };
}

/**
 * The service's producer on its stream, each send waiting up to `deliveryTimeoutMs` for the broker's
 * acknowledgement, flushed and disconnected in its lifecycle's producers phase.
 */
export function startProducer(
  stream: ServiceStream,
  deliveryTimeoutMs: number,
  lifecycle: Lifecycle,
): PipelineProducer {
  const producer = createPipelineProducer(stream.kafka, stream.names, stream.codecs, { deliveryTimeoutMs });
  lifecycle.onStop('producers', 'producer', () => producer.disconnect());
  return producer;
}
