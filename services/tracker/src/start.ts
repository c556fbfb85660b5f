import { avroTypeOptions } from '@rp/contracts';
import { clientIdFor, createAvroSerde, createKafka, kafkaMetrics } from '@rp/kafka';
import { createPipelineProducer, createPlainCodecs, resolveTopicNames, topicSpecs } from '@rp/pipeline';
import {
  AppError,
  createHttpApp,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  ServiceStartFailed,
  type StartedService,
  type StartOptions,
  serviceBase,
  startHttpServer,
} from '@rp/runtime';
import { connectStore, storeCommandMetrics } from '@rp/store';
import { trackerConfigSpec } from './config.ts';
import { consumedTopics, createTrackerService, producedTopics, serviceName } from './service.ts';

/**
 * Starts the tracker from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startTracker(env: Environment, options: StartOptions): Promise<StartedService> {
  const { config, logger, health, metrics, lifecycle, tracing } = serviceBase(
    serviceName,
    trackerConfigSpec,
    env,
    options,
  );

  try {
    const names = resolveTopicNames(config.TOPIC_NAMESPACE);
    const kafka = createKafka({
      tracing,
      brokers: config.KAFKA_BROKERS,
      clientId: clientIdFor(serviceName, 'main'),
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
    const codecs = await createPlainCodecs(serde, names, [...consumedTopics, ...producedTopics], {
      registryUrl: config.SCHEMA_REGISTRY_URL,
    });
    const producer = createPipelineProducer(kafka, names, codecs, {
      deliveryTimeoutMs: config.KAFKA_DELIVERY_TIMEOUT,
    });
    lifecycle.onStop('producers', 'producer', () => producer.disconnect());

    const store = await connectStore({
      uri: config.MONGODB_URI,
      database: config.MONGODB_DATABASE,
      appName: serviceName,
      logger,
      onCommand: storeCommandMetrics(metrics),
      // The snapshot positions of the transactions the tracker keeps: one bound for its memory.
      positionCacheSize: config.TRACKER_CACHE_SIZE,
    });
    lifecycle.onStop('store', 'mongodb', () => store.close());
    await store.ensureIndexes();

    const service = createTrackerService({
      kafka,
      names,
      codecs,
      producer,
      store,
      decodeValue: (value) => serde.decode(value),
      ...operatorAuthOption(operatorAuthenticatorFrom(config)),
      logger,
      metrics,
      options: {
        cacheSize: config.TRACKER_CACHE_SIZE,
        payloadCacheSize: config.TRACKER_PAYLOAD_CACHE_SIZE,
        partitionsConsumedConcurrently: config.TRACKER_PARTITIONS_CONCURRENTLY,
        snapshotIntervalMs: config.TRACKER_SNAPSHOT_INTERVAL,
        recordEventPostingAttempts: config.TRACKER_RECORD_EVENT_DELIVERIES,
      },
    });
    const app = createHttpApp({ health, metrics, logger, tracing });
    app.route('/', service.app);
    const server = await startHttpServer(app, { port: config.PORT });
    lifecycle.onStop('http', 'server', () => server.close());
    await service.start();
    lifecycle.onStop('consumers', 'tracker', () => service.stop());
    health.addCheck('consumers', async () => {
      if (!service.isRunning()) throw new AppError('SHUTTING_DOWN', 'a consumer is not running');
    });
    health.addCheck('mongodb', async () => {
      await store.ping();
    });
    health.markReady();
    logger.info({ url: server.url, deadLetterTopic: service.deadLetterTopic }, 'tracker ready');
    return { name: serviceName, logger, lifecycle };
  } catch (error) {
    logger.fatal({ err: error }, 'tracker failed to start');
    await lifecycle.shutdown('start-up failed');
    throw new ServiceStartFailed(serviceName, error);
  }
}
