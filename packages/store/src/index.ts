export {
  type AuditEntry,
  type AuditOutcome,
  AuditRepository,
  type RecordedAuditEntry,
} from './audit.ts';
export { storeCommandMetrics, watchCommands } from './command-metrics.ts';
export { guardWrites } from './deadline.ts';
export { type DebitOrder, debitOrderKey } from './debit-order.ts';
export {
  type DebitEntry,
  type DebitIntake,
  type DebitQueueItem,
  DebitQueueRepository,
  type DebitStatus,
  type DrainOptions,
  isReadyToQueue,
  type QueuedDebit,
  type ReleasedDebit,
} from './debit-queue.ts';
export { type DeliveryBatchDocument, entriesOfBatch } from './delivery-batches.ts';
export {
  type DeliveryLogPurgeRound,
  DeliveryLogRepository,
  type EventDeliveryAttempt,
  type EventDeliveryLog,
  type EventDeliveryOutcome,
  type EventDeliveryRecord,
  type EventPosting,
  type EventPostingSource,
  postingSourceOf,
  type ReplaySelection,
} from './delivery-log.ts';
export {
  isDuplicateKey,
  onlyDuplicateKeys,
  StoreError,
  type StoreFailure,
  storeFailures,
  toStoreError,
} from './errors.ts';
export { GroupCommit, type GroupCommitOptions, type Settled } from './group-commit.ts';
export {
  type ClaimedTransaction,
  type ClaimOutcome,
  type IdempotencyClaim,
  type IdempotencyRecord,
  IdempotencyRepository,
  transactionKey,
} from './idempotency.ts';
export { type CollectionName, collectionNames, storeIndexes } from './indexes.ts';
export { chunk, defaultStoreLimits, type StoreLimits } from './limits.ts';
export {
  type ReconciliationItem,
  type ReconciliationPage,
  ReconciliationRepository,
  type RecordedReconciliationItem,
  reconciliationItemId,
} from './reconciliation.ts';
export { type ReconciliationClose, ReconciliationCloseRepository } from './reconciliation-closes.ts';
export { type DeleteFoundOptions, deleteFoundById, ensureIndexOnce } from './retention.ts';
export { openServiceStore, type StoreSettings, serviceStoreOptions } from './service-store.ts';
export {
  connectStore,
  redactedHosts,
  type Store,
  type StoreCommandEvent,
  type StoreLogger,
  type StoreOptions,
  storeClientOptions,
} from './store.ts';
export type { TransactionMessage, TransactionStateChange } from './transaction-changes.ts';
export {
  type ApplyChangesResult,
  type TransactionDeliveryAttempt,
  type TransactionHistoryEntry,
  TransactionRepository,
  type TransactionRepositoryStats,
  type TransactionSearch,
  type TransactionSnapshot,
  type TransactionSummary,
} from './transactions.ts';
export {
  type DebitWindowOverride,
  type WindowOverride,
  WindowOverrideRepository,
} from './window-overrides.ts';
