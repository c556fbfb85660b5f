import { AppError } from '@rp/runtime';
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, test } from 'vitest';
import { describeError, fromKafkaJsError, isRetriableFailure, KafkaError } from './errors.ts';

describe('fromKafkaJsError', () => {
  test('a broker that cannot be reached is retriable (the ingress answers 503)', () => {
    const mapped = fromKafkaJsError(
      new KafkaJSConnectionError('Connection error: ECONNREFUSED'),
      'producing',
    );
    expect(mapped.reason).toBe('KAFKA_UNAVAILABLE');
    expect(mapped.code).toBe('BROKER_UNAVAILABLE');
    expect(mapped.status).toBe(503);
    expect(mapped.retriable).toBe(true);
    expect(mapped.cause).toBeInstanceOf(KafkaJSConnectionError);
    expect(mapped.message).toMatch(/^producing: /);
  });

  test('kafkajs giving up on retries is still a transient outage', () => {
    const exhausted = new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('down'), {
      retryCount: 5,
      retryTime: 1_000,
    });
    expect(fromKafkaJsError(exhausted, 'x').retriable).toBe(true);
  });

  test('a refused connection wrapped by nested retriers (the broker restarting) is still an outage', () => {
    // What the producer threw while the broker was down: the outer retrier wraps the inner one's
    // exhaustion as "non-retriable", with the connection error as its cause.
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    const exhausted = new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 1_000 });
    // kafkajs's typings leave out the options its constructor takes; the cause is what it sets.
    const wrapped = Object.assign(new KafkaJSNonRetriableError(exhausted), { cause: refused });
    const mapped = fromKafkaJsError(wrapped, 'producing');
    expect(mapped.reason).toBe('KAFKA_UNAVAILABLE');
    expect(mapped.retriable).toBe(true);
  });

  test('a request the broker refuses for good is not retriable', () => {
    const tooLarge = new KafkaJSProtocolError(
      Object.assign(new Error('The request included a message larger than the max message size'), {
        type: 'MESSAGE_TOO_LARGE',
        code: 10,
        retriable: false,
      }),
    );
    const mapped = fromKafkaJsError(tooLarge, 'producing');
    expect(mapped.reason).toBe('KAFKA_REQUEST_REJECTED');
    expect(mapped.retriable).toBe(false);
  });

  test('a broker that lost the producer numbering or is still starting is an outage, however kafkajs wraps it', () => {
    for (const [type, code] of [
      ['OUT_OF_ORDER_SEQUENCE_NUMBER', 45],
      ['UNKNOWN_PRODUCER_ID', 59],
      ['INVALID_PRODUCER_EPOCH', 47],
      ['BROKER_NOT_AVAILABLE', 8],
    ] as const) {
      const answer = new KafkaJSProtocolError(
        Object.assign(new Error(type), { type, code, retriable: false }),
      );
      expect(fromKafkaJsError(answer, 'producing').retriable, type).toBe(true);
      const wrapped = Object.assign(new KafkaJSNonRetriableError(answer), { cause: answer });
      expect(fromKafkaJsError(wrapped, 'producing'), type).toMatchObject({
        reason: 'KAFKA_UNAVAILABLE',
        retriable: true,
      });
    }
  });

  test('is an AppError, so the HTTP layer maps it without knowing Kafka', () => {
    const closing = new KafkaError('KAFKA_PRODUCER_CLOSED', 'closing');
    expect(closing).toBeInstanceOf(AppError);
    expect(closing.code).toBe('SHUTTING_DOWN');
    expect(closing.retriable).toBe(true);
    const broken = new KafkaError('AVRO_INVALID_SCHEMA', 'bad schema');
    expect(broken.code).toBe('CONFIG_INVALID');
    expect(broken.retriable).toBe(false);
  });

  test('a KafkaError passes through unchanged', () => {
    const original = new KafkaError('KAFKA_SEND_TIMEOUT', 'late');
    expect(fromKafkaJsError(original, 'x')).toBe(original);
  });
});

describe('handler errors', () => {
  test('an error that says retriable: false is final; anything else is retried', () => {
    expect(isRetriableFailure(Object.assign(new Error('bad request'), { retriable: false }))).toBe(false);
    expect(isRetriableFailure(new Error('socket hang up'))).toBe(true);
    expect(isRetriableFailure('a string')).toBe(true);
    expect(isRetriableFailure(new KafkaError('AVRO_INVALID_VALUE', 'x'))).toBe(false);
  });

  test('describeError prefers the error code, then its name', () => {
    expect(describeError(Object.assign(new Error('m'), { code: 'BANK_DOWN' }))).toEqual({
      code: 'BANK_DOWN',
      message: 'm',
    });
    expect(describeError(new TypeError('t'))).toEqual({ code: 'TypeError', message: 't' });
    expect(describeError(42)).toEqual({ code: 'NON_ERROR_THROWN', message: '42' });
    expect(describeError(new KafkaError('AVRO_DECODE_FAILED', 'bad body')).code).toBe('AVRO_DECODE_FAILED');
  });
});
