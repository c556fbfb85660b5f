import type { IHeaders } from 'kafkajs';
import { KafkaError } from './errors.ts';
import type { DeadLetterReason } from './retry-policy.ts';

/**
 * Headers this package puts on records it moves to a retry tier or the dead-letter topic. Times are
 * ISO-8601 UTC. The record's own headers travel along untouched; names under these prefixes are reserved.
 */
export const retryHeader = {
  group: 'rp-consumer-group',
  originTopic: 'rp-origin-topic',
  originPartition: 'rp-origin-partition',
  originOffset: 'rp-origin-offset',
  originTimestamp: 'rp-origin-timestamp',
  /** Handler failures so far; 0 for a record parked behind an earlier failure of its key. */
  attempt: 'rp-retry-attempt',
  /** `failed` (its handler failed) or `parked` (waiting behind its key's failed record). */
  reason: 'rp-retry-reason',
  dueAt: 'rp-retry-due-at',
  firstFailureAt: 'rp-first-failure-at',
  errorCode: 'rp-error-code',
  errorMessage: 'rp-error-message',
  deadLetterReason: 'rp-dlq-reason',
  deadLetterAt: 'rp-dlq-at',
} as const;

const reservedPrefixes = [
  'rp-consumer-',
  'rp-origin-',
  'rp-retry-',
  'rp-first-failure-',
  'rp-error-',
  'rp-dlq-',
];

/** Error messages are cut to this length so a huge message cannot bloat every retry record. */
const maxErrorMessageLength = 1_000;

export interface RecordOrigin {
  topic: string;
  partition: number;
  offset: string;
  /** When the record was written to its source topic. */
  timestamp: string;
}

export interface RetryState {
  origin: RecordOrigin;
  attempt: number;
  reason: 'failed' | 'parked';
  dueAt: number;
  firstFailureAt?: string;
  errorCode?: string;
  errorMessage?: string;
}

export function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (!headers) return result;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last === undefined) continue;
    result[name] = typeof last === 'string' ? last : last.toString('utf8');
  }
  return result;
}

/** The record's own headers, without the ones this package manages. */
export function userHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!reservedPrefixes.some((prefix) => name.startsWith(prefix))) result[name] = value;
  }
  return result;
}

function stateHeaders(group: string, state: Omit<RetryState, 'dueAt'>): Record<string, string> {
  const headers: Record<string, string> = {
    [retryHeader.group]: group,
    [retryHeader.originTopic]: state.origin.topic,
    [retryHeader.originPartition]: String(state.origin.partition),
    [retryHeader.originOffset]: state.origin.offset,
    [retryHeader.originTimestamp]: state.origin.timestamp,
    [retryHeader.attempt]: String(state.attempt),
    [retryHeader.reason]: state.reason,
  };
  if (state.firstFailureAt) headers[retryHeader.firstFailureAt] = state.firstFailureAt;
  if (state.errorCode) headers[retryHeader.errorCode] = state.errorCode;
  if (state.errorMessage)
    headers[retryHeader.errorMessage] = state.errorMessage.slice(0, maxErrorMessageLength);
  return headers;
}

export function retryHeaders(
  group: string,
  own: Readonly<Record<string, string>>,
  state: RetryState,
): Record<string, string> {
  return {
    ...userHeaders(own),
    ...stateHeaders(group, state),
    [retryHeader.dueAt]: new Date(state.dueAt).toISOString(),
  };
}

export function deadLetterHeaders(
  group: string,
  own: Readonly<Record<string, string>>,
  state: Omit<RetryState, 'dueAt'>,
  reason: DeadLetterReason,
  at: Date,
): Record<string, string> {
  return {
    ...userHeaders(own),
    ...stateHeaders(group, state),
    [retryHeader.deadLetterReason]: reason,
    [retryHeader.deadLetterAt]: at.toISOString(),
  };
}

/** Reads the retry state of a record on a retry tier; throws RETRY_HEADERS_INVALID if it has none. */
export function parseRetryState(headers: Readonly<Record<string, string>>): RetryState {
  const text = (name: string): string => {
    const value = headers[name];
    if (value === undefined || value.length === 0) {
      throw new KafkaError('RETRY_HEADERS_INVALID', `retry record without the ${name} header`);
    }
    return value;
  };
  const whole = (name: string): number => {
    const value = Number(text(name));
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new KafkaError('RETRY_HEADERS_INVALID', `retry header ${name} is not a whole number`);
    }
    return value;
  };
  const instant = (name: string): number => {
    const value = Date.parse(text(name));
    if (Number.isNaN(value))
      throw new KafkaError('RETRY_HEADERS_INVALID', `retry header ${name} is not a time`);
    return value;
  };
  const offset = text(retryHeader.originOffset);
  if (!/^\d+$/.test(offset)) {
    throw new KafkaError(
      'RETRY_HEADERS_INVALID',
      `retry header ${retryHeader.originOffset} is not an offset`,
    );
  }
  const reason = text(retryHeader.reason);
  if (reason !== 'failed' && reason !== 'parked') {
    throw new KafkaError('RETRY_HEADERS_INVALID', `retry header ${retryHeader.reason} is ${reason}`);
  }
  const state: RetryState = {
    origin: {
      topic: text(retryHeader.originTopic),
      partition: whole(retryHeader.originPartition),
      offset,
      timestamp: new Date(instant(retryHeader.originTimestamp)).toISOString(),
    },
    attempt: whole(retryHeader.attempt),
    reason,
    dueAt: instant(retryHeader.dueAt),
  };
  const firstFailureAt = headers[retryHeader.firstFailureAt];
  if (firstFailureAt) state.firstFailureAt = firstFailureAt;
  const errorCode = headers[retryHeader.errorCode];
  if (errorCode) state.errorCode = errorCode;
  const errorMessage = headers[retryHeader.errorMessage];
  if (errorMessage) state.errorMessage = errorMessage;
  return state;
}
