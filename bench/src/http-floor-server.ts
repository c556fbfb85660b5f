/**
 * The services' HTTP stack with nothing behind it: `@rp/runtime`'s app (request ids, the per-request
 * logger, the duration histogram, problem+json errors) on `@hono/node-server`, and a route that reads a
 * posting's body and answers 202 as the bank simulator does, without parsing, checking or keeping it.
 * Run as its own process by the HTTP limit; prints `{"url": ...}` once it listens, stops on SIGTERM.
 */
import {
  createHealth,
  createHttpApp,
  createLogger,
  createMetrics,
  type HttpServer,
  startHttpServer,
} from '@rp/runtime';

const logger = createLogger({ service: 'http-floor', level: 'warn' });
const app = createHttpApp({
  health: createHealth(),
  metrics: createMetrics({ service: 'http-floor' }),
  logger,
});
app.post('/banks/:memberId/events', async (c) => {
  const body = await c.req.text();
  return c.json({ eventId: c.req.header('webhook-id') ?? '', bytes: body.length }, 202);
});

const server: HttpServer = await startHttpServer(app, { port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
