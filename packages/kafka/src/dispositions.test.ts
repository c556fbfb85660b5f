import { describe, expect, test } from 'vitest';
import { dispose } from './dispositions.ts';
import { isRetriableFailure, KafkaError } from './errors.ts';
import { retryPolicy } from './retry-policy.ts';

const policy = retryPolicy({ delaysMs: [100, 1_000], maxAttempts: 3 });
const none = new Map();

describe('dispose', () => {
  test('records whose key was parked before the chunk are parked, whatever else happened', () => {
    const result = dispose(
      { keys: ['a', 'b'], parkedBefore: [true, false], poison: none, failures: none },
      policy,
      isRetriableFailure,
    );
    expect(result).toEqual([{ kind: 'park', tier: 1, delayMs: 100 }, { kind: 'handled' }]);
  });

  test('a retried failure parks the later records of its key, even ones reported handled', () => {
    const error = new Error('bank down');
    const result = dispose(
      {
        keys: ['a', 'b', 'a', 'a'],
        parkedBefore: [false, false, false, false],
        poison: none,
        failures: new Map([[0, error]]),
      },
      policy,
      isRetriableFailure,
    );
    expect(result.map((entry) => entry.kind)).toEqual(['retry', 'handled', 'park', 'park']);
    expect(result[0]).toEqual({ kind: 'retry', tier: 1, delayMs: 100, error });
  });

  test('a non-retriable failure is dead-lettered and does not park its key', () => {
    const error = Object.assign(new Error('closed'), { retriable: false });
    const result = dispose(
      { keys: ['a', 'a'], parkedBefore: [false, false], poison: none, failures: new Map([[0, error]]) },
      policy,
      isRetriableFailure,
    );
    expect(result).toEqual([{ kind: 'dead-letter', reason: 'non-retriable', error }, { kind: 'handled' }]);
  });

  test('poison is dead-lettered; behind a parked key it waits its turn instead', () => {
    const bad = new KafkaError('AVRO_NOT_WIRE_FORMAT', 'not avro');
    const result = dispose(
      {
        keys: ['p', 'a', 'a'],
        parkedBefore: [false, false, false],
        poison: new Map([
          [0, bad],
          [2, bad],
        ]),
        failures: new Map([[1, new Error('x')]]),
      },
      policy,
      isRetriableFailure,
    );
    expect(result.map((entry) => entry.kind)).toEqual(['dead-letter', 'retry', 'park']);
    expect(result[0]).toMatchObject({ reason: 'poison', error: bad });
  });

  test('records without a key never park one another', () => {
    const result = dispose(
      {
        keys: ['', ''],
        parkedBefore: [false, false],
        poison: none,
        failures: new Map([[0, new Error('x')]]),
      },
      policy,
      isRetriableFailure,
    );
    expect(result.map((entry) => entry.kind)).toEqual(['retry', 'handled']);
  });

  test('with a single attempt, a failure goes straight to the dead-letter topic', () => {
    const result = dispose(
      {
        keys: ['a', 'a'],
        parkedBefore: [false, false],
        poison: none,
        failures: new Map([[0, new Error('x')]]),
      },
      retryPolicy({ delaysMs: [], maxAttempts: 1 }),
      isRetriableFailure,
    );
    expect(result.map((entry) => entry.kind)).toEqual(['dead-letter', 'handled']);
  });
});
