import { type Collection, type Document, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { type BoundedPush, pushBounded } from './bounded-list.ts';
import {
  attemptEntry,
  attemptKey,
  type BatchedAttempt,
  type BatchedAttemptOf,
  batchSpanMs,
  type DeliveryBatchDocument,
  entriesOf,
  foldAll,
  insertBatches,
  isBatchable,
  postingSourceOf,
  toBatches,
} from './delivery-batches.ts';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';
import { chunk, mapBounded, type StoreLimits } from './limits.ts';
import { deleteFoundById, ensureIndexOnce } from './retention.ts';

/**
 * Where a posting was read from, kept with its entry so that a replay reads the posting again from its
 * topic: the log holds what was sent and when, the topic the bytes.
 */
export interface EventPostingSource {
  /** The event id the bank saw (webhook-id); the entry's own id also names the bank. */
  postingId: string;
  eventClass: string;
  /** TRANSACTION_STATE postings: the transaction's sequence number. */
  stageVersion?: number;
  topic: string;
  partition: number;
  offset: number;
  /** When the posting was produced (its record's timestamp). */
  producedAt: Date;
}

/** The event posting a log entry is about. */
export interface EventPosting {
  eventId: string;
  uetr: string;
  /** The bank the posting goes to. */
  memberId: string;
  eventType: string;
  /** Kept when the entry is created; entries without one cannot be replayed. */
  source?: EventPostingSource;
}

/** One try at delivering a posting to a bank's `/events` endpoint. */
export interface EventDeliveryAttempt {
  at: Date;
  /** HTTP status of the answer; null when there was none. */
  httpStatus: number | null;
  latencyMs: number;
  error?: string;
}

/** `pending` while retries go on; the others are final. */
export type EventDeliveryOutcome = 'pending' | 'delivered' | 'failed' | 'expired';

/** One attempt of one posting at one bank, and the outcome it led to. */
export interface EventDeliveryRecord {
  posting: EventPosting;
  attempt: EventDeliveryAttempt;
  outcome: EventDeliveryOutcome;
}

export interface EventDeliveryLog extends EventPosting {
  outcome: EventDeliveryOutcome;
  /** The newest attempts (`deliveryAttemptsKept` of them). */
  attempts: EventDeliveryAttempt[];
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt?: Date;
}

/** Which of a bank's entries a replay takes: one transaction's, or those produced in [from, to). */
export type ReplaySelection = { readonly uetr: string } | { readonly from: Date; readonly to: Date };

interface DeliveryLogDocument {
  _id: string;
  uetr: string;
  memberId: string;
  eventType: string;
  source?: EventPostingSource;
  outcome: EventDeliveryOutcome;
  attempts: EventDeliveryAttempt[];
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt?: Date;
}

const maxListLimit = 500;
/** Deletes a purge sends in one command (the local server's bulk writes are kept small). */
const purgeChunk = 25;
/** The index a purge finds its entries by. */
const purgeIndex = { key: { updatedAt: 1 }, name: 'updatedAt_1' } as const;
/** The outcomes after which an entry changes no more, but by a replay. */
const finalOutcomes: readonly EventDeliveryOutcome[] = ['delivered', 'failed', 'expired'];

/**
 * Delivery log of event postings, one posting to one bank known by its event id, listed per transaction.
 * Two collections hold it:
 * - `event_delivery_batches`: first attempts that were final at once (delivered, or refused for good),
 *   a few dozen postings to one bank a document (`recordFirstAttempts`, one insert command for a consumer
 *   batch's postings): nearly every posting, at a document per few dozen;
 * - `event_delivery_log`, `_id` = event id: a posting's own entry, for every other attempt (a retry, an
 *   attempt not final, a replay's), upserted one at a time (`recordAttempt`), or side by side for a
 *   parked transaction's postings (`recordAttempts`), and for an outcome without an attempt.
 * Every read folds a posting's entry and its batched attempts into one `EventDeliveryLog`.
 */
export class DeliveryLogRepository {
  readonly #collection: Collection<DeliveryLogDocument>;
  readonly #batches: Collection<DeliveryBatchDocument>;
  readonly #limits: StoreLimits;
  readonly #attemptsKept: number;

  constructor(
    collections: {
      readonly entries: Collection<DeliveryLogDocument>;
      readonly batches: Collection<DeliveryBatchDocument>;
    },
    limits: StoreLimits,
    attemptsKept: number,
  ) {
    this.#collection = collections.entries;
    this.#batches = collections.batches;
    this.#limits = limits;
    this.#attemptsKept = attemptsKept;
  }

  /** Adds an attempt and the outcome it led to, in one write; creates the entry on the first attempt. */
  async recordAttempt(
    posting: EventPosting,
    attempt: EventDeliveryAttempt,
    outcome: EventDeliveryOutcome,
  ): Promise<void> {
    checkPosting(posting);
    await pushBounded(
      this.#collection as unknown as Collection<Document>,
      this.#push({ posting, attempt, outcome }),
    );
  }

  /**
   * Adds many attempts, each as `recordAttempt` does, with up to `writeConcurrency` writes in flight (the
   * attempts a worker made on a transaction's parked postings, one after another). One posting's
   * attempts are written in the order of `records`. Not one bulk command: the local MongoDB-compatible
   * server stops a multi-statement update at a full list's refused upsert and reports it at index 0
   * whichever statement it was, so the writes after it, and which one was refused, would be unknown.
   * Resolves once every record is written; a failure leaves the records that were written in place.
   */
  async recordAttempts(records: readonly EventDeliveryRecord[]): Promise<void> {
    for (const record of records) checkPosting(record.posting);
    const byPosting = new Map<string, EventDeliveryRecord[]>();
    for (const record of records) {
      const known = byPosting.get(record.posting.eventId);
      if (known) known.push(record);
      else byPosting.set(record.posting.eventId, [record]);
    }
    const collection = this.#collection as unknown as Collection<Document>;
    await mapBounded([...byPosting.values()], this.#limits.writeConcurrency, async (ofPosting) => {
      for (const record of ofPosting) await pushBounded(collection, this.#push(record));
    });
  }

  #push({ posting, attempt, outcome }: EventDeliveryRecord): BoundedPush {
    return {
      id: posting.eventId,
      arrayField: 'attempts',
      countField: 'attemptCount',
      entry: attemptEntry(attempt),
      keep: this.#attemptsKept,
      set: { outcome, ...(outcome === 'pending' ? {} : { completedAt: attempt.at }) },
      max: { updatedAt: attempt.at },
      setOnInsert: {
        uetr: posting.uetr,
        memberId: posting.memberId,
        eventType: posting.eventType,
        ...(posting.source === undefined ? {} : { source: postingSourceOf(posting.source) }),
        createdAt: attempt.at,
      },
      maxTimeMs: this.#limits.operationMaxTimeMs,
      operation: `record delivery attempt of event ${posting.eventId}`,
    };
  }

  /**
   * Records postings' first attempts together. Those final at once go to batch documents (a few dozen
   * postings to one bank each; one insert command of up to `bulkInsertSize` of them), whether or not the
   * posting was logged before: a posting's reads fold them in. Any other becomes its posting's entry, by
   * unordered inserts of `bulkInsertSize` (an entry that exists already is appended to by its own upsert,
   * in the order of `records`). Resolves once every record is written; a failure leaves the records that
   * were written in place. Recording records again after a failure (a write-behind tries its whole batch
   * again) adds nothing twice: reads count an attempt written twice (same time, answer and latency) once,
   * and an entry's upsert skips an attempt it holds already.
   */
  async recordFirstAttempts(records: readonly EventDeliveryRecord[]): Promise<void> {
    for (const record of records) checkPosting(record.posting);
    for (const group of chunk(toBatches(records.filter(isBatchable)), this.#limits.bulkInsertSize)) {
      await insertBatches(this.#batches, group, this.#limits);
    }
    const firsts: EventDeliveryRecord[] = [];
    const later: EventDeliveryRecord[] = [];
    const seen = new Set<string>();
    for (const record of records) {
      if (isBatchable(record)) continue;
      if (seen.has(record.posting.eventId)) later.push(record);
      else {
        seen.add(record.posting.eventId);
        firsts.push(record);
      }
    }
    for (const group of chunk(firsts, this.#limits.bulkInsertSize)) {
      const duplicates = await this.#insertFirsts(group);
      later.unshift(...duplicates);
    }
    // One entry's appends stay in order; there are few (redeliveries, retried writes), so one at a time.
    for (const record of await this.#notRecorded(later)) {
      await this.recordAttempt(record.posting, record.attempt, record.outcome);
    }
  }

  /**
   * The records whose attempt their entry does not hold yet: an attempt is known by its time, answer and
   * latency (one posting's attempts to one bank follow one another). One read by `_id` per entry, up to
   * `writeConcurrency` at once: they are few (`$in` on `_id` would be a full scan on the local server).
   * An attempt trimmed from a long list since (more than `2 * deliveryAttemptsKept` later attempts) would
   * be appended again.
   */
  async #notRecorded(records: readonly EventDeliveryRecord[]): Promise<EventDeliveryRecord[]> {
    if (records.length === 0) return [];
    const ids = [...new Set(records.map((record) => record.posting.eventId))];
    const held = new Map<string, Set<string>>();
    await mapBounded(ids, this.#limits.writeConcurrency, async (id) => {
      try {
        const entry = await this.#collection.findOne(
          { _id: id },
          { projection: { attempts: 1 }, maxTimeMS: this.#limits.operationMaxTimeMs },
        );
        held.set(id, new Set((entry?.attempts ?? []).map(attemptKey)));
      } catch (error) {
        throw toStoreError(error, `read the delivery log entry of event ${id}`);
      }
    });
    return records.filter(({ posting, attempt }) => {
      const known = held.get(posting.eventId) ?? new Set<string>();
      held.set(posting.eventId, known);
      const key = attemptKey(attempt);
      if (known.has(key)) return false;
      known.add(key);
      return true;
    });
  }

  /** Inserts the group's entries; returns the records whose entry was there already. */
  async #insertFirsts(group: readonly EventDeliveryRecord[]): Promise<EventDeliveryRecord[]> {
    const operation = `record the first delivery attempts of ${group.length} postings`;
    try {
      await this.#collection.insertMany(
        group.map(({ posting, attempt, outcome }) => ({
          _id: posting.eventId,
          uetr: posting.uetr,
          memberId: posting.memberId,
          eventType: posting.eventType,
          ...(posting.source === undefined ? {} : { source: postingSourceOf(posting.source) }),
          outcome,
          attempts: [attemptEntry(attempt)],
          attemptCount: 1,
          createdAt: attempt.at,
          updatedAt: attempt.at,
          ...(outcome === 'pending' ? {} : { completedAt: attempt.at }),
        })),
        { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return [];
    } catch (error) {
      if (isDuplicateKey(error) && group.length === 1) return [...group];
      if (!(error instanceof MongoBulkWriteError) || error.writeConcernError !== undefined) {
        throw toStoreError(error, operation);
      }
      const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
      if (writeErrors.length === 0) throw toStoreError(error, operation);
      const duplicates: EventDeliveryRecord[] = [];
      for (const writeError of writeErrors) {
        const record = group[writeError.index];
        const serverError = new MongoServerError({ message: writeError.errmsg ?? '', code: writeError.code });
        if (record === undefined || !isDuplicateKey(serverError)) throw toStoreError(serverError, operation);
        duplicates.push(record);
      }
      return duplicates;
    }
  }

  /** Sets a final outcome without an attempt, e.g. `expired` when the reconciliation window closes. */
  async recordOutcome(
    eventId: string,
    outcome: Exclude<EventDeliveryOutcome, 'pending'>,
    at: Date,
  ): Promise<boolean> {
    try {
      const result = await this.#collection.updateOne(
        { _id: eventId },
        { $set: { outcome, completedAt: at }, $max: { updatedAt: at } },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return result.matchedCount === 1;
    } catch (error) {
      throw toStoreError(error, `record outcome of event ${eventId}`);
    }
  }

  /**
   * Creates the index the purge finds its entries and batches by (`updatedAt_1`), unless it is there. Not
   * one of the store's own indexes: every write to the log would pay for it (on the local stand-in twice,
   * with the GIN twin its stack gives each index's leading key), so only a deployment that purges makes it.
   */
  async ensurePurgeIndex(): Promise<void> {
    await ensureIndexOnce(this.#collection, purgeIndex, this.#limits, 'the delivery log purge index');
    await ensureIndexOnce(this.#batches, purgeIndex, this.#limits, 'the delivery batches purge index');
  }

  /**
   * One round of the purge: deletes at most `limit` documents, entries whose delivery ended (delivered,
   * failed or expired) and batches, last changed before `before`. Says how many postings' records went
   * (a batch counts its entries) and whether the round took its limit (another may find more). Entries
   * still pending stay whatever their age; a batch holds only final attempts. They are found by the index
   * `ensurePurgeIndex` makes on MongoDB; the local MongoDB-compatible server scans each collection,
   * stopping at the limit (a round that finds fewer reads every document). They are deleted by `_id`
   * under the same filter, 25 a command, so an entry changed between the read and its delete (an
   * operator's replay of that very posting at that moment) stays.
   */
  async purge(before: Date, limit: number): Promise<DeliveryLogPurgeRound> {
    try {
      const entries = await deleteFoundById(
        this.#collection,
        { updatedAt: { $lt: before }, outcome: { $in: [...finalOutcomes] } },
        { limit, chunkSize: purgeChunk, limits: this.#limits },
      );
      if (entries >= limit) return { deleted: entries, full: true };
      let batches = 0;
      const batched = await deleteFoundById(
        this.#batches,
        { updatedAt: { $lt: before } },
        {
          limit: limit - entries,
          chunkSize: purgeChunk,
          limits: this.#limits,
          weigh: { projection: { eventIds: 1 }, of: (batch) => batch.eventIds.length },
          onDeleted: (ids) => {
            batches += ids.length;
          },
        },
      );
      return { deleted: entries + batched, full: entries + batches >= limit };
    } catch (error) {
      throw toStoreError(error, `purge delivery log entries last changed before ${before.toISOString()}`);
    }
  }

  async get(eventId: string): Promise<EventDeliveryLog | null> {
    try {
      const [document, batches] = await Promise.all([
        this.#collection.findOne({ _id: eventId }, { maxTimeMS: this.#limits.operationMaxTimeMs }),
        this.#batches.find({ eventIds: eventId }, { maxTimeMS: this.#limits.queryMaxTimeMs }).toArray(),
      ]);
      const [log] = foldAll(
        document === null ? [] : [toSingle(document)],
        entriesOf(batches, (entry) => entry.eventId === eventId),
        this.#attemptsKept,
      );
      return log ?? null;
    } catch (error) {
      throw toStoreError(error, `read delivery log of event ${eventId}`);
    }
  }

  /** A transaction's postings, oldest first. */
  async listByUetr(uetr: string, limit = 100): Promise<EventDeliveryLog[]> {
    const bounded = Math.min(Math.max(1, limit), maxListLimit);
    try {
      const [documents, batches] = await Promise.all([
        this.#collection
          .find({ uetr }, { maxTimeMS: this.#limits.queryMaxTimeMs })
          .sort({ createdAt: 1, _id: 1 })
          .limit(bounded)
          .toArray(),
        this.#batches.find({ uetrs: uetr }, { maxTimeMS: this.#limits.queryMaxTimeMs }).toArray(),
      ]);
      return foldAll(
        documents.map(toSingle),
        entriesOf(batches, (entry) => entry.uetr === uetr),
        this.#attemptsKept,
      )
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compare(a.eventId, b.eventId))
        .slice(0, bounded);
    } catch (error) {
      throw toStoreError(error, `list delivery logs of transaction ${uetr}`);
    }
  }

  /**
   * A bank's postings that a replay sends again (those that name their source), oldest posting first: one
   * transaction's (by the UETR indexes), or those produced in [from, to) (by the bank and production
   * time; a batch starts at most `batchSpanMs` before any of its postings).
   */
  async listForReplay(
    memberId: string,
    selection: ReplaySelection,
    limit: number,
  ): Promise<EventDeliveryLog[]> {
    const bounded = Math.max(1, limit);
    const options = { maxTimeMS: this.#limits.queryMaxTimeMs };
    try {
      if ('uetr' in selection) {
        const { uetr } = selection;
        const [documents, batches] = await Promise.all([
          this.#collection.find({ uetr, memberId, source: { $exists: true } }, options).toArray(),
          this.#batches.find({ uetrs: uetr, memberId }, options).toArray(),
        ]);
        return foldAll(
          documents.map(toSingle),
          entriesOf(batches, (entry) => entry.uetr === uetr && entry.source !== undefined),
          this.#attemptsKept,
        )
          .sort((a, b) => (a.source?.offset ?? 0) - (b.source?.offset ?? 0))
          .slice(0, bounded);
      }
      const { from, to } = selection;
      const inRange = (source: EventPostingSource | undefined) =>
        source !== undefined && source.producedAt >= from && source.producedAt < to;
      const [documents, batched] = await Promise.all([
        this.#collection
          .find({ memberId, 'source.producedAt': { $gte: from, $lt: to } }, options)
          .sort({ 'source.producedAt': 1, _id: 1 })
          .limit(bounded)
          .toArray(),
        this.#batchedInRange(memberId, selection, bounded, (entry) => inRange(entry.source)),
      ]);
      return foldAll(documents.map(toSingle), batched, this.#attemptsKept)
        .filter((log) => inRange(log.source))
        .sort(
          (a, b) =>
            (a.source as EventPostingSource).producedAt.getTime() -
              (b.source as EventPostingSource).producedAt.getTime() || compare(a.eventId, b.eventId),
        )
        .slice(0, bounded);
    } catch (error) {
      throw toStoreError(error, `list the postings of bank ${memberId} to replay`);
    }
  }

  /**
   * The batched attempts of a bank's postings produced in [from, to), at least the `limit` earliest: the
   * batches are read in the order of their earliest posting, until the next one starts after the
   * `limit`-th earliest posting found.
   */
  async #batchedInRange(
    memberId: string,
    { from, to }: { readonly from: Date; readonly to: Date },
    limit: number,
    keep: (entry: BatchedAttempt) => boolean,
  ): Promise<BatchedAttemptOf[]> {
    const cursor = this.#batches
      .find(
        { memberId, producedFrom: { $gt: new Date(from.getTime() - batchSpanMs), $lt: to } },
        { maxTimeMS: this.#limits.queryMaxTimeMs },
      )
      .sort({ producedFrom: 1, _id: 1 });
    const found: BatchedAttemptOf[] = [];
    let cut: number | undefined;
    try {
      for await (const batch of cursor) {
        if (cut !== undefined && batch.producedFrom.getTime() > cut) break;
        const entries = entriesOf([batch], keep);
        if (entries.length === 0) continue;
        found.push(...entries);
        if (found.length >= limit) {
          const times = found.map((entry) => (entry.source as EventPostingSource).producedAt.getTime());
          cut = times.sort((a, b) => a - b)[limit - 1];
        }
      }
    } finally {
      await cursor.close();
    }
    return found;
  }
}

/** One round of `DeliveryLogRepository.purge`. */
export interface DeliveryLogPurgeRound {
  /** Postings' records deleted: an entry counts one, a batch its entries. */
  readonly deleted: number;
  /** Whether the round deleted its limit of documents: another may find more. */
  readonly full: boolean;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkPosting(posting: EventPosting): void {
  if (!posting.eventId || !posting.uetr) {
    throw new StoreError('invalid-input', 'posting needs an event id and a UETR');
  }
}

function toSingle(document: DeliveryLogDocument): EventDeliveryLog {
  return {
    eventId: document._id,
    uetr: document.uetr,
    memberId: document.memberId,
    eventType: document.eventType,
    ...(document.source === undefined ? {} : { source: document.source }),
    outcome: document.outcome,
    attempts: document.attempts ?? [],
    attemptCount: document.attemptCount ?? 0,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    ...(document.completedAt === undefined ? {} : { completedAt: document.completedAt }),
  };
}

export type { DeliveryLogDocument };
export { postingSourceOf };
