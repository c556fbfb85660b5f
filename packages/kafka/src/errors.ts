import { AppError, type ErrorCode } from '@rp/runtime';

/**
 * Every failure that leaves this package is a `KafkaError`: an `AppError` whose `code` is the project-wide
 * one (so the HTTP layer maps a broker outage to 503 without knowing Kafka) and whose `reason` says what
 * exactly went wrong here. `retriable` tells the caller whether the same request can succeed later.
 */
export const kafkaErrorReasons = {
  /** No broker reachable, connection lost, request timed out, or the client gave up retrying. */
  KAFKA_UNAVAILABLE: { code: 'BROKER_UNAVAILABLE', retriable: true },
  /** The records were not acknowledged within the delivery timeout; they may still be written. */
  KAFKA_SEND_TIMEOUT: { code: 'BROKER_UNAVAILABLE', retriable: true },
  /**
   * The broker refused the producer's numbering (after a restart, say) and a new producer took over: the
   * refused records were not written (a duplicate's were, before); sent again, they are.
   */
  KAFKA_PRODUCER_RESET: { code: 'BROKER_UNAVAILABLE', retriable: true },
  /** The producer is shutting down and accepts no more records. */
  KAFKA_PRODUCER_CLOSED: { code: 'SHUTTING_DOWN', retriable: true },
  /** The broker refused the request for good (record too large, invalid topic, not authorised). */
  KAFKA_REQUEST_REJECTED: { code: 'INTERNAL', retriable: false },
  /** A topic is missing or has a shape this package cannot work with (too few partitions). */
  KAFKA_TOPIC_MISCONFIGURED: { code: 'CONFIG_INVALID', retriable: false },
  /** The schema registry did not answer, or answered 5xx or 429. */
  SCHEMA_REGISTRY_UNAVAILABLE: { code: 'BROKER_UNAVAILABLE', retriable: true },
  /** The registry refused a schema (invalid, or incompatible with the subject's earlier versions). */
  SCHEMA_REGISTRY_REJECTED: { code: 'CONFIG_INVALID', retriable: false },
  /** No schema with that id, or no subject with that name. */
  SCHEMA_NOT_FOUND: { code: 'INTERNAL', retriable: false },
  /** The schema JSON is not a valid Avro schema for the configured type options. */
  AVRO_INVALID_SCHEMA: { code: 'CONFIG_INVALID', retriable: false },
  /** A value does not match the schema it is encoded with. */
  AVRO_INVALID_VALUE: { code: 'INTERNAL', retriable: false },
  /** Bytes that do not start with the Confluent wire-format header (magic byte 0 and a schema id). */
  AVRO_NOT_WIRE_FORMAT: { code: 'INTERNAL', retriable: false },
  /** Bytes with a valid header whose Avro body cannot be read with the schema it names. */
  AVRO_DECODE_FAILED: { code: 'INTERNAL', retriable: false },
  /** A record on a retry topic whose retry headers are missing or malformed. */
  RETRY_HEADERS_INVALID: { code: 'INTERNAL', retriable: false },
} as const satisfies Record<string, { code: ErrorCode; retriable: boolean }>;

export type KafkaErrorReason = keyof typeof kafkaErrorReasons;

export class KafkaError extends AppError {
  readonly reason: KafkaErrorReason;

  constructor(reason: KafkaErrorReason, message: string, options: { cause?: unknown } = {}) {
    const { code, retriable } = kafkaErrorReasons[reason];
    super(code, message, { retriable, ...(options.cause === undefined ? {} : { cause: options.cause }) });
    this.reason = reason;
  }
}

export function isKafkaError(error: unknown): error is KafkaError {
  return error instanceof KafkaError;
}

/**
 * Broker answers that kafkajs marks final but that name a passing state of the cluster, not the request:
 * a broker still starting, a group rebalancing, a controller or broker epoch moved on, and the idempotent
 * producer's numbering lost with a restart (a new producer sends the same records again). Taken as final,
 * each would dead-letter a good record, or answer a bank 500, for a broker restart.
 */
const transientBrokerAnswers = new Set([
  'BROKER_NOT_AVAILABLE',
  'REBALANCE_IN_PROGRESS',
  'STALE_CONTROLLER_EPOCH',
  'STALE_BROKER_EPOCH',
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'DUPLICATE_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
  'OPERATION_NOT_ATTEMPTED',
]);

/**
 * kafkajs errors that mean "not now": the cluster or the connection is the problem, not the request.
 * kafkajs marks most of them `retriable`; `KafkaJSNumberOfRetriesExceeded` is marked final by kafkajs
 * because kafkajs itself stopped retrying, but for our caller it is still a transient outage.
 */
const transientKafkaJsErrors = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSBrokerNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSLockTimeout',
  'KafkaJSGroupCoordinatorNotFound',
]);

/**
 * Whether the error, or any error it wraps, is an outage. kafkajs nests its retriers: an inner one that
 * runs out of retries on a refused connection throws KafkaJSNumberOfRetriesExceeded, and the outer one
 * wraps that in a KafkaJSNonRetriableError whose `cause` is the connection error. The outer name alone
 * would make a broker restart look like a request refused for good (and dead-letter the record).
 */
function isOutage(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const candidate = current as { name?: unknown; type?: unknown; retriable?: unknown; cause?: unknown };
    if (typeof candidate.name === 'string' && transientKafkaJsErrors.has(candidate.name)) return true;
    if (typeof candidate.type === 'string' && transientBrokerAnswers.has(candidate.type)) return true;
    if (candidate.retriable === true) return true;
    if (candidate.cause === current) break;
    current = candidate.cause;
  }
  return false;
}

/** Maps anything kafkajs throws to a `KafkaError`, keeping the original as `cause`. */
export function fromKafkaJsError(error: unknown, doing: string): KafkaError {
  if (error instanceof KafkaError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const reason: KafkaErrorReason = isOutage(error) ? 'KAFKA_UNAVAILABLE' : 'KAFKA_REQUEST_REJECTED';
  return new KafkaError(reason, `${doing}: ${message}`, { cause: error });
}

/** The code and message to record for a handler's error (retry and dead-letter headers, logs). */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof KafkaError) return { code: error.reason, message: error.message };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' && code.length > 0 ? code : error.name, message: error.message };
  }
  return { code: 'NON_ERROR_THROWN', message: String(error) };
}

/**
 * The consumer's default for whether a handler's failure is worth retrying: errors say so themselves with
 * `retriable: false` (AppError does); anything that does not say is retried. Handlers are idempotent under
 * at-least-once delivery, so a retry of an unknown failure repeats nothing that matters, and the retry
 * tiers end in the dead-letter topic anyway.
 */
export function isRetriableFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  return (error as { retriable?: unknown }).retriable !== false;
}
