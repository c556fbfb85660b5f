import {
  createHealth,
  createHttpApp,
  createLifecycle,
  createLogger,
  createMetrics,
  describeConfig,
  loadConfig,
  serviceTracing,
  startHttpServer,
} from '@rp/runtime';
import { consoleConfigSpec } from './config.ts';
import { createConsoleService, serviceName } from './service.ts';

const config = loadConfig(consoleConfigSpec);
const logger = createLogger({ service: serviceName, level: config.LOG_LEVEL });
logger.info({ config: describeConfig(consoleConfigSpec, config) }, 'configuration');
const health = createHealth();
const metrics = createMetrics({ service: serviceName });
const lifecycle = createLifecycle({ logger, health, hookTimeoutMs: config.SHUTDOWN_TIMEOUT });
const tracing = serviceTracing(serviceName, config.OTEL_EXPORTER_OTLP_ENDPOINT);
lifecycle.onStop('other', 'tracing', () => tracing.shutdown());
lifecycle.installSignalHandlers();

try {
  const service = createConsoleService({
    urls: {
      ingress: config.INGRESS_URL,
      validator: config.VALIDATOR_URL,
      scheduler: config.SCHEDULER_URL,
      dispatcher: config.DISPATCHER_URL,
      tracker: config.TRACKER_URL,
      'event-publisher': config.EVENT_PUBLISHER_URL,
    },
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT,
    ...(config.SCHEDULER_ADMIN_TOKEN === undefined
      ? {}
      : { schedulerToken: config.SCHEDULER_ADMIN_TOKEN.reveal() }),
    logger,
    metrics,
  });
  const app = createHttpApp({ health, metrics, logger, tracing });
  app.route('/', service.app);
  const server = await startHttpServer(app, { port: config.PORT, closeTimeoutMs: config.SHUTDOWN_TIMEOUT });
  lifecycle.onStop('http', 'server', () => server.close());
  // Ready as soon as it serves: the other services not answering is what the console is there to show.
  health.markReady();
  logger.info({ url: `${server.url}/console/` }, 'console ready');
} catch (error) {
  logger.fatal({ err: error }, 'console failed to start');
  await lifecycle.shutdown('start-up failed');
  process.exit(1);
}
