import { createHealth, createHttpApp, createMetrics, memoryLogger } from '@rp/runtime';
import { type ConsoleOptions, createConsoleService } from '../src/service.ts';

/**
 * The console as its process serves it (its routes under the runtime's HTTP app, with health and
 * metrics), logging to memory: `lines` are what it logged.
 */
export function mountConsole(options: Omit<ConsoleOptions, 'logger' | 'metrics'>) {
  const { logger, lines } = memoryLogger();
  const metrics = createMetrics({ service: 'console', defaultMetrics: false });
  const service = createConsoleService({ ...options, logger, metrics });
  const app = createHttpApp({ health: createHealth(), metrics, logger });
  app.route('/', service.app);
  return { app, lines, metrics, routes: service.app.routes };
}
