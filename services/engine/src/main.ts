import { applyDotenv, createLogger, errorMessage, loadConfig, runTogether } from '@rp/runtime';
import { engineConfigSpec } from './config.ts';
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
logger.info({ services: services.map((service) => service.name) }, 'starting the services in one process');
await runTogether(services, logger);
