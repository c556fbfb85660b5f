import { connectStream, loadParticipants } from '@rp/pipeline';
import {
  AppError,
  createHttpApp,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  parseDuration,
  type StartedService,
  type StartOptions,
  serveAndRun,
  startService,
} from '@rp/runtime';
import {
  defaultStoreLimits,
  openServiceStore,
  redactedHosts,
  serviceStoreOptions,
  storeClientOptions,
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
  return startService(serviceName, eventPublisherConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
    const participants = loadParticipants(config.PARTICIPANTS);
    const signingSecrets = parseSigningSecrets(config.SIGNING_SECRETS?.reveal() ?? '{}');
    const stream = await connectStream(serviceName, base, consumedTopics);
    const { kafka, names, codecs } = stream;

    const store = await openServiceStore(serviceName, base);
    // The publisher's own collections, on a client of its own with the store's settings.
    const storeOptions = serviceStoreOptions(serviceName, base);
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
    const server = await serveAndRun(serviceName, base, app, config.PORT, service);
    logger.info({ url: server.url }, 'event publisher ready');
  });
}

function retryDelays(texts: readonly string[]): number[] {
  return texts.map((text) => {
    const delay = parseDuration(text);
    if (delay === undefined)
      throw new AppError('CONFIG_INVALID', `EVENTS_RETRY_SCHEDULE: ${text} is not a duration`);
    return delay;
  });
}
