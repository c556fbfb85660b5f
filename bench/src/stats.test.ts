import { describe, expect, it } from 'vitest';
import { bounded, metricValue, parsePrometheus, percentile, summarize } from './stats.ts';

describe('benchmark arithmetic', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(summarize([3, 1, 2])).toEqual({ count: 3, p50: 2, p95: 3, p99: 3, max: 3 });
  });

  it('sums Prometheus series by label subset', () => {
    const metrics = parsePrometheus(
      [
        '# HELP rp_x x',
        'rp_x_total{state="A",topic="t"} 3',
        'rp_x_total{state="B",topic="t"} 4',
        'rp_y 2.5',
      ].join('\n'),
    );
    expect(metricValue(metrics, 'rp_x_total')).toBe(7);
    expect(metricValue(metrics, 'rp_x_total', { state: 'B' })).toBe(4);
    expect(metricValue(metrics, 'rp_y')).toBe(2.5);
    expect(metricValue(metrics, 'rp_z')).toBe(0);
  });

  it('keeps at most the limit in flight and does every index once', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await bounded(50, 4, async (index) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      seen.push(index);
      inFlight -= 1;
    });
    expect(most).toBeLessThanOrEqual(4);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });
});
