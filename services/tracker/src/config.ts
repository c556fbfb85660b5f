import { pipelineConfig } from '@rp/pipeline';
import { adminAuthConfig, bool, defineConfig, duration, int, port } from '@rp/runtime';

/** Every variable the tracker reads; `loadConfig` refuses to start while any of them is invalid. */
export const trackerConfigSpec = defineConfig({
  PORT: port({ default: 8085, doc: 'HTTP port of the admin API, health and metrics' }),
  ...pipelineConfig('transaction snapshots'),
  ...adminAuthConfig,
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest wait for the broker to acknowledge postings before the batch is retried',
  }),
  TRACKER_CACHE_SIZE: int({
    default: 100_000,
    min: 1,
    doc: 'Transactions kept in memory to sequence without a snapshot read (under 0.7 kB of heap each), and as many snapshot positions and delivery outcomes remembered: the bound of what the tracker holds a transaction',
  }),
  TRACKER_PAYLOAD_CACHE_SIZE: int({
    default: 10_000,
    min: 1,
    doc: "Payloads of the transactions that changed lately kept for the changes emitted without one (a decoded DirectDebit, about 4.6 kB of heap each); past it, the transaction's snapshot is read",
  }),
  TRACKER_PARTITIONS_CONCURRENTLY: int({
    default: 4,
    min: 1,
    doc: 'State topic partitions handled at the same time',
  }),
  TRACKER_SNAPSHOT_INTERVAL: duration({
    default: 500,
    doc: "Longest wait of applied changes for their snapshot write (written before each commit of the consumed topics' offsets); 0 writes every batch",
  }),
  TRACKER_RECORD_EVENT_DELIVERIES: bool({
    default: false,
    doc: "Also record event posting deliveries in snapshots (they are in the event-publisher's delivery log)",
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 10_000,
    doc: 'How long batches in progress may take to finish at shutdown',
  }),
});
