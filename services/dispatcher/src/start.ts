import { connectStream, loadParticipants, startProducer } from '@rp/pipeline';
import {
  AppError,
  configuredClock,
  createHttpApp,
  type Environment,
  parseDuration,
  type StartedService,
  type StartOptions,
  serveAndRun,
  startService,
} from '@rp/runtime';
import { WindowCalendar, windowSettingsFromConfig } from '@rp/scheduler/windows';
import { dispatcherConfigSpec } from './config.ts';
import { consumedTopics, createDispatcherService, producedTopics, serviceName } from './service.ts';
import { parseSigningSecrets } from './signing.ts';

/**
 * Starts the dispatcher from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startDispatcher(env: Environment, options: StartOptions): Promise<StartedService> {
  return startService(serviceName, dispatcherConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
    const participants = loadParticipants(config.PARTICIPANTS);
    const signingKeys =
      config.BANK_SIGNING_SECRETS === undefined
        ? new Map()
        : parseSigningSecrets(config.BANK_SIGNING_SECRETS.reveal());
    const windows = windowSettingsFromConfig(config);
    new WindowCalendar(windows);
    const retryTierDelaysMs = config.RETRY_TIERS.map((text) => {
      const ms = parseDuration(text);
      if (ms === undefined) throw new AppError('CONFIG_INVALID', `RETRY_TIERS: '${text}' is not a duration`);
      return ms;
    });
    const clock = configuredClock(config);

    const stream = await connectStream(serviceName, base, [...consumedTopics, ...producedTopics]);
    const { kafka, names, codecs } = stream;
    const producer = startProducer(stream, config.KAFKA_DELIVERY_TIMEOUT, lifecycle);

    const service = createDispatcherService({
      tracing,
      kafka,
      names,
      codecs,
      producer,
      participants,
      windows,
      signingKeys,
      logger,
      metrics,
      clock,
      options: {
        requestTimeoutMs: config.BANK_REQUEST_TIMEOUT,
        connectTimeoutMs: config.BANK_CONNECT_TIMEOUT,
        bankConcurrency: config.BANK_CONCURRENCY,
        bankQueueWaitMs: config.BANK_QUEUE_WAIT,
        bankCooldownMs: config.BANK_COOLDOWN,
        bankFailureThreshold: config.BANK_FAILURE_THRESHOLD,
        keepAliveMs: config.BANK_KEEPALIVE,
        backoffBaseMs: config.RETRY_BACKOFF_BASE,
        backoffMaxMs: config.RETRY_BACKOFF_MAX,
        maxRetryAfterMs: config.RETRY_AFTER_MAX,
        retryTierDelaysMs,
        keyConcurrency: config.DISPATCHER_KEY_CONCURRENCY,
        partitionsConsumedConcurrently: config.DISPATCHER_PARTITIONS_CONCURRENTLY,
      },
    });
    const app = createHttpApp({ health, metrics, logger, tracing });
    const server = await serveAndRun(serviceName, base, app, config.PORT, service);
    logger.info(
      { url: server.url, participants: participants.size, signed: signingKeys.size },
      'dispatcher ready',
    );
  });
}
