import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, type ErrorCode, errorTitle, type FieldError } from './errors.ts';
import { createLogger, type Logger } from './logging.ts';

export const problemContentType = 'application/problem+json';

/** RFC 9457 problem details, with the error `code` and field `errors` as extension members. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldError[];
}

/** `VALIDATION_FAILED` → `/problems/validation-failed`; relative, so it resolves against the API's host. */
export function problemType(code: ErrorCode): string {
  return `/problems/${code.toLowerCase().replaceAll('_', '-')}`;
}

const internalDetail = 'An unexpected error occurred. It has been logged.';

export function problemFromAppError(err: AppError, instance: string): ProblemDetails {
  const problem: ProblemDetails = {
    type: problemType(err.code),
    title: errorTitle(err.code),
    status: err.status,
    // INTERNAL messages describe our own bug, not the request; the client gets a generic sentence.
    // Server-side failures name their cause in the logs only: a client learns the kind of failure and
    // when to retry, never the engine's hosts, topics or stack.
    detail: err.status >= 500 ? serverDetail(err) : err.message,
    instance,
    code: err.code,
  };
  return err.details.length > 0 ? { ...problem, errors: err.details } : problem;
}

const codeByHttpStatus: Readonly<Record<number, ErrorCode>> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  503: 'SHUTTING_DOWN',
};

/**
 * Normalises anything thrown in a request to an AppError: AppErrors as they are, Hono's
 * HTTPExceptions (body limit, validators) by their status, everything else as INTERNAL.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    const code = codeByHttpStatus[err.status] ?? (err.status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
    return new AppError(code, err.message || errorTitle(code), { cause: err, status: err.status });
  }
  return new AppError('INTERNAL', 'Unhandled error', { cause: err });
}

/**
 * Retry-After of a 503 whose error names no time of its own (a store or broker outage, a shutdown): a
 * client, or an operator's script, waits that long rather than guessing.
 */
export const unavailableRetryAfterSeconds = 5;

export function problemResponse(c: Context, err: AppError): Response {
  const problem = problemFromAppError(err, c.req.path);
  const headers: Record<string, string> = { 'Content-Type': problemContentType };
  const retryAfter =
    err.retryAfterSeconds ?? (problem.status === 503 ? unavailableRetryAfterSeconds : undefined);
  if (retryAfter !== undefined) headers['Retry-After'] = String(Math.ceil(retryAfter));
  return c.body(JSON.stringify(problem), problem.status as ContentfulStatusCode, headers);
}

export interface ProblemHandlerOptions {
  /** Server errors (5xx) are logged here with their cause; client errors at debug. */
  readonly logger?: Logger;
}

/** Builds the one `onError` handler: every failure leaves as `application/problem+json`. */
export function createProblemJsonErrorHandler(options: ProblemHandlerOptions = {}): ErrorHandler {
  return (err, c) => {
    const appError = toAppError(err);
    const logger = (c.get('logger') as Logger | undefined) ?? options.logger;
    const bindings = {
      err: appError.cause ?? appError,
      code: appError.code,
      path: c.req.path,
      method: c.req.method,
    };
    if (appError.status >= 500) logger?.error(bindings, `Request failed: ${appError.message}`);
    else logger?.debug(bindings, `Request rejected: ${appError.message}`);
    return problemResponse(c, appError);
  };
}

/**
 * `onError` handler for apps that do not pass a logger: it logs through the request's `logger` variable
 * when a middleware set one, and otherwise through a JSON logger of its own, so unknown errors are never lost.
 */
export const problemJsonErrorHandler: ErrorHandler = (err, c) => {
  fallbackHandler ??= createProblemJsonErrorHandler({ logger: createLogger({ service: 'http' }) });
  return fallbackHandler(err, c);
};
let fallbackHandler: ErrorHandler | undefined;

export const notFoundHandler: NotFoundHandler = (c) =>
  problemResponse(c, new AppError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`));

function serverDetail(err: AppError): string {
  if (err.code === 'INTERNAL') return internalDetail;
  return err.retriable ? `${errorTitle(err.code)}; retry later` : errorTitle(err.code);
}
