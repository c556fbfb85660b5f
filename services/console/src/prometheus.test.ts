import { readFileSync } from 'node:fs';
import { createMetrics } from '@rp/runtime';
import { describe, expect, it } from 'vitest';
import { stages } from './overview.ts';
import { meanBy, parsePrometheusText, parseSampleLine, sumBy, sumOf } from './prometheus.ts';

describe('parsePrometheusText', () => {
  it('reads what prom-client writes: counters with labels, gauges, histograms, default labels', async () => {
    const metrics = createMetrics({ service: 'dispatcher', defaultMetrics: false });
    const attempts = metrics.counter('rp_dispatcher_attempts_total', 'attempts', [
      'operation',
      'bank',
      'result',
    ]);
    attempts.inc({ operation: 'inboundDirectDebit', bank: '250655', result: 'ACKNOWLEDGED' }, 3);
    attempts.inc({ operation: 'outboundDirectDebitResponse', bank: '250655', result: 'ACKNOWLEDGED' }, 2);
    attempts.inc({ operation: 'inboundDirectDebit', bank: '470010', result: 'RETRYABLE_FAILURE' });
    metrics.gauge('rp_dispatcher_bank_calls_in_flight', 'in flight', ['bank']).set({ bank: '250655' }, 4);
    const duration = metrics.histogram('rp_dispatcher_attempt_duration_seconds', 'duration', ['bank'], {
      buckets: [0.01, 0.1, 1],
    });
    duration.observe({ bank: '250655' }, 0.02);
    duration.observe({ bank: '250655' }, 0.04);
    duration.observe({ bank: '470010' }, 2);

    const exposition = parsePrometheusText((await metrics.render()).body);

    expect(exposition.invalidLines).toBe(0);
    expect(exposition.types.get('rp_dispatcher_attempts_total')).toBe('counter');
    expect(exposition.types.get('rp_dispatcher_attempt_duration_seconds')).toBe('histogram');
    expect(sumOf(exposition, 'rp_dispatcher_attempts_total')).toBe(6);
    expect(sumOf(exposition, 'rp_dispatcher_attempts_total', { operation: 'inboundDirectDebit' })).toBe(4);
    expect(
      sumOf(exposition, 'rp_dispatcher_attempts_total', { result: ['ACKNOWLEDGED', 'FINAL_FAILURE'] }),
    ).toBe(5);
    expect(sumOf(exposition, 'rp_dispatcher_attempts_total', { result: 'FINAL_FAILURE' })).toBeUndefined();
    expect(sumOf(exposition, 'rp_dispatcher_attempts_total', { service: 'dispatcher' })).toBe(6);
    expect(sumBy(exposition, 'rp_dispatcher_attempts_total', 'bank')).toEqual(
      new Map([
        ['250655', 5],
        ['470010', 1],
      ]),
    );
    expect(sumOf(exposition, 'rp_dispatcher_bank_calls_in_flight', { bank: '250655' })).toBe(4);
    // Buckets are cumulative, +Inf included; the mean comes from _sum and _count.
    expect(
      sumOf(exposition, 'rp_dispatcher_attempt_duration_seconds_bucket', { bank: '250655', le: '0.1' }),
    ).toBe(2);
    expect(sumOf(exposition, 'rp_dispatcher_attempt_duration_seconds_bucket', { le: '+Inf' })).toBe(3);
    const means = meanBy(exposition, 'rp_dispatcher_attempt_duration_seconds', 'bank');
    expect(means.get('250655')).toBeCloseTo(0.03, 10);
    expect(means.get('470010')).toBe(2);
  });

  it('unescapes label values: backslash, double quote and newline', async () => {
    const metrics = createMetrics({ service: 'x', defaultMetrics: false });
    const tricky = 'a "quoted" \\ back\nslash, {brace} =equals';
    metrics.counter('rp_test_total', 'help', ['reason']).inc({ reason: tricky }, 7);
    const exposition = parsePrometheusText((await metrics.render()).body);
    expect(exposition.invalidLines).toBe(0);
    expect(sumOf(exposition, 'rp_test_total', { reason: tricky })).toBe(7);
  });

  it('reads special values, exponents, timestamps, spacing and trailing commas', () => {
    const exposition = parsePrometheusText(
      [
        '# HELP a_total A counter',
        '# TYPE a_total counter',
        'a_total 1e3',
        'b{x="1",} 2.5 1700000000000',
        'c { x = "1" , y="2" } -3',
        'd NaN',
        'e +Inf',
        'f -Inf',
        '',
        '   ',
        'g{x="\\\\"} .5',
      ].join('\n'),
    );
    expect(exposition.invalidLines).toBe(0);
    expect(exposition.samples.map((sample) => [sample.name, sample.value])).toEqual([
      ['a_total', 1000],
      ['b', 2.5],
      ['c', -3],
      ['d', Number.NaN],
      ['e', Number.POSITIVE_INFINITY],
      ['f', Number.NEGATIVE_INFINITY],
      ['g', 0.5],
    ]);
    expect(exposition.samples[2]?.labels).toEqual({ x: '1', y: '2' });
    expect(exposition.samples[6]?.labels).toEqual({ x: '\\' });
    // Sums skip values that are not finite.
    expect(sumOf(exposition, 'd')).toBeUndefined();
    expect(sumOf(exposition, 'e')).toBeUndefined();
  });

  it('counts lines that are not samples and keeps the rest of the scrape', () => {
    const exposition = parsePrometheusText(
      [
        'ok_total 1',
        'no_value',
        'bad_value{x="1"} twelve',
        'unclosed{x="1} 3',
        'no_equals{x"1"} 3',
        '9starts_with_digit 3',
        'glued{x="1"}3',
        'also_ok 2',
      ].join('\n'),
    );
    expect(exposition.invalidLines).toBe(6);
    expect(exposition.samples.map((sample) => sample.name)).toEqual(['ok_total', 'also_ok']);
  });

  it('parses one line, or says it is not a sample', () => {
    expect(parseSampleLine('rp_x_total{a="b"} 4')).toEqual({
      name: 'rp_x_total',
      labels: { a: 'b' },
      value: 4,
    });
    expect(parseSampleLine('rp_x_total{a="b"')).toBeUndefined();
    expect(parseSampleLine('{a="b"} 4')).toBeUndefined();
  });
});

describe('the stages the page shows', () => {
  it('each reads a metric its service declares (services/<service>/src/metrics.ts)', () => {
    for (const stage of stages) {
      const source = readFileSync(new URL(`../../${stage.target}/src/metrics.ts`, import.meta.url), 'utf8');
      expect(source, `${stage.id}: ${stage.metric}`).toContain(`'${stage.metric}'`);
      for (const label of Object.keys(stage.filter ?? {})) {
        expect(source, `${stage.id}: label ${label}`).toContain(`'${label}'`);
      }
    }
    expect(stages.map((stage) => stage.id)).toEqual([
      'received',
      'validated',
      'rejected',
      'reports-delivered',
      'queued',
      'released',
      'delivered',
      'completed',
      'postings-delivered',
    ]);
  });
});
