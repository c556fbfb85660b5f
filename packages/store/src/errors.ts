import { AppError, type ErrorCode } from '@rp/runtime';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * What went wrong in the store, finer than the engine-wide code. Each maps to one `AppError` code, and
 * the code's default decides `retriable`: network faults, timeouts, fail-overs and write conflicts may
 * succeed if sent again; a duplicate key or a rejected command will not.
 */
export const storeFailures = {
  unavailable: 'STORE_UNAVAILABLE',
  timeout: 'STORE_UNAVAILABLE',
  'write-conflict': 'STORE_UNAVAILABLE',
  closed: 'SHUTTING_DOWN',
  'duplicate-key': 'CONFLICT',
  'invalid-input': 'VALIDATION_FAILED',
  rejected: 'INTERNAL',
  inconsistent: 'INTERNAL',
} as const satisfies Record<string, ErrorCode>;

export type StoreFailure = keyof typeof storeFailures;

/** An AppError raised by the store; `failure` says what happened, `code` and `retriable` what to do. */
export class StoreError extends AppError {
  readonly failure: StoreFailure;

  constructor(failure: StoreFailure, message: string, options: { cause?: unknown } = {}) {
    super(storeFailures[failure], message, options.cause === undefined ? {} : { cause: options.cause });
    this.failure = failure;
  }
}

/** Duplicate key: the outcome idempotent inserts rely on. */
export const DUPLICATE_KEY = 11000;

/** Server error codes after which the same operation can succeed again (fail-over, shutdown, overload). */
const transientServerCodes = new Set<number>([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  462, // IngressRequestRateLimitExceeded
]);

const timeoutServerCodes = new Set<number>([
  50, // MaxTimeMSExpired
  262, // ExceededTimeLimit
  64, // WriteConcernFailed (wtimeout)
]);

const retriableLabels = ['RetryableWriteError', 'TransientTransactionError', 'SystemOverloadedError'];

export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && (error.code === DUPLICATE_KEY || error.code === 11001);
}

/**
 * Whether a write failed only on keys that were taken: a duplicate key, or an unordered bulk write whose
 * every refusal was one (FerretDB, too, goes on past them in an unordered insert).
 */
export function onlyDuplicateKeys(error: unknown): boolean {
  if (!(error instanceof MongoBulkWriteError)) return isDuplicateKey(error);
  if (error.writeConcernError !== undefined) return false;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  return writeErrors.length > 0 && writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY);
}

/**
 * The documents of an unordered insert that failed only on duplicate keys (`onlyDuplicateKeys`) and were
 * refused: those the error names by their place in `batch` (MongoDB and FerretDB both go on past a
 * duplicate in an unordered insert and name each one), or the whole batch when it names none.
 */
export function refusedAsDuplicates<T>(error: unknown, batch: readonly T[]): readonly T[] {
  if (!(error instanceof MongoBulkWriteError)) return batch;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  const refused = writeErrors.map((writeError) => batch[writeError.index]);
  return refused.length > 0 && refused.every((item) => item !== undefined) ? (refused as T[]) : batch;
}

/**
 * Maps any failure of a driver call to a StoreError, once, at the repository edge, so callers decide
 * retry or give up from `retriable` without knowing the driver's class hierarchy.
 */
export function toStoreError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const failure = classify(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(failure, `${operation}: ${detail}`, { cause: error });
}

function classify(error: unknown): StoreFailure {
  // A bulk write (insertMany) that failed for a driver reason (a network fault, a timeout, a cleared
  // pool) wraps that error in a MongoBulkWriteError without a code: the wrapped error says what happened.
  if (
    error instanceof MongoBulkWriteError &&
    error.errorResponse instanceof Error &&
    error.errorResponse !== error
  ) {
    return classify(error.errorResponse);
  }
  if (error instanceof MongoOperationTimeoutError) return 'timeout';
  if (error instanceof MongoNetworkError) {
    return error.name === 'MongoNetworkTimeoutError' ? 'timeout' : 'unavailable';
  }
  if (error instanceof MongoServerSelectionError) return 'unavailable';
  if (
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoNotConnectedError
  ) {
    return 'closed';
  }
  if (error instanceof MongoServerError) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    if (code === DUPLICATE_KEY || code === 11001) return 'duplicate-key';
    if (code === 112) return 'write-conflict';
    if (code !== undefined && timeoutServerCodes.has(code)) return 'timeout';
    if (code !== undefined && transientServerCodes.has(code)) return 'unavailable';
    if (retriableLabels.some((label) => error.hasErrorLabel(label))) return 'unavailable';
    if (lostItsBackend(error.message)) return 'unavailable';
    return 'rejected';
  }
  if (error instanceof MongoError) {
    if (retriableLabels.some((label) => error.hasErrorLabel(label))) return 'unavailable';
    // MongoPoolClearedError: the pool was reset after a network fault; the next checkout reconnects.
    if (error.name === 'MongoPoolClearedError') return 'unavailable';
    return 'rejected';
  }
  // A socket error the driver passed on unwrapped (seen when the server was killed mid-write: "This
  // socket has been ended by the other party", EPIPE): the connection is the problem, not the command.
  if (error instanceof Error && isSocketFailure(error)) return 'unavailable';
  return 'rejected';
}

/**
 * A MongoDB-compatible server that could not reach its own backing database (FerretDB on PostgreSQL)
 * answers with an internal error that carries the backend's connection failure, e.g. "[collection.go:227
 * postgresql.(*collection).UpdateAll] timeout: read tcp 127.0.0.1:52128->127.0.0.1:15432: i/o timeout".
 * The command was not refused: the server is briefly unavailable, like a primary stepping down.
 */
const backendConnectionFailure =
  /i\/o timeout|connection refused|connection reset by peer|broken pipe|unexpected EOF|conn closed|failed to connect to|server closed the connection unexpectedly|the database system is (?:starting up|shutting down|in recovery mode)|terminating connection due to administrator command/i;

function lostItsBackend(message: string): boolean {
  return backendConnectionFailure.test(message);
}

const socketErrorCodes = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

function isSocketFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && socketErrorCodes.has(code)) return true;
  return /socket has been ended|socket hang up|socket is closed/i.test(error.message);
}
