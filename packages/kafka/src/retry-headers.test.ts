import { describe, expect, test } from 'vitest';
import { KafkaError } from './errors.ts';
import {
  deadLetterHeaders,
  headersToStrings,
  parseRetryState,
  type RetryState,
  retryHeader,
  retryHeaders,
  userHeaders,
} from './retry-headers.ts';

const state: RetryState = {
  origin: {
    topic: 'rp.transaction.state.v1',
    partition: 3,
    offset: '1042',
    timestamp: '2026-11-22T08:00:00.000Z',
  },
  attempt: 2,
  reason: 'failed',
  dueAt: Date.parse('2026-11-22T08:00:10.000Z'),
  firstFailureAt: '2026-11-22T08:00:01.000Z',
  errorCode: 'BANK_TIMEOUT',
  errorMessage: 'no answer in 5 s',
};

describe('retry headers', () => {
  test('round-trip the retry state and keep the record’s own headers', () => {
    const headers = retryHeaders('dispatcher.rp.x', { traceparent: '00-abc-def-01' }, state);
    expect(headers.traceparent).toBe('00-abc-def-01');
    expect(headers[retryHeader.group]).toBe('dispatcher.rp.x');
    expect(headers[retryHeader.dueAt]).toBe('2026-11-22T08:00:10.000Z');
    expect(parseRetryState(headers)).toEqual(state);
  });

  test('a record moved again sheds the previous retry headers', () => {
    const first = retryHeaders('g', { traceparent: 't' }, state);
    const parked = retryHeaders('g', first, {
      origin: state.origin,
      attempt: 0,
      reason: 'parked',
      dueAt: state.dueAt,
    });
    expect(parked[retryHeader.errorCode]).toBeUndefined();
    expect(parked[retryHeader.firstFailureAt]).toBeUndefined();
    expect(userHeaders(parked)).toEqual({ traceparent: 't' });
  });

  test('dead-letter headers carry the reason and the time', () => {
    const { dueAt: _dueAt, ...rest } = state;
    const headers = deadLetterHeaders('g', {}, rest, 'retries-exhausted', new Date('2026-11-22T09:00:00Z'));
    expect(headers[retryHeader.deadLetterReason]).toBe('retries-exhausted');
    expect(headers[retryHeader.deadLetterAt]).toBe('2026-11-22T09:00:00.000Z');
    expect(headers[retryHeader.originOffset]).toBe('1042');
    expect(headers[retryHeader.attempt]).toBe('2');
    expect(headers[retryHeader.dueAt]).toBeUndefined();
  });

  test('long error messages are cut', () => {
    const headers = retryHeaders('g', {}, { ...state, errorMessage: 'x'.repeat(5_000) });
    expect(headers[retryHeader.errorMessage]).toHaveLength(1_000);
  });

  test('missing or malformed retry headers are reported, not guessed', () => {
    const good = retryHeaders('g', {}, state);
    const without = { ...good };
    delete without[retryHeader.originTopic];
    expect(() => parseRetryState(without)).toThrow(KafkaError);
    expect(() => parseRetryState({ ...good, [retryHeader.attempt]: '-1' })).toThrow(/whole number/);
    expect(() => parseRetryState({ ...good, [retryHeader.originOffset]: '12a' })).toThrow(/offset/);
    expect(() => parseRetryState({ ...good, [retryHeader.dueAt]: 'soon' })).toThrow(/not a time/);
    expect(() => parseRetryState({ ...good, [retryHeader.reason]: 'bored' })).toThrow(/bored/);
    try {
      parseRetryState({});
    } catch (error) {
      expect((error as KafkaError).reason).toBe('RETRY_HEADERS_INVALID');
      expect((error as KafkaError).retriable).toBe(false);
    }
  });

  test('kafkajs header values become strings (last value wins)', () => {
    expect(
      headersToStrings({
        a: Buffer.from('x'),
        b: 'y',
        c: [Buffer.from('1'), Buffer.from('2')],
        d: undefined,
      }),
    ).toEqual({
      a: 'x',
      b: 'y',
      c: '2',
    });
    expect(headersToStrings(undefined)).toEqual({});
  });
});
