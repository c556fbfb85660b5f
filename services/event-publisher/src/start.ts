import { avroTypeOptions } from '@rp/contracts';
import { clientIdFor, createAvroSerde, createKafka, kafkaMetrics } from '@rp/kafka';
import { createPlainCodecs, loadParticipants, resolveTopicNames, topicSpecs } from '@rp/pipeline';
import {
  AppError,
  createHttpApp,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  parseDuration,
  ServiceStartFailed,
  type StartedService,
  type StartOptions,
  serviceBase,
  startHttpServer,
} from '@rp/runtime';
import {
  connectStore,
  defaultStoreLimits,
  redactedHosts,
  storeClientOptions,
  storeCommandMetrics,
  watchCommands,
} from '@rp/store';
import { MongoClient } from 'mongodb';
import { eventPublisherConfigSpec } from './config.ts';
import { DeliveryStore } from './delivery-store.ts';
import { postingReadMetrics } from './metrics.ts';
import { consumedTopics, createEventPublisherService, serviceName } from './service.ts';
import { parseSigningSecrets } from './signing.ts';

/**
 * Starts the event publisher from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startEventPublisher(env: Environment, options: StartOptions): Promise<StartedService> {
  const { config, logger, health, metrics, lifecycle, tracing } = serviceBase(
    serviceName,
    eventPublisherConfigSpec,
    env,
    options,
  );

  try {
    const participants = loadParticipants(config.PARTICIPANTS);
    const signingSecrets = parseSigningSecrets(config.SIGNING_SECRETS?.reveal() ?? '{}');
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
    const codecs = await createPlainCodecs(serde, names, consumedTopics, {
      registryUrl: config.SCHEMA_REGISTRY_URL,
    });

    const storeOptions = {
      uri: config.MONGODB_URI,
      database: config.MONGODB_DATABASE,
      appName: serviceName,
      logger,
      onCommand: storeCommandMetrics(metrics),
    };
    const store = await connectStore(storeOptions);
    lifecycle.onStop('store', 'mongodb', () => store.close());
    await store.ensureIndexes();
    // The publisher's own collections, on a client of its own with the store's settings.
    const mongo = new MongoClient(config.MONGODB_URI, storeClientOptions(storeOptions, defaultStoreLimits));
    watchCommands(mongo, storeOptions.onCommand);
    await mongo.connect();
    lifecycle.onStop('store', 'mongodb-deliveries', () => mongo.close());
    logger.info({ hosts: redactedHosts(config.MONGODB_URI) }, 'delivery store connected');
    const deliveries = new DeliveryStore(
      mongo.db(config.MONGODB_DATABASE),
      {},
      {
        recentPostings: config.EVENTS_RECENT_POSTINGS,
        onPostingsRead: postingReadMetrics(metrics),
      },
    );
    await deliveries.ensureIndexes();

    const service = createEventPublisherService({
      tracing,
      kafka,
      names,
      codecs,
      store,
      deliveries,
      participants,
      signingSecrets,
      ...operatorAuthOption(operatorAuthenticatorFrom(config)),
      logger,
      metrics,
      options: {
        attemptTimeoutMs: config.EVENTS_ATTEMPT_TIMEOUT,
        connectTimeoutMs: config.EVENTS_CONNECT_TIMEOUT,
        retrySchedule: {
          delaysMs: retryDelays(config.EVENTS_RETRY_SCHEDULE),
          jitter: config.EVENTS_RETRY_JITTER / 100,
          maxAgeMs: config.EVENTS_RETRY_MAX_AGE,
          maxRetryAfterMs: config.EVENTS_RETRY_AFTER_MAX,
        },
        bankConcurrency: config.EVENTS_BANK_CONCURRENCY,
        keepAliveMs: config.EVENTS_KEEPALIVE,
        breakerThreshold: config.EVENTS_BREAKER_THRESHOLD,
        breakerCooldownMs: config.EVENTS_BREAKER_COOLDOWN,
        breakerMaxCooldownMs: config.EVENTS_BREAKER_MAX_COOLDOWN,
        maxParkedLanes: config.EVENTS_MAX_PARKED_LANES,
        partitionsConsumedConcurrently: config.EVENTS_PARTITIONS_CONCURRENTLY,
        laneConcurrency: config.EVENTS_LANE_CONCURRENCY,
        ...(config.EVENTS_DIRECT_BUDGET === undefined ? {} : { directBudgetMs: config.EVENTS_DIRECT_BUDGET }),
        ...(config.EVENTS_POSTING_RETENTION === undefined
          ? {}
          : { postingRetentionMs: config.EVENTS_POSTING_RETENTION }),
        ...(config.EVENTS_DELIVERY_LOG_RETENTION === undefined
          ? {}
          : { deliveryLogRetentionMs: config.EVENTS_DELIVERY_LOG_RETENTION }),
        workerConcurrency: config.EVENTS_WORKER_CONCURRENCY,
        replayMaxPostings: config.EVENTS_REPLAY_MAX,
      },
    });
    const app = createHttpApp({ health, metrics, logger, tracing });
    app.route('/', service.app);
    const server = await startHttpServer(app, { port: config.PORT });
    lifecycle.onStop('http', 'server', () => server.close());
    await service.start();
    lifecycle.onStop('consumers', 'event-publisher', () => service.stop());
    health.addCheck('consumer', async () => {
      if (!service.isRunning()) throw new AppError('SHUTTING_DOWN', 'the consumer is not running');
    });
    health.addCheck('mongodb', async () => {
      await store.ping();
    });
    health.markReady();
    logger.info({ url: server.url }, 'event publisher ready');
    return { name: serviceName, logger, lifecycle };
  } catch (error) {
    logger.fatal({ err: error }, 'event publisher failed to start');
    await lifecycle.shutdown('start-up failed');
    throw new ServiceStartFailed(serviceName, error);
  }
}

function retryDelays(texts: readonly string[]): number[] {
  return texts.map((text) => {
    const delay = parseDuration(text);
    if (delay === undefined)
      throw new AppError('CONFIG_INVALID', `EVENTS_RETRY_SCHEDULE: ${text} is not a duration`);
    return delay;
  });
}
