import type { IndexDescription } from 'mongodb';

/** Collection names, in one place. */
export const collectionNames = {
  transactions: 'transactions',
  idempotencyKeys: 'idempotency_keys',
  debitQueue: 'debit_queue',
  reconciliationItems: 'reconciliation_items',
  eventDeliveryLog: 'event_delivery_log',
  eventDeliveryBatches: 'event_delivery_batches',
  operatorAudit: 'operator_audit',
  windowOverrides: 'window_overrides',
  reconciliationCloses: 'reconciliation_closes',
} as const;

export type CollectionName = (typeof collectionNames)[keyof typeof collectionNames];

/**
 * Every query that is not by `_id` and the index that serves it. Names are explicit so creating them
 * again is a no-op, and so an operator can match a slow query to its index.
 */
export const storeIndexes: Record<CollectionName, IndexDescription[]> = {
  [collectionNames.transactions]: [
    // search by end-to-end identification
    { key: { endToEndIdentification: 1 }, name: 'endToEndIdentification_1' },
    // search by state (and creation time), newest first
    { key: { state: 1, createdAt: -1, _id: -1 }, name: 'state_1_createdAt_-1__id_-1' },
    // search by creation time only, newest first
    { key: { createdAt: -1, _id: -1 }, name: 'createdAt_-1__id_-1' },
  ],
  [collectionNames.idempotencyKeys]: [],
  [collectionNames.debitQueue]: [
    // drain and depth of one window (only queued debits have a window)
    { key: { windowDate: 1, orderKey: 1 }, name: 'windowDate_1_orderKey_1' },
    // the whole queue's depth, the debits awaiting their other half, the purge of tombstones
    { key: { status: 1, updatedAt: 1 }, name: 'status_1_updatedAt_1' },
  ],
  [collectionNames.reconciliationItems]: [
    // list a window's items by UETR
    { key: { windowId: 1, uetr: 1 }, name: 'windowId_1_uetr_1' },
    // countOpen, in all windows or one
    { key: { status: 1, windowId: 1 }, name: 'status_1_windowId_1' },
  ],
  [collectionNames.eventDeliveryLog]: [
    // listByUetr, oldest first
    { key: { uetr: 1, createdAt: 1, _id: 1 }, name: 'uetr_1_createdAt_1__id_1' },
    // listForReplay of a time range, oldest posting first
    { key: { memberId: 1, 'source.producedAt': 1, _id: 1 }, name: 'memberId_1_source.producedAt_1__id_1' },
  ],
  [collectionNames.eventDeliveryBatches]: [
    // get: the batches that hold a posting (multikey)
    { key: { eventIds: 1 }, name: 'eventIds_1' },
    // listByUetr and listForReplay of a transaction: the batches that hold its postings (multikey)
    { key: { uetrs: 1 }, name: 'uetrs_1' },
    // listForReplay of a time range: a bank's batches by their earliest posting
    { key: { memberId: 1, producedFrom: 1, _id: 1 }, name: 'memberId_1_producedFrom_1__id_1' },
  ],
  [collectionNames.operatorAudit]: [
    // list, newest first (all actions, or one)
    { key: { at: -1, _id: -1 }, name: 'at_-1__id_-1' },
    { key: { action: 1, at: -1, _id: -1 }, name: 'action_1_at_-1__id_-1' },
  ],
  // read by `_id` only (newest business days first)
  [collectionNames.windowOverrides]: [],
  // read by `_id` only (newest business days first)
  [collectionNames.reconciliationCloses]: [],
};
