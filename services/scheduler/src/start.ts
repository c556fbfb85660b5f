import { avroTypeOptions } from '@rp/contracts';
import { clientIdFor, createAvroSerde, createKafka, kafkaMetrics } from '@rp/kafka';
import { createPipelineProducer, createPlainCodecs, resolveTopicNames, topicSpecs } from '@rp/pipeline';
import {
  AppError,
  type Clock,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  ScaledClock,
  ServiceStartFailed,
  type StartedService,
  type StartOptions,
  serviceBase,
  startHttpServer,
  systemClock,
} from '@rp/runtime';
import { connectStore, storeCommandMetrics } from '@rp/store';
import { schedulerConfigSpec } from './config.ts';
import { consumedTopics, createSchedulerService, producedTopics, serviceName } from './service.ts';
import { windowSettingsFromConfig } from './windows.ts';

/**
 * Starts the scheduler from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startScheduler(env: Environment, options: StartOptions): Promise<StartedService> {
  const { config, logger, health, metrics, lifecycle, tracing } = serviceBase(
    serviceName,
    schedulerConfigSpec,
    env,
    options,
  );

  try {
    const windows = windowSettingsFromConfig(config);
    const clock: Clock =
      config.CLOCK_START === undefined
        ? systemClock
        : new ScaledClock(config.CLOCK_START, config.CLOCK_FACTOR);
    if (config.CLOCK_START !== undefined) {
      logger.warn(
        { start: config.CLOCK_START, factor: config.CLOCK_FACTOR },
        'demo clock: windows follow a scaled clock',
      );
    }

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
    });
    lifecycle.onStop('store', 'mongodb', () => store.close());
    await store.ensureIndexes();

    const service = createSchedulerService({
      tracing,
      kafka,
      names,
      codecs,
      producer,
      store,
      windows,
      logger,
      metrics,
      health,
      clock,
      options: {
        tickIntervalMs: config.WINDOW_TICK,
        queueDepthIntervalMs: config.QUEUE_DEPTH_INTERVAL,
        releaseBatchSize: config.RELEASE_BATCH_SIZE,
        releaseDelayMs: config.RELEASE_DELAY,
        keyConcurrency: config.SCHEDULER_KEY_CONCURRENCY,
        intakeRetentionMs: config.INTAKE_RETENTION,
        acceptedHoldMs: config.SCHEDULER_ACCEPTED_HOLD,
        reconciliationSettleMs: config.RECONCILIATION_SETTLE,
        ...operatorAuthOption(operatorAuthenticatorFrom(config)),
        awaitCredits: config.CREDITS_GATE === 'credits',
      },
    });
    const server = await startHttpServer(service.app, { port: config.PORT });
    lifecycle.onStop('http', 'server', () => server.close());
    await service.start();
    lifecycle.onStop('consumers', 'scheduler', () => service.stop());
    health.addCheck('consumers', async () => {
      if (!service.isRunning()) throw new AppError('SHUTTING_DOWN', 'a consumer is not running');
    });
    health.addCheck('mongodb', async () => {
      await store.ping();
    });
    health.markReady();
    logger.info({ url: server.url, windows: await service.windows.status(clock.now()) }, 'scheduler ready');
    return { name: serviceName, logger, lifecycle };
  } catch (error) {
    logger.fatal({ err: error }, 'scheduler failed to start');
    await lifecycle.shutdown('start-up failed');
    throw new ServiceStartFailed(serviceName, error);
  }
}
