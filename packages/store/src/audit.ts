import type { Collection } from 'mongodb';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** One operator action that changed what the pipeline does (a redrive, a replay, a window trigger). */
export interface AuditEntry {
  /**
   * Names the action's effect when it must happen once (e.g. `dead-letter-redrive:<topic>:<id>`): a second
   * entry with the same id is refused. Omitted: a fresh id.
   */
  id?: string;
  /** Who: the authenticated operator, or the name the caller gave. */
  actor: string;
  /** What kind, e.g. `dead-letter.redrive`. */
  action: string;
  /** What it acted on, e.g. a dead-letter topic and record id. */
  target: string;
  /** Anything else worth keeping (counts, reasons); plain values only. */
  detail?: Readonly<Record<string, string | number | boolean>>;
  at: Date;
}

export interface RecordedAuditEntry extends Required<Omit<AuditEntry, 'detail'>> {
  detail: Readonly<Record<string, string | number | boolean>>;
}

export type AuditOutcome = { outcome: 'recorded' } | { outcome: 'duplicate'; entry: RecordedAuditEntry };

export interface AuditDocument {
  _id: string;
  actor: string;
  action: string;
  target: string;
  detail: Record<string, string | number | boolean>;
  at: Date;
}

/** The operator audit trail: append-only, one insert per action, newest first when listed. */
export class AuditRepository {
  readonly #collection: Collection<AuditDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<AuditDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  async record(entry: AuditEntry): Promise<AuditOutcome> {
    if (!entry.actor || !entry.action || !entry.target) {
      throw new StoreError('invalid-input', 'an audit entry needs an actor, an action and a target');
    }
    const id = entry.id ?? `${entry.action}:${entry.at.toISOString()}:${crypto.randomUUID()}`;
    const document: AuditDocument = {
      _id: id,
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      detail: { ...entry.detail },
      at: entry.at,
    };
    try {
      await this.#collection.insertOne(document, { maxTimeMS: this.#limits.operationMaxTimeMs });
      return { outcome: 'recorded' };
    } catch (error) {
      if (!isDuplicateKey(error)) throw toStoreError(error, `record audit entry ${id}`);
    }
    const existing = await this.get(id);
    if (existing === null) {
      throw new StoreError('inconsistent', `audit entry ${id} reported as duplicate but not found`);
    }
    return { outcome: 'duplicate', entry: existing };
  }

  /** Takes back an entry whose action then failed, so that it can be tried again. */
  async withdraw(id: string): Promise<void> {
    try {
      await this.#collection.deleteOne({ _id: id }, { maxTimeMS: this.#limits.operationMaxTimeMs });
    } catch (error) {
      throw toStoreError(error, `withdraw audit entry ${id}`);
    }
  }

  async get(id: string): Promise<RecordedAuditEntry | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: id },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : toEntry(document);
    } catch (error) {
      throw toStoreError(error, `read audit entry ${id}`);
    }
  }

  /** Newest first; one action's entries when `action` is given. */
  async list(query: { action?: string; limit: number }): Promise<RecordedAuditEntry[]> {
    try {
      const documents = await this.#collection
        .find(query.action === undefined ? {} : { action: query.action }, {
          maxTimeMS: this.#limits.queryMaxTimeMs,
        })
        .sort({ at: -1, _id: -1 })
        .limit(Math.min(Math.max(1, query.limit), 500))
        .toArray();
      return documents.map(toEntry);
    } catch (error) {
      throw toStoreError(error, 'list audit entries');
    }
  }
}

function toEntry(document: AuditDocument): RecordedAuditEntry {
  return {
    id: document._id,
    actor: document.actor,
    action: document.action,
    target: document.target,
    detail: document.detail ?? {},
    at: document.at,
  };
}
