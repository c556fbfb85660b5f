import { connectStream, startProducer } from '@rp/pipeline';
import {
  configuredClock,
  type Environment,
  operatorAuthenticatorFrom,
  operatorAuthOption,
  type StartedService,
  type StartOptions,
  serveAndRun,
  startService,
} from '@rp/runtime';
import { openServiceStore } from '@rp/store';
import { schedulerConfigSpec } from './config.ts';
import { consumedTopics, createSchedulerService, producedTopics, serviceName } from './service.ts';
import { windowSettingsFromConfig } from './windows.ts';

/**
 * Starts the scheduler from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startScheduler(env: Environment, options: StartOptions): Promise<StartedService> {
  return startService(serviceName, schedulerConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
    const windows = windowSettingsFromConfig(config);
    const clock = configuredClock(config);
    if (config.CLOCK_START !== undefined) {
      logger.warn(
        { start: config.CLOCK_START, factor: config.CLOCK_FACTOR },
        'demo clock: windows follow a scaled clock',
      );
    }

    const stream = await connectStream(serviceName, base, [...consumedTopics, ...producedTopics]);
    const { kafka, names, codecs } = stream;
    const producer = startProducer(stream, config.KAFKA_DELIVERY_TIMEOUT, lifecycle);

    const store = await openServiceStore(serviceName, base);

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
    const server = await serveAndRun(serviceName, base, service.app, config.PORT, service);
    logger.info({ url: server.url, windows: await service.windows.status(clock.now()) }, 'scheduler ready');
  });
}
