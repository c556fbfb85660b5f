import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Env, Hono } from 'hono';
import { AppError } from './errors.ts';
import { type Health, healthRoutes } from './health.ts';
import { type Logger, lazyChild } from './logging.ts';
import { type Metrics, metricsRoutes } from './metrics.ts';
import type { Operator } from './operator-auth.ts';
import { createProblemJsonErrorHandler, notFoundHandler } from './problem.ts';
import type { TraceSpan, Tracing } from './tracing.ts';

/** Hono environment of apps made by `createHttpApp`: each request carries its own child logger. */
export interface AppEnv extends Env {
  /** `operator`: the caller of an admin route, once `operatorGuard` has let it in. */
  Variables: { logger: Logger; requestId: string; operator: Operator | undefined };
}

export interface HttpAppOptions {
  readonly health: Health;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /**
   * A server span per request (not for probes); it is the ambient span of the request's work, made once
   * the work names its transaction: then it is in the transaction's trace (named after the UETR) with the
   * caller's `traceparent` as a link; a request that names none continues the caller's trace.
   */
  readonly tracing?: Tracing;
}

const probePaths = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * The service's Hono app with the operational routes, request ids (`X-Request-Id`, taken from the
 * caller when present), a per-request logger, and errors mapped once to problem+json.
 */
export function createHttpApp(options: HttpAppOptions): Hono<AppEnv> {
  const { logger } = options;
  const app = new Hono<AppEnv>();
  const requestDuration = options.metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request duration by route and status',
    ['method', 'route', 'status'],
  );
  app.use(async (c, next) => {
    const requestId = c.req.header('x-request-id') ?? randomUUID();
    c.set('requestId', requestId);
    c.set('logger', lazyChild(logger, { requestId }));
    // Set before the handler answers: a header added to a finished response copies it, and its body then
    // goes out through a web stream rather than in one write.
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    const tracing = probePaths.has(c.req.path) ? undefined : options.tracing;
    let span: TraceSpan | undefined;
    if (tracing) {
      const startTime = Date.now();
      const parent = {
        traceparent: c.req.header('traceparent'),
        tracestate: c.req.header('tracestate'),
      };
      const open = (uetr?: string) =>
        tracing.startSpan(`${c.req.method} ${c.req.path}`, {
          role: 'server',
          // One trace per transaction: a request that names its transaction starts (or joins) the trace
          // named after the UETR and keeps the caller's own trace as a link; any other continues the caller's.
          ...(uetr ? { uetr, link: parent } : { parent }),
          startTime,
          attributes: { 'http.request.method': c.req.method, 'url.path': c.req.path },
        });
      const opened = (uetr?: string): TraceSpan => {
        span ??= open(uetr);
        return span;
      };
      try {
        await tracing.runInScope({ headers: (uetr) => opened(uetr).headers }, next);
      } finally {
        span = opened();
        span.setAttribute('http.response.status_code', c.res.status);
        if (c.res.status >= 500) span.fail(new Error(`HTTP ${c.res.status}`));
        span.end();
      }
    } else {
      await next();
    }
    // A handler that returns a Response of its own (not made through the context) has not got it.
    if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId);
    const seconds = (performance.now() - started) / 1000;
    requestDuration.observe(
      { method: c.req.method, route: c.req.routePath, status: String(c.res.status) },
      seconds,
    );
    const line = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round(seconds * 1000),
    };
    if (probePaths.has(c.req.path)) logger.debug(line, 'request');
    else logger.info(line, 'request');
  });
  app.route('/', healthRoutes(options.health));
  app.route('/', metricsRoutes(options.metrics));
  app.onError(createProblemJsonErrorHandler({ logger }));
  app.notFound(notFoundHandler);
  return app;
}

export interface HttpServerOptions {
  readonly port: number;
  /** Defaults to all interfaces. */
  readonly host?: string;
  /** How long `close()` waits for in-flight requests before cutting connections. */
  readonly closeTimeoutMs?: number;
}

export interface HttpServer {
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then destroys what is left. */
  close(): Promise<void>;
}

interface FetchApp {
  fetch: (request: Request, ...rest: never[]) => Response | Promise<Response>;
}

export async function startHttpServer(app: FetchApp, options: HttpServerOptions): Promise<HttpServer> {
  const host = options.host ?? '0.0.0.0';
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch as never, port: options.port, hostname: host }, () =>
      resolve(started as Server),
    ) as Server;
    started.once('error', (err) =>
      reject(new AppError('INTERNAL', `Cannot listen on ${host}:${options.port}`, { cause: err })),
    );
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  // Keep-alive connections still serving a request when close() is called become idle once their
  // response is done; close them then rather than waiting for the timeout.
  server.on('request', (_request, response) => {
    response.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => server.closeAllConnections(), closeTimeoutMs);
      server.close((err) => {
        clearTimeout(deadline);
        if (err) reject(err);
        else resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };

  return { port, url: `http://${urlHost}:${port}`, server, close };
}
