/**
 * The one closed list of error codes used across the engine. Every thrown error that crosses a module
 * boundary is an `AppError` carrying one of these, so callers branch on `code` rather than on messages.
 */
export const errorCodes = [
  'CONFIG_INVALID',
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'MALFORMED_JSON',
  'BROKER_UNAVAILABLE',
  'STORE_UNAVAILABLE',
  'DOWNSTREAM_TIMEOUT',
  'DOWNSTREAM_REJECTED',
  'ILLEGAL_TRANSITION',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'INTERNAL',
  'SHUTTING_DOWN',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** A problem with one field of an input, located by an RFC 6901 JSON pointer (`/amount/currency`). */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

export interface AppErrorOptions {
  readonly cause?: unknown;
  /** Overrides the code's default (see `defaultRetriable`). */
  readonly retriable?: boolean;
  /** HTTP status; defaults to the code's status (see `defaultStatus`). */
  readonly status?: number;
  readonly details?: readonly FieldError[];
  readonly retryAfterSeconds?: number;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly status: number;
  readonly details: readonly FieldError[];
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retriable = options.retriable ?? defaultRetriable(code);
    this.status = options.status ?? defaultStatus(code);
    this.details = options.details ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isAppError<C extends ErrorCode>(err: unknown, code?: C): err is AppError & { code: C } {
  return err instanceof AppError && (code === undefined || err.code === code);
}

/**
 * Whether retrying the failed operation may succeed. Errors from libraries that follow the same
 * convention (a boolean `retriable`, as KafkaJS and @platformatic/kafka errors have) are honoured;
 * anything else is treated as permanent, because retrying an unknown failure can repeat a side effect.
 */
export function isRetriable(err: unknown): boolean {
  if (err instanceof AppError) return err.retriable;
  if (typeof err === 'object' && err !== null && 'retriable' in err) {
    return (err as { retriable: unknown }).retriable === true;
  }
  return false;
}

export function defaultRetriable(code: ErrorCode): boolean {
  switch (code) {
    case 'BROKER_UNAVAILABLE':
    case 'STORE_UNAVAILABLE':
    case 'DOWNSTREAM_TIMEOUT':
    case 'RATE_LIMITED':
    case 'SHUTTING_DOWN':
      return true;
    case 'CONFIG_INVALID':
    case 'VALIDATION_FAILED':
    case 'NOT_FOUND':
    case 'METHOD_NOT_ALLOWED':
    case 'CONFLICT':
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'PAYLOAD_TOO_LARGE':
    case 'MALFORMED_JSON':
    case 'DOWNSTREAM_REJECTED':
    case 'ILLEGAL_TRANSITION':
    case 'UNAUTHORIZED':
    case 'FORBIDDEN':
    case 'INTERNAL':
      return false;
    default:
      return assertNever(code);
  }
}

export function defaultStatus(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
      return 422;
    case 'MALFORMED_JSON':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'CONFLICT':
    case 'ILLEGAL_TRANSITION':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'RATE_LIMITED':
      return 429;
    case 'DOWNSTREAM_REJECTED':
      return 502;
    case 'BROKER_UNAVAILABLE':
    case 'STORE_UNAVAILABLE':
    case 'SHUTTING_DOWN':
      return 503;
    case 'DOWNSTREAM_TIMEOUT':
      return 504;
    case 'CONFIG_INVALID':
    case 'INTERNAL':
      return 500;
    default:
      return assertNever(code);
  }
}

/** Short human-readable summary of a code, used as the problem `title`. */
export function errorTitle(code: ErrorCode): string {
  switch (code) {
    case 'CONFIG_INVALID':
      return 'Invalid configuration';
    case 'VALIDATION_FAILED':
      return 'Validation failed';
    case 'NOT_FOUND':
      return 'Not found';
    case 'METHOD_NOT_ALLOWED':
      return 'Method not allowed';
    case 'CONFLICT':
      return 'Conflict';
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'Unsupported media type';
    case 'PAYLOAD_TOO_LARGE':
      return 'Payload too large';
    case 'MALFORMED_JSON':
      return 'Malformed JSON';
    case 'BROKER_UNAVAILABLE':
      return 'Message broker unavailable';
    case 'STORE_UNAVAILABLE':
      return 'Store unavailable';
    case 'DOWNSTREAM_TIMEOUT':
      return 'Downstream timeout';
    case 'DOWNSTREAM_REJECTED':
      return 'Downstream rejected the request';
    case 'ILLEGAL_TRANSITION':
      return 'Illegal state transition';
    case 'UNAUTHORIZED':
      return 'Unauthorized';
    case 'FORBIDDEN':
      return 'Forbidden';
    case 'RATE_LIMITED':
      return 'Too many requests';
    case 'INTERNAL':
      return 'Internal server error';
    case 'SHUTTING_DOWN':
      return 'Service shutting down';
    default:
      return assertNever(code);
  }
}

/** Exhaustiveness guard for `switch` statements over closed unions. */
export function assertNever(value: never): never {
  throw new AppError('INTERNAL', `Unexpected value: ${String(value)}`);
}

/** Message of any thrown value, for logs and reports. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
