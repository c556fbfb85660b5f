import { pipelineConfig } from '@rp/pipeline';
import { adminAuthConfig, defineConfig, duration, int, oneOf, port, str } from '@rp/runtime';
import { windowConfig } from './windows.ts';

/** Every variable the scheduler reads; `loadConfig` refuses to start while any of them is invalid. */
export const schedulerConfigSpec = defineConfig({
  PORT: port({ default: 8083, doc: 'HTTP port of the admin routes, health and metrics' }),
  ...pipelineConfig('debit queue, snapshots, reconciliation items'),
  ...windowConfig,
  ...adminAuthConfig,
  CREDITS_GATE: oneOf(['credits', 'operator'], {
    default: 'credits',
    doc: 'What opens the debit window besides the admin trigger and CREDITS_FINALISED_AT: credits, once every credit of the cycle (received since the last reconciliation close) is final; operator, nothing else',
  }),
  CLOCK_START: str({
    optional: true,
    doc: 'Demo clock: the instant (ISO 8601) the scheduler starts at; unset: the system clock',
  }),
  CLOCK_FACTOR: int({
    default: 1,
    min: 1,
    doc: 'Demo clock: how many times faster than real time it runs from CLOCK_START (a day in minutes)',
  }),
  WINDOW_TICK: duration({ default: 1_000, doc: 'How often the windows are looked at (real time)' }),
  RELEASE_BATCH_SIZE: int({
    default: 100,
    min: 1,
    max: 1_000,
    doc: 'Debits released per batch when the debit window opens (bounded memory)',
  }),
  RELEASE_DELAY: duration({
    default: 250,
    doc: 'While the debit window is open, how long a debit just queued waits for others before the queue is drained, so that they go out in one drain (0: a drain for each)',
  }),
  QUEUE_DEPTH_INTERVAL: duration({
    default: 30_000,
    doc: 'How often the debits queued and those awaiting their status report are counted for rp_scheduler_queue_depth (the first count at start; 0: only GET /admin/queue counts them)',
  }),
  SCHEDULER_KEY_CONCURRENCY: int({
    default: 32,
    min: 1,
    doc: 'Transactions of one partition handled at the same time (each is a few MongoDB round trips)',
  }),
  SCHEDULER_ACCEPTED_HOLD: duration({
    default: 3_000,
    doc: "How long an accepted on-us debit is held in memory for the acknowledgement of its status report, which then queues it in the same write; also the accepted consumer's commit interval, whose commits stop at the oldest debit still held (0: each written at once)",
  }),
  INTAKE_RETENTION: duration({
    default: 7 * 86_400_000,
    doc: 'How long the debit queue keeps released and withdrawn debits (tombstones) and lone halves (must cover the accepted and outcome topics retention)',
  }),
  RECONCILIATION_SETTLE: duration({
    default: 1_000,
    doc: "How long the reconciliation close waits (real time) for the tracker's snapshot writes of changes made before it; keep above TRACKER_SNAPSHOT_INTERVAL",
  }),
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest wait for the broker to acknowledge produced records',
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 15_000,
    doc: 'How long the work in progress may take to finish at shutdown',
  }),
});
