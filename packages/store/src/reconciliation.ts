import { type Collection, type Filter, MongoBulkWriteError } from 'mongodb';
import { DUPLICATE_KEY, StoreError, toStoreError } from './errors.ts';
import { besideId } from './filters.ts';
import { chunk, type StoreLimits } from './limits.ts';

/** A transaction left unresolved when a reconciliation window closed (spec section 7). */
export interface ReconciliationItem {
  windowId: string;
  uetr: string;
  /** Row of the section 7 error table, 1-10. */
  row: number;
  code: string;
  text: string;
  /** The transaction's state when the window closed. */
  stateAtClose: string | null;
  createdAt: Date;
}

export interface RecordedReconciliationItem extends ReconciliationItem {
  status: 'open' | 'resolved';
  resolvedAt?: Date;
  resolution?: string;
}

export interface ReconciliationPage {
  items: RecordedReconciliationItem[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

interface ReconciliationDocument {
  _id: string;
  windowId: string;
  uetr: string;
  row: number;
  code: string;
  text: string;
  stateAtClose: string | null;
  status: 'open' | 'resolved';
  createdAt: Date;
  resolvedAt?: Date;
  resolution?: string;
}

const maxListLimit = 1_000;

export function reconciliationItemId(windowId: string, uetr: string): string {
  return `${windowId}:${uetr}`;
}

/**
 * Reconciliation items, `_id` = `${windowId}:${uetr}`: closing a window twice records each item once,
 * and an item already resolved stays resolved.
 */
export class ReconciliationRepository {
  readonly #collection: Collection<ReconciliationDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<ReconciliationDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  /** Records the items of a window close, in unordered batches; items already there are left as they are. */
  async record(items: readonly ReconciliationItem[]): Promise<{ recorded: number; alreadyRecorded: number }> {
    for (const item of items) validate(item);
    let recorded = 0;
    let alreadyRecorded = 0;
    for (const batch of chunk(items, this.#limits.bulkBatchSize)) {
      const documents = batch.map(
        (item): ReconciliationDocument => ({
          _id: reconciliationItemId(item.windowId, item.uetr),
          windowId: item.windowId,
          uetr: item.uetr,
          row: item.row,
          code: item.code,
          text: item.text,
          stateAtClose: item.stateAtClose,
          status: 'open',
          createdAt: item.createdAt,
        }),
      );
      try {
        const result = await this.#collection.insertMany(documents, {
          ordered: false,
          maxTimeMS: this.#limits.operationMaxTimeMs,
        });
        recorded += result.insertedCount;
      } catch (error) {
        const duplicates = duplicateWriteErrors(error);
        if (duplicates === undefined) throw toStoreError(error, 'record reconciliation items');
        recorded += duplicates.inserted;
        alreadyRecorded += duplicates.duplicates;
      }
    }
    return { recorded, alreadyRecorded };
  }

  async get(windowId: string, uetr: string): Promise<RecordedReconciliationItem | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: reconciliationItemId(windowId, uetr) },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : toItem(document);
    } catch (error) {
      throw toStoreError(error, `read reconciliation item ${windowId}:${uetr}`);
    }
  }

  /** A window's items in UETR order, a page at a time; `after` is the previous page's `next`. */
  async list(query: { windowId: string; limit: number; after?: string }): Promise<ReconciliationPage> {
    const limit = Math.min(Math.max(1, query.limit), maxListLimit);
    const filter: Filter<ReconciliationDocument> =
      query.after === undefined
        ? { windowId: query.windowId }
        : { windowId: query.windowId, uetr: { $gt: query.after } };
    try {
      const documents = await this.#collection
        .find(filter, { maxTimeMS: this.#limits.queryMaxTimeMs })
        .sort({ uetr: 1 })
        .limit(limit + 1)
        .toArray();
      const items = documents.slice(0, limit).map(toItem);
      const last = items[items.length - 1];
      return documents.length > limit && last !== undefined ? { items, next: last.uetr } : { items };
    } catch (error) {
      throw toStoreError(error, `list reconciliation items of window ${query.windowId}`);
    }
  }

  /** Items not yet resolved, in every window or in one. */
  async countOpen(windowId?: string): Promise<number> {
    const filter: Filter<ReconciliationDocument> =
      windowId === undefined ? { status: 'open' } : { status: 'open', windowId };
    try {
      return await this.#collection.countDocuments(filter, { maxTimeMS: this.#limits.queryMaxTimeMs });
    } catch (error) {
      throw toStoreError(error, 'count open reconciliation items');
    }
  }

  /** Marks an item resolved by an operator. False when there is no such open item. */
  async resolve(windowId: string, uetr: string, resolution: { at: Date; note: string }): Promise<boolean> {
    try {
      const result = await this.#collection.updateOne(
        { _id: reconciliationItemId(windowId, uetr), status: besideId('open' as const) },
        { $set: { status: 'resolved', resolvedAt: resolution.at, resolution: resolution.note } },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return result.modifiedCount === 1;
    } catch (error) {
      throw toStoreError(error, `resolve reconciliation item ${windowId}:${uetr}`);
    }
  }
}

function validate(item: ReconciliationItem): void {
  if (!item.windowId || !item.uetr || item.uetr.includes(':')) {
    throw new StoreError('invalid-input', `reconciliation item needs a window id and a UETR without ':'`);
  }
  if (!Number.isInteger(item.row) || item.row < 1 || item.row > 10) {
    throw new StoreError(
      'invalid-input',
      `reconciliation item ${item.uetr}: row must be 1-10, got ${item.row}`,
    );
  }
}

/** When every write error of an unordered insert is a duplicate key: how many went in and how many were there. */
function duplicateWriteErrors(error: unknown): { inserted: number; duplicates: number } | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length === 0 || !writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY)) {
    return undefined;
  }
  return { inserted: error.insertedCount, duplicates: writeErrors.length };
}

function toItem(document: ReconciliationDocument): RecordedReconciliationItem {
  return {
    windowId: document.windowId,
    uetr: document.uetr,
    row: document.row,
    code: document.code,
    text: document.text,
    stateAtClose: document.stateAtClose ?? null,
    createdAt: document.createdAt,
    status: document.status,
    ...(document.resolvedAt === undefined ? {} : { resolvedAt: document.resolvedAt }),
    ...(document.resolution === undefined ? {} : { resolution: document.resolution }),
  };
}

export type { ReconciliationDocument };
