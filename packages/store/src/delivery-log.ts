import { type Collection, type Document, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { type BoundedPush, pushBounded } from './bounded-list.ts';
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
 * Delivery log of event postings, `_id` = event id, listed per transaction. A posting's first attempts
 * are usually recorded many at a time (`recordFirstAttempts`: one insert command for a consumer batch,
 * or for the postings of a parked transaction that waited without an attempt); the attempts of a parked
 * transaction's postings that were tried before together (`recordAttempts`: one upsert each, side by
 * side); any other attempt is one upsert.
 */
export class DeliveryLogRepository {
  readonly #collection: Collection<DeliveryLogDocument>;
  readonly #limits: StoreLimits;
  readonly #attemptsKept: number;

  constructor(collection: Collection<DeliveryLogDocument>, limits: StoreLimits, attemptsKept: number) {
    this.#collection = collection;
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
   * Records postings' first attempts together: their entries are created by unordered inserts of
   * `bulkInsertSize` documents (one command for a consumer batch's postings, where one upsert each cost
   * the local server a read and a write apiece). An entry that exists already (a redelivered record, a
   * posting logged twice in `records`) is appended to by its own upsert, as `recordAttempt` does, in the
   * order of `records`. Resolves once every record is written; a failure leaves the records that were
   * written in place. Recording records again after a failure (a write-behind tries its whole batch
   * again) adds nothing twice: an attempt the entry holds already (same time) is not appended.
   */
  async recordFirstAttempts(records: readonly EventDeliveryRecord[]): Promise<void> {
    for (const record of records) checkPosting(record.posting);
    const firsts: EventDeliveryRecord[] = [];
    const later: EventDeliveryRecord[] = [];
    const seen = new Set<string>();
    for (const record of records) {
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
   * Creates the index the purge finds its entries by (`updatedAt_1`), unless it is there. Not one of the
   * store's own indexes: every write to the log would pay for it (on the local stand-in twice, with the
   * GIN twin its stack gives each index's leading key), so only a deployment that purges makes it.
   */
  async ensurePurgeIndex(): Promise<void> {
    await ensureIndexOnce(this.#collection, purgeIndex, this.#limits, 'the delivery log purge index');
  }

  /**
   * Deletes at most `limit` entries whose delivery ended (delivered, failed or expired) and that were
   * last changed before `before`; returns how many. Entries still pending stay whatever their age. They
   * are found by the index `ensurePurgeIndex` makes on MongoDB; the local MongoDB-compatible server
   * scans the collection, stopping at `limit` (a round that finds fewer than `limit` reads every entry).
   * They are deleted by `_id` alone, 25 a command (on the local server a delete filtered by more than
   * `_id` scans), so an entry changed between the read and its delete (an operator's replay of that very
   * posting at that moment) goes too.
   */
  async purge(before: Date, limit: number): Promise<number> {
    try {
      return await deleteFoundById(
        this.#collection,
        { updatedAt: { $lt: before }, outcome: { $in: [...finalOutcomes] } },
        { limit, chunkSize: purgeChunk, limits: this.#limits },
      );
    } catch (error) {
      throw toStoreError(error, `purge delivery log entries last changed before ${before.toISOString()}`);
    }
  }

  async get(eventId: string): Promise<EventDeliveryLog | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: eventId },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : toLog(document, this.#attemptsKept);
    } catch (error) {
      throw toStoreError(error, `read delivery log of event ${eventId}`);
    }
  }

  /** A transaction's postings, oldest first. */
  async listByUetr(uetr: string, limit = 100): Promise<EventDeliveryLog[]> {
    try {
      const documents = await this.#collection
        .find({ uetr }, { maxTimeMS: this.#limits.queryMaxTimeMs })
        .sort({ createdAt: 1, _id: 1 })
        .limit(Math.min(Math.max(1, limit), maxListLimit))
        .toArray();
      return documents.map((document) => toLog(document, this.#attemptsKept));
    } catch (error) {
      throw toStoreError(error, `list delivery logs of transaction ${uetr}`);
    }
  }

  /**
   * A bank's entries that a replay sends again (those that name their source), oldest posting first: one
   * transaction's (by the UETR index), or those produced in [from, to) (by the bank and production time).
   */
  async listForReplay(
    memberId: string,
    selection: ReplaySelection,
    limit: number,
  ): Promise<EventDeliveryLog[]> {
    const bounded = Math.max(1, limit);
    try {
      const documents =
        'uetr' in selection
          ? (
              await this.#collection
                .find(
                  { uetr: selection.uetr, memberId, source: { $exists: true } },
                  { maxTimeMS: this.#limits.queryMaxTimeMs },
                )
                .toArray()
            )
              .sort((a, b) => (a.source?.offset ?? 0) - (b.source?.offset ?? 0))
              .slice(0, bounded)
          : await this.#collection
              .find(
                { memberId, 'source.producedAt': { $gte: selection.from, $lt: selection.to } },
                { maxTimeMS: this.#limits.queryMaxTimeMs },
              )
              .sort({ 'source.producedAt': 1, _id: 1 })
              .limit(bounded)
              .toArray();
      return documents.map((document) => toLog(document, this.#attemptsKept));
    } catch (error) {
      throw toStoreError(error, `list the postings of bank ${memberId} to replay`);
    }
  }
}

function checkPosting(posting: EventPosting): void {
  if (!posting.eventId || !posting.uetr) {
    throw new StoreError('invalid-input', 'posting needs an event id and a UETR');
  }
}

/** The fields of a posting's source, and only those, from anything that has them (a stored posting). */
export function postingSourceOf(source: EventPostingSource): EventPostingSource {
  return {
    postingId: source.postingId,
    eventClass: source.eventClass,
    ...(source.stageVersion === undefined ? {} : { stageVersion: source.stageVersion }),
    topic: source.topic,
    partition: source.partition,
    offset: source.offset,
    producedAt: source.producedAt,
  };
}

function attemptKey(attempt: EventDeliveryAttempt): string {
  return `${new Date(attempt.at).getTime()}|${attempt.httpStatus}|${attempt.latencyMs}`;
}

function attemptEntry(attempt: EventDeliveryAttempt): EventDeliveryAttempt {
  return {
    at: attempt.at,
    httpStatus: attempt.httpStatus,
    latencyMs: attempt.latencyMs,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
  };
}

function toLog(document: DeliveryLogDocument, attemptsKept: number): EventDeliveryLog {
  return {
    eventId: document._id,
    uetr: document.uetr,
    memberId: document.memberId,
    eventType: document.eventType,
    ...(document.source === undefined ? {} : { source: document.source }),
    outcome: document.outcome,
    attempts: (document.attempts ?? []).slice(-attemptsKept),
    attemptCount: document.attemptCount ?? 0,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    ...(document.completedAt === undefined ? {} : { completedAt: document.completedAt }),
  };
}

export type { DeliveryLogDocument };
