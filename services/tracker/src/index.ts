export { createPlainCodecs, plainCodec } from '@rp/pipeline';
export {
  createAdminRoutes,
  createTrackerHandlers,
  deliveryAttemptOf,
  type TrackerHandlers,
} from './app.ts';
export { trackerConfigSpec } from './config.ts';
export { type TrackerMetrics, trackerMetrics } from './metrics.ts';
export {
  actionDateOf,
  businessDate,
  directionOf,
  esmStatePosting,
  eventIdOfPostingMessageId,
  matchingKeyOf,
  paymentRecordOf,
  postingMessageId,
  postingsOf,
  type SequencedChange,
  transactionStatePosting,
} from './postings.ts';
export {
  type Decision,
  decide,
  fromSnapshot,
  hasApplied,
  knowsMessage,
  newTransaction,
  PartitionPositions,
  type TrackedTransaction,
  TransactionCache,
  withMessage,
} from './sequencer.ts';
export {
  consumedTopics,
  createTrackerService,
  producedTopics,
  serviceName,
  stateRetryPolicy,
  type TrackerDeps,
  type TrackerOptions,
  type TrackerService,
} from './service.ts';
export { startTracker } from './start.ts';
