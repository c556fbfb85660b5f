import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics, metricsRoutes } from './metrics.ts';

describe('metrics', () => {
  it('serves registered metrics with the service label', async () => {
    const metrics = createMetrics({ service: 'collections' });
    metrics
      .counter('rp_direct_debits_received_total', 'Direct debits received', ['scheme'])
      .inc({ scheme: 'DEBICHECK' }, 3);
    const response = await metricsRoutes(metrics).request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const body = await response.text();
    expect(body).toContain('# HELP rp_direct_debits_received_total Direct debits received');
    expect(body).toContain('rp_direct_debits_received_total{scheme="DEBICHECK",service="collections"} 3');
    expect(body).toContain('process_cpu_user_seconds_total');
  });

  it("samples the event loop's lag often enough to see a 60 ms block (nodejs_eventloop_lag_max_seconds)", async () => {
    const metrics = createMetrics({ service: 'loop' });
    const block = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // The loop blocked, as a long handler blocks it.
      }
    };
    /** A turn of the loop through its timers: the overdue look runs. */
    const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
    // Two blocks, each seen by the look that follows it.
    block(60);
    await turn();
    block(60);
    await turn();
    const { body } = await metrics.render();
    const max = Number(/^nodejs_eventloop_lag_max_seconds\{[^}]*\} (\S+)$/m.exec(body)?.[1]);
    expect(max).toBeGreaterThan(0.05);
  });

  it("has every one of prom-client's default process metrics, the event loop's lag read from the process's one look at its loop", async () => {
    const theirs = new Registry();
    collectDefaultMetrics({ register: theirs });
    const ours = createMetrics({ service: 'process' }).registry;
    const names = (registry: Registry) =>
      registry
        .getMetricsAsArray()
        .map((metric) => metric.name)
        .sort();
    expect(names(ours)).toEqual(names(theirs));
    expect(names(ours)).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('returns the same metric when asked twice and refuses a type clash', () => {
    const metrics = createMetrics({ service: 'collections', defaultMetrics: false });
    const first = metrics.histogram('rp_posting_seconds', 'Posting latency', ['bank'], { buckets: [0.1, 1] });
    expect(metrics.histogram('rp_posting_seconds', 'Posting latency', ['bank'])).toBe(first);
    expect(metrics.gauge('rp_lag', 'Lag')).toBe(metrics.gauge('rp_lag', 'Lag'));
    expect(() => metrics.counter('rp_lag', 'Lag')).toThrow(/different type/);
  });

  it('reads a collected gauge at each scrape, dropping the series its collect resets', async () => {
    const metrics = createMetrics({ service: 'collections', defaultMetrics: false });
    let waiting = new Map([['0', 7]]);
    metrics.gauge('rp_waiting_records', 'Records waiting', ['partition'], {
      collect(gauge) {
        gauge.reset();
        for (const [partition, records] of waiting) gauge.set({ partition }, records);
      },
    });
    expect((await metrics.render()).body).toContain(
      'rp_waiting_records{partition="0",service="collections"} 7',
    );
    waiting = new Map([['1', 2]]);
    const body = (await metrics.render()).body;
    expect(body).toContain('rp_waiting_records{partition="1",service="collections"} 2');
    expect(body).not.toContain('partition="0"');
    expect(() => metrics.gauge('rp_waiting_records', 'Records waiting', [], { collect() {} })).toThrow(
      /already registered/,
    );
  });

  it('keeps registries of separate services apart', async () => {
    const a = createMetrics({ service: 'a', defaultMetrics: false });
    const b = createMetrics({ service: 'b', defaultMetrics: false });
    a.counter('rp_only_in_a_total', 'A only').inc();
    expect((await b.render()).body).not.toContain('rp_only_in_a_total');
  });
});
