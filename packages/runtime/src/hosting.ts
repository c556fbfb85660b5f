import { type Config, type ConfigSpec, describeConfig, loadConfig } from './config.ts';
import { AppError, errorMessage } from './errors.ts';
import { createHealth, type Health } from './health.ts';
import { type HttpServer, startHttpServer } from './http.ts';
import { createLifecycle, type Lifecycle, type ShutdownResult } from './lifecycle.ts';
import { createLogger, type Logger, type LogLevel } from './logging.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { watchEventLoopStalls } from './stalls.ts';
import { serviceTracing, type Tracing } from './tracing.ts';

/** The variables a service reads its configuration from. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** How a service is started: alone in its process (`runAlone`), or beside others in one (`runTogether`). */
export interface StartOptions {
  /** Whether the service answers SIGTERM and SIGINT itself (it does alone; beside others the host does). */
  readonly signals: boolean;
}

/**
 * A service started in this process: its name, its logger, its health (what its probes answer) and the
 * lifecycle that drains and stops it.
 */
export interface StartedService {
  readonly name: string;
  readonly logger: Logger;
  readonly health: Health;
  readonly lifecycle: Lifecycle;
}

/**
 * Starts a service from its environment and resolves once it answers ready. When it cannot start it
 * stops whatever it had started and rejects: with `ServiceStartFailed` once it has logged why, with the
 * configuration's own error when it had no logger yet.
 */
export type ServiceStarter = (env: Environment, options: StartOptions) => Promise<StartedService>;

/** The settings every service reads before its own: its log level, its drain, where its spans go. */
export interface ServiceBaseSettings {
  readonly LOG_LEVEL: LogLevel | 'silent';
  readonly SHUTDOWN_TIMEOUT: number;
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
}

/** What every service starts with, before its clients: its configuration and its own runtime parts. */
export interface ServiceBase<C> {
  readonly config: C;
  readonly logger: Logger;
  readonly health: Health;
  readonly metrics: Metrics;
  readonly lifecycle: Lifecycle;
  readonly tracing: Tracing;
}

/**
 * A service's configuration read from `env` (failing fast, naming each bad variable) and logged, its
 * logger, health, metrics, event-loop stall watch and tracing, and the lifecycle that stops them, answering
 * SIGTERM and SIGINT itself when `options.signals` says so. Every service's start begins with it.
 */
export function serviceBase<const S extends ConfigSpec>(
  service: string,
  spec: S & (Config<S> extends ServiceBaseSettings ? unknown : never),
  env: Environment,
  options: StartOptions,
): ServiceBase<Config<S>> {
  const config = loadConfig(spec as S, env);
  // What the spec's parameter type requires of its configuration.
  const settings = config as unknown as ServiceBaseSettings;
  const logger = createLogger({ service, level: settings.LOG_LEVEL });
  logger.info({ config: describeConfig(spec, config) }, 'configuration');
  const health = createHealth();
  const metrics = createMetrics({ service });
  const lifecycle = createLifecycle({ logger, health, hookTimeoutMs: settings.SHUTDOWN_TIMEOUT });
  lifecycle.onStop('other', 'stall-watch', watchEventLoopStalls({ metrics, logger }).stop);
  const tracing = serviceTracing(service, settings.OTEL_EXPORTER_OTLP_ENDPOINT);
  lifecycle.onStop('other', 'tracing', () => tracing.shutdown());
  if (options.signals) lifecycle.installSignalHandlers();
  return { config, logger, health, metrics, lifecycle, tracing };
}

/** What a consuming service runs behind its HTTP server: its consumers. */
export interface ServiceWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  isRunning(): boolean;
}

/**
 * The last steps of a consuming service's start: serves `app` on `port` (the server closes first when the
 * service stops), starts `worker` as `name` (stopped next, in the consumers phase), answers not ready
 * while the worker is not running, and marks the service ready.
 */
export async function serveAndRun(
  name: string,
  base: Pick<ServiceBase<unknown>, 'health' | 'lifecycle'>,
  app: Parameters<typeof startHttpServer>[0],
  port: number,
  worker: ServiceWorker,
): Promise<HttpServer> {
  const server = await startHttpServer(app, { port });
  base.lifecycle.onStop('http', 'server', () => server.close());
  await worker.start();
  base.lifecycle.onStop('consumers', name, () => worker.stop());
  base.health.addCheck('consumers', async () => {
    if (!worker.isRunning()) throw new AppError('SHUTTING_DOWN', 'a consumer is not running');
  });
  base.health.markReady();
  return server;
}

/**
 * A service's start: its `serviceBase`, then `start(base)`, which starts its clients, its server and its
 * consumers and resolves once the service is ready. When `start` throws, the service logs why, stops
 * whatever it had started and rejects with `ServiceStartFailed`.
 */
export async function startService<const S extends ConfigSpec>(
  name: string,
  spec: S & (Config<S> extends ServiceBaseSettings ? unknown : never),
  env: Environment,
  options: StartOptions,
  start: (base: ServiceBase<Config<S>>) => Promise<void>,
): Promise<StartedService> {
  const base = serviceBase(name, spec, env, options);
  try {
    await start(base);
    return { name, logger: base.logger, health: base.health, lifecycle: base.lifecycle };
  } catch (error) {
    base.logger.fatal({ err: error }, `${name} failed to start`);
    await base.lifecycle.shutdown('start-up failed');
    throw new ServiceStartFailed(name, error);
  }
}

/** A service's start-up failed, and the service has logged why already. */
export class ServiceStartFailed extends Error {
  readonly service: string;

  constructor(service: string, cause: unknown) {
    super(`${service} failed to start: ${errorMessage(cause)}`, { cause });
    this.name = 'ServiceStartFailed';
    this.service = service;
  }
}

/** What hosting needs of the process: replaced in tests. */
export interface HostProcess {
  exit(code: number): void;
  /** Writes a failure no logger has written. */
  report(text: string): void;
  onSignal(handler: (signal: NodeJS.Signals) => void): () => void;
}

const realProcess: HostProcess = {
  exit: (code) => process.exit(code),
  report: (text) => process.stderr.write(`${text}\n`),
  onSignal: (handler) => {
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
    return () => {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
    };
  },
};

function reportUnlogged(host: HostProcess, error: unknown): void {
  if (error instanceof ServiceStartFailed) return;
  host.report(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

/** Runs one service as its process: it answers the signals itself; a failed start exits with 1. */
export async function runAlone(
  start: ServiceStarter,
  env: Environment = process.env,
  host: HostProcess = realProcess,
): Promise<StartedService | undefined> {
  try {
    return await start(env, { signals: true });
  } catch (error) {
    reportUnlogged(host, error);
    host.exit(1);
    return undefined;
  }
}

/**
 * The prefix of a service's own variables where it runs beside others (`runTogether`): its name in
 * capitals, dashes as underscores, and two underscores: `EVENT_PUBLISHER__PORT` is the event publisher's
 * `PORT`.
 */
export function serviceScope(service: string): string {
  return `${service.toUpperCase().replaceAll('-', '_')}__`;
}

/** A service to run beside others: its name, how it starts and the environment it reads. */
export interface HostedService {
  readonly name: string;
  readonly start: ServiceStarter;
  readonly env: Environment;
}

/** What `runTogether` started, and how to stop it. */
export interface RunningTogether {
  readonly started: readonly StartedService[];
  /** Stops every service, the last started first; calling it again returns the first call's promise. */
  stop(reason: string): Promise<ShutdownResult>;
}

/**
 * Runs several services in this process, one after another in the order given, each with its own
 * configuration, logger, metrics, HTTP port and clients: they share the process, its event loop and
 * its heap, and nothing else. On SIGTERM or SIGINT, and when one of them cannot start, they are stopped
 * one at a time in the reverse order (the last started, usually the one taking requests, first), each
 * draining as it would alone; the process then exits, with 1 if a start or a stop failed. A second
 * signal exits at once.
 */
export async function runTogether(
  services: readonly HostedService[],
  logger: Logger,
  host: HostProcess = realProcess,
): Promise<RunningTogether> {
  const started: StartedService[] = [];
  // The start in progress: a stop waits for it, so that a service that comes up meanwhile is stopped too.
  let starting: Promise<unknown> = Promise.resolve();
  let stopping: Promise<ShutdownResult> | undefined;
  const stop = (reason: string): Promise<ShutdownResult> => {
    stopping ??= (async () => {
      await starting.catch(() => undefined);
      logger.info(
        { reason, services: started.map((service) => service.name).reverse() },
        'stopping services',
      );
      const failures: string[] = [];
      for (const service of [...started].reverse()) {
        const result = await service.lifecycle.shutdown(reason);
        for (const failure of result.failures) failures.push(`${service.name}: ${failure}`);
      }
      return { ok: failures.length === 0, failures };
    })();
    return stopping;
  };
  const uninstall = host.onSignal((signal) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping, exiting now');
      host.exit(1);
      return;
    }
    void stop(signal).then((result) => host.exit(result.ok ? 0 : 1));
  });
  for (const service of services) {
    if (stopping) break;
    try {
      const attempt = service.start(service.env, { signals: false }).then((running) => {
        started.push(running);
      });
      starting = attempt;
      await attempt;
      logger.info({ service: service.name }, 'service started');
    } catch (error) {
      reportUnlogged(host, error);
      logger.fatal({ service: service.name, err: error }, 'a service failed to start; stopping the others');
      await stop(`${service.name} failed to start`);
      uninstall();
      host.exit(1);
      return { started, stop };
    }
  }
  if (!stopping) logger.info({ services: started.map((service) => service.name) }, 'all services started');
  return { started, stop };
}
