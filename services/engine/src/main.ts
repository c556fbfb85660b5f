import {
  applyDotenv,
  createLogger,
  errorMessage,
  loadConfig,
  runTogether,
  startHttpServer,
} from '@rp/runtime';
import { engineConfigSpec } from './config.ts';
import { engineHealth } from './health.ts';
import { hostedServices, selectServices } from './services.ts';

// Without Kafka settings in the environment, use the local stack's endpoints (real variables win).
if (!process.env.KAFKA_BROKERS) applyDotenv(new URL('../../../.local/stack.env', import.meta.url).pathname);

const config = loadConfig(engineConfigSpec);
const logger = createLogger({ service: 'engine', level: config.LOG_LEVEL });
let selected: ReturnType<typeof selectServices>;
try {
  selected = selectServices(config.RP_SERVICES);
} catch (error) {
  logger.fatal({ err: error }, errorMessage(error));
  process.exit(1);
}
const services = hostedServices(selected, process.env);
if (process.env.PORT !== undefined) {
  logger.warn(
    { PORT: process.env.PORT },
    'PORT is ignored: each service listens on its own port (<SERVICE>__PORT, as INGRESS__PORT, or its default)',
  );
}
// The engine's probes answer from before the first service starts (live, not ready) to the process's exit.
const health = engineHealth(selected);
let probes: Awaited<ReturnType<typeof startHttpServer>>;
try {
  probes = await startHttpServer(health.app, { port: config.ENGINE_PORT });
} catch (error) {
  logger.fatal({ err: error, ENGINE_PORT: config.ENGINE_PORT }, `ENGINE_PORT: ${errorMessage(error)}`);
  process.exit(1);
}
logger.info(
  { services: services.map((service) => service.name), probes: probes.url },
  'starting the services in one process',
);
await runTogether(services.map(health.track), logger);
