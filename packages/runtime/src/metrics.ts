import { createRequire } from 'node:module';
import { createHistogram, performance } from 'node:perf_hooks';
import { Hono } from 'hono';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from './errors.ts';
import { onEventLoopLook } from './loop-looks.ts';

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

type DefaultCollector = (registry: Registry, config: Record<string, never>) => void;

const requireHere = createRequire(import.meta.url);

/**
 * prom-client's default process metrics but its event-loop lag: each of its collectors (its own list,
 * `collectDefaultMetrics.metricsList`), all but `eventLoopLag`, whose histogram has a timer of its own
 * in the native code, a second wake of an idle process beside the stall watch's. The lag figures, the
 * same names and meanings, are read from the process's one look at its loop instead
 * (`eventLoopLagMetrics`).
 */
const defaultCollectors: readonly DefaultCollector[] = collectDefaultMetrics.metricsList
  .filter((name) => name !== 'eventLoopLag')
  .map((name) => requireHere(`prom-client/lib/metrics/${name}`) as DefaultCollector);

type Delays = ReturnType<typeof createHistogram>;

/** The lag figures read from the delays between looks (nanoseconds): name, help, aggregator, value. */
const lagFigures: readonly (readonly [
  string,
  string,
  'min' | 'max' | 'average',
  (delays: Delays) => number,
])[] = [
  ['min', 'The minimum recorded event loop delay.', 'min', (delays) => delays.min],
  ['max', 'The maximum recorded event loop delay.', 'max', (delays) => delays.max],
  ['mean', 'The mean of the recorded event loop delays.', 'average', (delays) => delays.mean],
  [
    'stddev',
    'The standard deviation of the recorded event loop delays.',
    'average',
    (delays) => delays.stddev,
  ],
  [
    'p50',
    'The 50th percentile of the recorded event loop delays.',
    'average',
    (delays) => delays.percentile(50),
  ],
  [
    'p90',
    'The 90th percentile of the recorded event loop delays.',
    'average',
    (delays) => delays.percentile(90),
  ],
  [
    'p99',
    'The 99th percentile of the recorded event loop delays.',
    'average',
    (delays) => delays.percentile(99),
  ],
];

/**
 * `nodejs_eventloop_lag_seconds` and `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`, as
 * prom-client has them: the first the time a `setImmediate` set at the scrape waited (read at the next
 * scrape), the others over the times between two looks at the loop since the last scrape (a free loop's
 * is the looks' period, `eventLoopSampleMs`; a loop held up for 200 ms has one of about 200 ms).
 */
function eventLoopLagMetrics(registry: Registry): void {
  const delays = createHistogram();
  let lastLook = performance.now();
  onEventLoopLook((now) => {
    delays.record(Math.max(1, Math.round((now - lastLook) * 1e6)));
    lastLook = now;
  });
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    aggregator: 'average',
    collect() {
      const start = process.hrtime.bigint();
      setImmediate(() => this.set(Number(process.hrtime.bigint() - start) / 1e9));
      // No look since the last scrape (scrapes closer than a look's period): the figures stay as they were.
      if (delays.count === 0) return;
      for (const { read, gauge } of figures) gauge.set(read(delays) / 1e9);
      delays.reset();
    },
  });
  // Registered after the gauge above, whose collect sets them: a scrape reads them after it has.
  const figures = lagFigures.map(([figure, help, aggregator, read]) => ({
    read,
    gauge: new Gauge({
      name: `nodejs_eventloop_lag_${figure}_seconds`,
      help,
      registers: [registry],
      aggregator,
    }),
  }));
}

/**
 * A registry of its own per service (never prom-client's global one, so tests can create many) with
 * `service` as a default label. Metric helpers are memoised by name because several modules may ask
 * for the same metric; asking for a name with a different type is a programming error.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.defaultMetrics !== false) {
    for (const collect of defaultCollectors) collect(registry, {});
    eventLoopLagMetrics(registry);
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
