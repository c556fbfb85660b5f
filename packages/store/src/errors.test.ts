import { AppError } from '@rp/runtime';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  isDuplicateKey,
  onlyDuplicateKeys,
  refusedAsDuplicates,
  StoreError,
  storeFailures,
  toStoreError,
} from './errors.ts';

const serverError = (code: number, labels: string[] = []) => {
  const error = new MongoServerError({ message: `server error ${code}`, code, ok: 0 });
  for (const label of labels) error.addErrorLabel(label);
  return error;
};

describe('toStoreError', () => {
  it.each([
    ['a network error', new MongoNetworkError('connection reset'), 'unavailable', 'STORE_UNAVAILABLE', true],
    [
      'a socket timeout',
      new MongoNetworkTimeoutError('socket timed out'),
      'timeout',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'no server to select',
      new MongoServerSelectionError('no primary', {} as never),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    ['maxTimeMS expired', serverError(50), 'timeout', 'STORE_UNAVAILABLE', true],
    ['a primary stepping down', serverError(189), 'unavailable', 'STORE_UNAVAILABLE', true],
    ['a write conflict', serverError(112), 'write-conflict', 'STORE_UNAVAILABLE', true],
    [
      'a labelled retryable write error',
      serverError(9999, ['RetryableWriteError']),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      "FerretDB's internal error when its PostgreSQL did not answer in time",
      new MongoServerError({
        message:
          '[msg_update.go:133 handler.(*Handler).updateDocument] [update.go:114 common.UpdateDocument] [collection.go:227 postgresql.(*collection).UpdateAll] timeout: read tcp 127.0.0.1:52128->127.0.0.1:15432: i/o timeout',
        code: 1,
        ok: 0,
      }),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'the same when PostgreSQL is restarting',
      new MongoServerError({
        message: 'FATAL: the database system is starting up (SQLSTATE 57P03)',
        code: 1,
        ok: 0,
      }),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    ['an internal error that is not about the connection', serverError(1), 'rejected', 'INTERNAL', false],
    ['a duplicate key', serverError(11000), 'duplicate-key', 'CONFLICT', false],
    ['a rejected command', serverError(2), 'rejected', 'INTERNAL', false],
    [
      'a socket the server ended mid-write, passed on unwrapped by the driver',
      Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'the same without a code',
      new Error('This socket has been ended by the other party'),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'a closed client (shutting down: another instance redoes the work)',
      new MongoClientClosedError(),
      'closed',
      'SHUTTING_DOWN',
      true,
    ],
    [
      'an insertMany cut off by a socket timeout (the driver wraps it in a bulk write error)',
      new MongoBulkWriteError(new MongoNetworkTimeoutError('connection 73 timed out'), {} as never),
      'timeout',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'an insertMany whose connection pool was cleared',
      new MongoBulkWriteError(new MongoNetworkError('connection 160 closed'), {} as never),
      'unavailable',
      'STORE_UNAVAILABLE',
      true,
    ],
    [
      'a bulk write refused by the server',
      new MongoBulkWriteError({ message: 'document too large', code: 2 }, {} as never),
      'rejected',
      'INTERNAL',
      false,
    ],
    ['something else', new TypeError('bug'), 'rejected', 'INTERNAL', false],
  ] as const)('maps %s', (_name, error, failure, code, retriable) => {
    const mapped = toStoreError(error, 'op');
    expect(mapped).toBeInstanceOf(StoreError);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped.failure).toBe(failure);
    expect(mapped.code).toBe(code);
    expect(mapped.retriable).toBe(retriable);
    expect(mapped.cause).toBe(error);
    expect(mapped.message).toMatch(/^op: /);
  });

  it('passes a StoreError through unchanged', () => {
    const original = new StoreError('invalid-input', 'bad');
    expect(toStoreError(original, 'op')).toBe(original);
  });

  it('gives every failure its AppError code', () => {
    for (const [failure, code] of Object.entries(storeFailures)) {
      expect(new StoreError(failure as keyof typeof storeFailures, 'x').code).toBe(code);
    }
  });
});

describe('isDuplicateKey', () => {
  it('recognises only duplicate key server errors', () => {
    expect(isDuplicateKey(serverError(11000))).toBe(true);
    expect(isDuplicateKey(serverError(50))).toBe(false);
    expect(isDuplicateKey(new Error('E11000'))).toBe(false);
  });
});

describe('refusedAsDuplicates', () => {
  const batch = ['a', 'b', 'c', 'd'];
  const refusing = (...indexes: number[]) =>
    new MongoBulkWriteError(
      {
        message: 'E11000 duplicate key error',
        code: 11000,
        writeErrors: indexes.map((index) => ({ index, code: 11000, errmsg: 'E11000' })),
      } as never,
      {} as never,
    );

  it('names the documents an unordered insert refused as taken', () => {
    const error = refusing(1, 3);
    expect(onlyDuplicateKeys(error)).toBe(true);
    expect(refusedAsDuplicates(error, batch)).toEqual(['b', 'd']);
  });

  it('puts the whole batch in doubt when the error names no document of it', () => {
    expect(refusedAsDuplicates(serverError(11000), batch)).toBe(batch);
    expect(refusedAsDuplicates(refusing(), batch)).toBe(batch);
    expect(refusedAsDuplicates(refusing(1, 7), batch)).toBe(batch);
  });
});
