import { Hono } from 'hono';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from './errors.ts';

export interface HistogramOptions {
  /** Upper bounds; prom-client's defaults (seconds, 5ms to 10s) when omitted. */
  readonly buckets?: readonly number[];
}

/** Histogram bounds (seconds) for a round trip to a server the service depends on: 1 ms to 30 s. */
export const roundTripBuckets: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

export interface GaugeOptions<L extends string> {
  /**
   * Called at each scrape, before the gauge is read: a gauge whose values are read from the service's
   * state when asked (it may reset the gauge to drop series that are gone). Only with the gauge's first
   * registration.
   */
  readonly collect?: (gauge: Gauge<L>) => void;
}

export interface Metrics {
  readonly registry: Registry;
  /** Returns the counter registered under `name`, creating it on first use. */
  counter<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    options?: HistogramOptions,
  ): Histogram<L>;
  gauge<L extends string = string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    options?: GaugeOptions<L>,
  ): Gauge<L>;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  readonly service: string;
  /** Process metrics (CPU, memory, event loop lag, GC); on unless turned off. */
  readonly defaultMetrics?: boolean;
}

type AnyMetric = Counter | Histogram | Gauge;

/**
 * How often the event-loop lag histogram (`nodejs_eventloop_lag_*`) samples the loop: as often as the
 * stall watch looks (`watchEventLoopStalls`), not prom-client's 10 ms. Each sample wakes an idle process,
 * and a wake costs a service here about 0.05 ms of CPU: at 10 ms the histogram alone kept an idle
 * service's thread waking 100 times a second.
 */
export const eventLoopSampleMs = 20;

/**
 * A registry of its own per service (never prom-client's global one, so tests can create many) with
 * `service` as a default label. Metric helpers are memoised by name because several modules may ask
 * for the same metric; asking for a name with a different type is a programming error.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: eventLoopSampleMs });
  }
  const metrics = new Map<string, AnyMetric>();

  function memoised<M extends AnyMetric>(
    name: string,
    type: abstract new (...args: never[]) => M,
    create: () => M,
  ): M {
    const existing = metrics.get(name);
    if (existing !== undefined) {
      if (!(existing instanceof type)) {
        throw new AppError('INTERNAL', `Metric ${name} is already registered as a different type`);
      }
      return existing;
    }
    const metric = create();
    metrics.set(name, metric);
    return metric;
  }

  return {
    registry,
    counter: (name, help, labelNames = []) =>
      memoised(name, Counter, () => new Counter({ name, help, labelNames, registers: [registry] })),
    histogram: (name, help, labelNames = [], histogramOptions = {}) =>
      memoised(
        name,
        Histogram,
        () =>
          new Histogram({
            name,
            help,
            labelNames,
            registers: [registry],
            ...(histogramOptions.buckets ? { buckets: [...histogramOptions.buckets] } : {}),
          }),
      ),
    gauge: <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[] = [],
      gaugeOptions: GaugeOptions<L> = {},
    ) => {
      const { collect } = gaugeOptions;
      if (collect !== undefined && metrics.has(name)) {
        throw new AppError('INTERNAL', `Metric ${name} is already registered; its collect cannot be added`);
      }
      return memoised(
        name,
        Gauge,
        () =>
          new Gauge<L>({
            name,
            help,
            labelNames,
            registers: [registry],
            ...(collect
              ? {
                  collect() {
                    collect(this);
                  },
                }
              : {}),
          }),
      ) as Gauge<L>;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: Metrics): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'Content-Type': contentType });
  });
  return app;
}
