import { describe, expect, test } from 'vitest';
import { UsageError } from './events.ts';
import { defaultIngressUrl, formatSend, parseSendArgs } from './ops.ts';

describe('parseSendArgs', () => {
  test('defaults: ten debits, sixteen in flight, the local ingress', () => {
    expect(parseSendArgs([])).toEqual({
      url: defaultIngressUrl,
      count: 10,
      concurrency: 16,
      timeoutMs: 120_000,
      json: false,
    });
  });

  test('the amount is written with two decimals, exactly as given', () => {
    expect(parseSendArgs(['--amount', '125']).amount).toBe('125.00');
    expect(parseSendArgs(['--amount', '125.5']).amount).toBe('125.50');
    expect(parseSendArgs(['--amount', '0.07']).amount).toBe('0.07');
    expect(parseSendArgs(['--count', '5000', '--url', 'http://ingress:8080/'], {}).url).toBe(
      'http://ingress:8080',
    );
    expect(parseSendArgs([], { INGRESS_URL: 'http://in.example' }).url).toBe('http://in.example');
  });

  test.each([
    [['--count', '0'], /--count: "0" must be a whole number from 1 to 1,000,000/],
    [['--count', '1.5'], /--count/],
    [['--concurrency', 'many'], /--concurrency/],
    [['--amount', '1.005'], /--amount: "1.005" must be rands with at most two decimals/],
    [['--amount', '-3'], /--amount/],
    [['extra'], /unexpected argument "extra"/],
    [['--url', 'ftp://x'], /must be an http or https URL/],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseSendArgs(args)).toThrow(UsageError);
    expect(() => parseSendArgs(args)).toThrow(message);
  });
});

describe('formatSend', () => {
  test('accepted, each refusal with its detail, and a few UETRs to follow', () => {
    expect(
      formatSend({
        sent: 12,
        accepted: 9,
        refused: {
          '503': { count: 2, detail: 'the broker is unavailable' },
          unreachable: { count: 1, detail: 'fetch failed' },
        },
        seconds: 1.5,
        perSecond: 8,
        sampleUetrs: ['a', 'b'],
      }),
    ).toEqual([
      '12 debits sent in 1.5 s (8/s): 9 accepted (202)',
      '  2 refused with HTTP 503: the broker is unavailable',
      '  1 refused with no answer: fetch failed',
      '  e.g. a, b',
    ]);
  });
});
