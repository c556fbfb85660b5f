import { describe, expect, it } from 'vitest';
import { bounded, drift, metricValue, minuteSpan, parsePrometheus, percentile, summarize } from './stats.ts';

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

  it('reads a drift as the median of the late third of the minutes against the early, start-up left out', () => {
    const minutes = (values: readonly (number | undefined)[]) =>
      values.map((value, index) => ({ minute: index + 1, value }));
    // Minute 1 (90) is start-up; of the nine after it, minutes 2-4 against 8-10, one spike (70) in each.
    expect(drift(minutes([90, 50, 70, 52, 51, 53, 49, 55, 70, 55]))).toEqual({
      early: 52,
      late: 55,
      change: 5.8,
      earlyMinutes: [2, 4],
      lateMinutes: [8, 10],
    });
    // Even thirds take the middle two's mean; minutes not read are passed over.
    expect(drift(minutes([1, 10, 20, undefined, 30, 40, 50, 60, 70]))).toMatchObject({
      early: 15,
      late: 65,
      earlyMinutes: [2, 3],
      lateMinutes: [8, 9],
    });
    // Two minutes: nothing to leave out, a minute each.
    expect(drift(minutes([40, 36]))).toMatchObject({ early: 40, late: 36, change: -10 });
    expect(drift(minutes([0, 5]))).toMatchObject({ change: 0 });
    expect(drift(minutes([40]))).toBeUndefined();
    expect(drift(minutes([undefined, 40, undefined]))).toBeUndefined();
    expect(minuteSpan([2, 4])).toBe('minutes 2-4');
    expect(minuteSpan([3, 3])).toBe('minute 3');
  });
});
