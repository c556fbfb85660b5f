import { connectStream, startProducer } from '@rp/pipeline';
import {
  createHttpApp,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  type StartedService,
  type StartOptions,
  serveAndRun,
  startService,
} from '@rp/runtime';
import { openServiceStore } from '@rp/store';
import { trackerConfigSpec } from './config.ts';
import { consumedTopics, createTrackerService, producedTopics, serviceName } from './service.ts';

/**
 * Starts the tracker from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startTracker(env: Environment, options: StartOptions): Promise<StartedService> {
  return startService(serviceName, trackerConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
    const stream = await connectStream(serviceName, base, [...consumedTopics, ...producedTopics]);
    const { kafka, names, serde, codecs } = stream;
    const producer = startProducer(stream, config.KAFKA_DELIVERY_TIMEOUT, lifecycle);
    const store = await openServiceStore(serviceName, base, {
      // The snapshot positions of the transactions the tracker keeps: one bound for its memory.
      positionCacheSize: config.TRACKER_CACHE_SIZE,
    });

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
    const server = await serveAndRun(serviceName, base, app, config.PORT, service);
    logger.info({ url: server.url, deadLetterTopic: service.deadLetterTopic }, 'tracker ready');
  });
}
