import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { memoryLogger } from './memory-logger.ts';
import {
  createProblemJsonErrorHandler,
  notFoundHandler,
  problemJsonErrorHandler,
  problemType,
  unavailableRetryAfterSeconds,
} from './problem.ts';

function appThrowing(err: unknown, logger = memoryLogger().logger): Hono {
  const app = new Hono();
  app.post('/v1/direct-debits', () => {
    throw err;
  });
  app.onError(createProblemJsonErrorHandler({ logger }));
  app.notFound(notFoundHandler);
  return app;
}

describe('problem+json errors', () => {
  it('maps an AppError with field errors to RFC 9457 problem details with pointers', async () => {
    const app = appThrowing(
      new AppError('VALIDATION_FAILED', 'The direct debit is invalid', {
        details: [
          { pointer: '/amount/value', detail: 'must be greater than zero' },
          { pointer: '/debtor/account', detail: 'is required' },
        ],
      }),
    );
    const response = await app.request('/v1/direct-debits', { method: 'POST' });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toEqual({
      type: '/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      detail: 'The direct debit is invalid',
      instance: '/v1/direct-debits',
      code: 'VALIDATION_FAILED',
      errors: [
        { pointer: '/amount/value', detail: 'must be greater than zero' },
        { pointer: '/debtor/account', detail: 'is required' },
      ],
    });
  });

  it('sets Retry-After when the error says when to retry', async () => {
    const app = appThrowing(new AppError('RATE_LIMITED', 'Slow down', { retryAfterSeconds: 30 }));
    const response = await app.request('/v1/direct-debits', { method: 'POST' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(((await response.json()) as { type: string }).type).toBe(problemType('RATE_LIMITED'));
  });

  it('answers unknown errors with a bare 500 and logs the real error', async () => {
    const { logger, lines } = memoryLogger();
    const app = appThrowing(new Error('connection string mongodb://admin:pw@db leaked?'), logger);
    const response = await app.request('/v1/direct-debits', { method: 'POST' });
    expect(response.status).toBe(500);
    const body = JSON.stringify(await response.json());
    expect(body).toContain('/problems/internal');
    expect(body).not.toContain('mongodb');
    const logged = lines.find((line) => line.level === 'error');
    expect(JSON.stringify(logged)).toContain('connection string mongodb');
  });

  it("maps Hono's HTTPExceptions by status", async () => {
    const app = appThrowing(new HTTPException(413, { message: 'Body too big' }));
    const response = await app.request('/v1/direct-debits', { method: 'POST' });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', detail: 'Body too big' });
  });

  it('answers unknown routes with a problem 404', async () => {
    const response = await appThrowing(new Error('unused')).request('/v1/nowhere');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      type: '/problems/not-found',
      status: 404,
      instance: '/v1/nowhere',
    });
  });

  it('works as a plain onError handler', async () => {
    const app = new Hono();
    app.get('/gone', () => {
      throw new AppError('NOT_FOUND', 'No such mandate');
    });
    app.onError(problemJsonErrorHandler);
    const response = await app.request('/gone');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ detail: 'No such mandate', code: 'NOT_FOUND' });
  });
});

describe('server-side failures', () => {
  it('answer 503 with Retry-After and keep hosts and topics out of the body', async () => {
    const err = new AppError(
      'BROKER_UNAVAILABLE',
      'produce to rp.directdebit.received.v1 failed: connect ECONNREFUSED 127.0.0.1:19092',
      { retryAfterSeconds: 2 },
    );
    const response = await appThrowing(err).request('/v1/direct-debits', { method: 'POST' });
    expect(response.status).toBe(503);
    expect(response.headers.get('Retry-After')).toBe('2');
    const text = await response.text();
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('rp.directdebit');
    expect(JSON.parse(text)).toMatchObject({ status: 503, code: 'BROKER_UNAVAILABLE' });
  });

  it('answer every 503 with Retry-After, 5 s when the error names no time, and no other status with one', async () => {
    for (const code of ['STORE_UNAVAILABLE', 'BROKER_UNAVAILABLE', 'SHUTTING_DOWN'] as const) {
      const response = await appThrowing(new AppError(code, 'not now')).request('/v1/direct-debits', {
        method: 'POST',
      });
      expect(response.status, code).toBe(503);
      expect(response.headers.get('Retry-After'), code).toBe(String(unavailableRetryAfterSeconds));
    }
    for (const code of ['DOWNSTREAM_TIMEOUT', 'INTERNAL', 'VALIDATION_FAILED'] as const) {
      const response = await appThrowing(new AppError(code, 'no')).request('/v1/direct-debits', {
        method: 'POST',
      });
      expect(response.status, code).not.toBe(503);
      expect(response.headers.get('Retry-After'), code).toBeNull();
    }
  });
});
