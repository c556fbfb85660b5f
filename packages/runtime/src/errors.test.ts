import { describe, expect, it } from 'vitest';
import { AppError, defaultStatus, errorCodes, errorTitle, isAppError, isRetriable } from './errors.ts';

describe('AppError', () => {
  it('carries code, cause, retriable, status and details', () => {
    const cause = new Error('socket hang up');
    const err = new AppError('VALIDATION_FAILED', 'Bad amount', {
      cause,
      details: [{ pointer: '/amount', detail: 'must be positive' }],
    });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('AppError');
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.cause).toBe(cause);
    expect(err.retriable).toBe(false);
    expect(err.status).toBe(422);
    expect(err.details).toEqual([{ pointer: '/amount', detail: 'must be positive' }]);
    expect(err.retryAfterSeconds).toBeUndefined();
  });

  it('defaults retriable by code and lets callers override it', () => {
    expect(new AppError('BROKER_UNAVAILABLE', 'down').retriable).toBe(true);
    expect(new AppError('DOWNSTREAM_REJECTED', 'no').retriable).toBe(false);
    expect(new AppError('DOWNSTREAM_REJECTED', 'no', { retriable: true }).retriable).toBe(true);
  });

  it('gives every code a status and a title', () => {
    for (const code of errorCodes) {
      expect(defaultStatus(code)).toBeGreaterThanOrEqual(400);
      expect(errorTitle(code)).not.toBe('');
    }
  });
});

describe('isAppError and isRetriable', () => {
  it('narrows by code', () => {
    const err: unknown = new AppError('CONFLICT', 'duplicate');
    expect(isAppError(err)).toBe(true);
    expect(isAppError(err, 'CONFLICT')).toBe(true);
    expect(isAppError(err, 'NOT_FOUND')).toBe(false);
    expect(isAppError(new Error('plain'))).toBe(false);
  });

  it('honours a library error with a retriable flag and treats unknown errors as permanent', () => {
    expect(isRetriable(new AppError('STORE_UNAVAILABLE', 'down'))).toBe(true);
    expect(isRetriable(Object.assign(new Error('kafka'), { retriable: true }))).toBe(true);
    expect(isRetriable(new Error('plain'))).toBe(false);
    expect(isRetriable('text')).toBe(false);
  });
});
