import { dispatcherMetrics } from '@rp/dispatcher';
import { postingReadMetrics, publisherMetrics } from '@rp/event-publisher';
import { ingressMetrics } from '@rp/ingress';
import { kafkaMetrics } from '@rp/kafka';
import { createHealth, createHttpApp, createLogger, createMetrics, watchEventLoopStalls } from '@rp/runtime';
import { schedulerMetrics } from '@rp/scheduler';
import { storeCommandMetrics } from '@rp/store';
import { trackerMetrics } from '@rp/tracker';
import { validatorMetrics } from '@rp/validator';
import { expect } from 'vitest';

export interface RegisteredMetric {
  readonly type: string;
  readonly labels: ReadonlySet<string>;
}

/**
 * Every metric the engine's services register, with its type and label names, registered as the services
 * do: each service's metrics, its Kafka clients', its MongoDB commands', its event-loop stops', its HTTP
 * requests' and Node's default metrics (process CPU and memory, garbage collection).
 */
export function engineMetrics(): Map<string, RegisteredMetric> {
  const logger = createLogger({ service: 'catalogue', level: 'silent' });
  const metrics = createMetrics({ service: 'catalogue' });
  for (const register of [
    ingressMetrics,
    validatorMetrics,
    schedulerMetrics,
    dispatcherMetrics,
    trackerMetrics,
    publisherMetrics,
    postingReadMetrics,
    storeCommandMetrics,
    kafkaMetrics,
  ]) {
    register(metrics);
  }
  watchEventLoopStalls({ metrics, logger }).stop();
  createHttpApp({ health: createHealth(), metrics, logger });
  const found = new Map<string, RegisteredMetric>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { labelNames } = metric as { labelNames?: readonly string[] };
    // prom-client's type names ('counter', 'gauge', 'histogram') at run time, whatever its typings say.
    // `service` is every series' default label.
    found.set(metric.name, {
      type: String(metric.type),
      labels: new Set(['service', ...(labelNames ?? [])]),
    });
  }
  return found;
}

/** Labels Prometheus puts on every series of a target: its own and the ServiceMonitor's `targetLabels`. */
export const targetLabels: ReadonlySet<string> = new Set([
  'namespace',
  'pod',
  'service',
  'job',
  'instance',
  'endpoint',
  'container',
  'app_kubernetes_io_part_of',
  'app_kubernetes_io_component',
]);

/** Metrics of Prometheus itself an expression may read (the scrape's `up`). */
const prometheusMetrics = new Set(['up']);

const keywords = new Set(['by', 'on', 'without', 'ignoring', 'group_left', 'group_right', 'offset', 'bool']);
const operators = new Set(['and', 'or', 'unless']);

/** The metrics an expression reads (every name that is not a function, a keyword or a label), and the labels it names. */
export function readsOf(expr: string): { metrics: Set<string>; labels: Set<string> } {
  const labels = new Set<string>();
  for (const clause of expr.matchAll(/\b(?:by|on|without|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const name of (clause[1] as string).split(',')) if (name.trim()) labels.add(name.trim());
  }
  for (const matchers of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const matcher of (matchers[1] as string).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      labels.add(matcher[1] as string);
    }
  }
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(?:by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\$?\w+/g, ' ');
  const metrics = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const name = match[1] as string;
    if (match[2] || keywords.has(name) || operators.has(name)) continue;
    metrics.add(name);
  }
  return { metrics, labels };
}

/**
 * Expects an expression to read only metrics the engine registers (or Prometheus's `up`), by labels
 * those metrics or the target carry; returns the labels its series may carry.
 */
export function expectEngineReads(
  what: string,
  expr: string,
  registered: ReadonlyMap<string, RegisteredMetric>,
): Set<string> {
  const { metrics, labels } = readsOf(expr);
  expect(metrics.size, `${what} reads no metric`).toBeGreaterThan(0);
  const carried = new Set(targetLabels);
  for (const name of metrics) {
    if (prometheusMetrics.has(name)) continue;
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
    const base = histogram && registered.get(histogram[1] as string)?.type === 'histogram';
    const metric = registered.get(base ? (histogram?.[1] as string) : name);
    expect(metric, `${what}: ${name} is not a metric of the engine`).toBeDefined();
    for (const label of metric?.labels ?? []) carried.add(label);
    if (base && histogram?.[2] === 'bucket') carried.add('le');
  }
  for (const label of labels) {
    expect(carried.has(label), `${what}: no metric it reads carries the label ${label}`).toBe(true);
  }
  return carried;
}

/**
 * The labels an expression's result keeps: its outermost aggregation's `by` (less `le`, which a
 * histogram_quantile drops), none after an aggregation without one, else what its series carry.
 */
export function resultLabels(expr: string, carried: ReadonlySet<string>): ReadonlySet<string> {
  const outer =
    /^\s*(?:histogram_quantile\s*\([^,]*,\s*)?(sum|max|min|count|avg)\s*(by\s*\(([^)]*)\))?\s*\(/.exec(expr);
  if (!outer) return carried;
  const by = outer[3];
  if (by === undefined) return new Set();
  return new Set(
    by
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && name !== 'le'),
  );
}
