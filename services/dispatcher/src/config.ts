import { streamConfig } from '@rp/pipeline';
import { defineConfig, duration, int, list, port, secret, str } from '@rp/runtime';
import { windowConfig } from '@rp/scheduler/windows';

/** Every variable the dispatcher reads; `loadConfig` refuses to start while any of them is invalid. */
export const dispatcherConfigSpec = defineConfig({
  PORT: port({ default: 8084, doc: 'HTTP port of health and metrics' }),
  ...streamConfig(),
  PARTICIPANTS: str({
    doc: 'Participating banks (base URLs): path of a JSON file, or the JSON array itself',
  }),
  BANK_SIGNING_SECRETS: secret({
    optional: true,
    doc: 'JSON {memberId or "*": secret or [newest, older]}: HMAC keys of webhook-signature; unset: unsigned',
  }),
  ...windowConfig,
  CLOCK_START: str({
    optional: true,
    doc: 'Demo clock (same as the scheduler): the instant the clock starts at; unset: the system clock',
  }),
  CLOCK_FACTOR: int({ default: 1, min: 1, doc: 'Demo clock: how many times faster than real time it runs' }),
  BANK_REQUEST_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest one call on a bank may take before it counts as no response',
  }),
  BANK_CONNECT_TIMEOUT: duration({ default: 3_000, doc: 'Longest opening a connection to a bank may take' }),
  BANK_CONCURRENCY: int({
    default: 16,
    min: 1,
    doc: 'Calls on one bank at the same time (its connection pool size)',
  }),
  BANK_QUEUE_WAIT: duration({
    default: 2_000,
    doc: 'Longest a call waits for a free slot on its bank before the message goes to the retry tiers',
  }),
  BANK_COOLDOWN: duration({
    default: 5_000,
    doc: 'How long a bank that stopped answering is left alone before one probe',
  }),
  BANK_FAILURE_THRESHOLD: int({
    default: 5,
    min: 1,
    doc: 'Retryable refusals in a row (5xx, 408, 425, 429 without Retry-After) that pause a bank like a timeout',
  }),
  BANK_KEEPALIVE: duration({
    default: 4_000,
    doc: 'Idle time a pooled keep-alive connection is kept (below the banks’ own)',
  }),
  RETRY_BACKOFF_BASE: duration({
    default: 1_000,
    doc: 'Exponential backoff with full jitter: upper bound of the first retry delay',
  }),
  RETRY_BACKOFF_MAX: duration({
    default: 300_000,
    doc: 'Exponential backoff: the largest upper bound of a retry delay',
  }),
  RETRY_AFTER_MAX: duration({
    default: 3_600_000,
    doc: 'Longest Retry-After honoured (a longer one is cut to it)',
  }),
  RETRY_TIERS: list({
    default: ['1s', '5s', '15s', '30s', '60s'],
    doc: 'Delays of the retry tiers, the granularity at which waiting messages are looked at again',
  }),
  DISPATCHER_KEY_CONCURRENCY: int({
    default: 64,
    min: 1,
    doc: 'Transactions of one partition delivered at the same time',
  }),
  DISPATCHER_PARTITIONS_CONCURRENTLY: int({ default: 4, min: 1, doc: 'Partitions handled at the same time' }),
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest wait for the broker to acknowledge produced records',
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 20_000,
    doc: 'How long the calls in progress may take to finish at shutdown',
  }),
});
