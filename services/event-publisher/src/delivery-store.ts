import { RecentMap } from '@rp/runtime';
import type { EventPostingSource } from '@rp/store';
import {
  defaultStoreLimits,
  deleteFoundById,
  guardWrites,
  onlyDuplicateKeys,
  postingSourceOf,
  StoreError,
  type StoreLimits,
  toStoreError,
} from '@rp/store';
import {
  type Collection,
  type Db,
  type Filter,
  type IndexDescription,
  MongoBulkWriteError,
  MongoServerError,
  type UpdateFilter,
} from 'mongodb';
import type { EventClassName } from './postings.ts';

/** The publisher's own collections (the delivery log itself is the store's `event_delivery_log`). */
export const publisherCollections = {
  postings: 'event_postings',
  lanes: 'event_lanes',
} as const;

/**
 * A posting that waits in a lane, with its body: what the worker sends, and sends again, byte for byte.
 * `_id` is the event id. Only postings that wait are stored (their lane parked, the bank paused, a
 * replay): one sent at once is kept by its delivery log entry, which names its place on the topic.
 */
export interface StoredPosting {
  readonly eventId: string;
  readonly uetr: string;
  readonly eventClass: EventClassName;
  readonly eventName: string;
  readonly stageVersion?: number;
  /** The banks it waits for. */
  readonly memberIds: readonly string[];
  /** Where it was read from rp.events.v1 (the first time, when the topic holds it twice). */
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The record's timestamp: when the tracker produced it. */
  readonly producedAt: Date;
  readonly body: string;
  /** The record's traceparent header, when it had one. */
  readonly traceparent?: string;
}

interface PostingDocument extends Omit<StoredPosting, 'eventId'> {
  _id: string;
  /** When it was last stored (a replay of a stored posting stores it again): what retention counts from. */
  storedAt?: Date;
}

/** One posting waiting in a lane. */
export interface LaneEntry {
  readonly eventId: string;
  readonly eventName: string;
  /** When it joined the lane: its age decides expiry. */
  readonly queuedAt: Date;
  /** Queued by an operator's replay rather than by the consumer. */
  readonly replay?: boolean;
}

export interface LaneKey {
  readonly laneId: string;
  readonly memberId: string;
  readonly uetr: string;
  readonly topic: string;
  readonly partition: number;
}

/**
 * The postings of one transaction waiting for one bank, oldest first: while the head is being retried,
 * the others wait behind it (`_id` = `<memberId>:<uetr>`). Appends push at the end, the worker holding
 * the lease pops the head; the document is deleted when it runs empty.
 */
export interface Lane extends LaneKey {
  readonly pending: readonly LaneEntry[];
  /** Length of `pending`, kept beside it so that "empty" is an equality filter. */
  readonly count: number;
  /**
   * Failed attempts of the current head that its schedule counts: one made early, because its bank
   * answered again, is not (`failuresAfterAttempt`); the delivery log has every attempt.
   */
  readonly headFailures: number;
  readonly nextAttemptAt: Date;
  /** The bank's Retry-After: not before this, even once the bank answers again. */
  readonly notBefore: Date;
  readonly leaseOwner?: string;
  readonly leaseUntil: Date;
  readonly parkedAt: Date;
  readonly lastError?: string;
}

interface LaneDocument extends Omit<Lane, 'laneId'> {
  _id: string;
}

export interface LaneSchedule {
  readonly nextAttemptAt: Date;
  readonly notBefore: Date;
  /** Failed attempts of the head so far (appending to an existing lane leaves its head as it is). */
  readonly headFailures?: number;
  readonly lastError?: string;
}

/** What becomes of a lane once the worker holding it has handled its first entries (`DeliveryStore.settle`). */
export type LaneSettlement =
  /** Go on with the next entries: the lease is renewed from `now`. */
  | { readonly kind: 'renew'; readonly now: Date; readonly leaseMs: number }
  /** The (new) head just failed: try it again as `schedule` says; the lease is given up. */
  | { readonly kind: 'reschedule'; readonly schedule: LaneSchedule & { readonly headFailures: number } }
  /** Stop here (the bank is paused, the worker stops): the head is left as it is, the lease given up. */
  | { readonly kind: 'release'; readonly now: Date };

const epoch = new Date(0);
/** Writes of one settlement: a lane appended to between two writes is read and written again. */
const settleAttempts = 5;
const postingWriteChunk = 25;

/** Every query that is not by `_id` and the index that serves it on MongoDB. */
export const publisherIndexes: Record<string, IndexDescription[]> = {
  [publisherCollections.postings]: [
    // a lane's postings, read together by the worker (getPostings)
    { key: { uetr: 1, offset: 1 }, name: 'uetr_1_offset_1' },
    // the postings past their retention (purgePostings)
    { key: { storedAt: 1 }, name: 'storedAt_1' },
  ],
  [publisherCollections.lanes]: [
    // the lanes of a partition, when a consumer starts on it; of the topic, at start and every rescan
    { key: { topic: 1, partition: 1 }, name: 'topic_1_partition_1' },
    // the parked lanes of a bank (admin)
    { key: { memberId: 1, parkedAt: 1 }, name: 'memberId_1_parkedAt_1' },
  ],
};

/** Called after each read of a lane's postings: how many came from memory, how many from the store. */
export type PostingReads = (fromMemory: number, fromStore: number) => void;

export interface DeliveryStoreOptions {
  /** How many stored postings are kept in memory, to be read without a round trip (0, the default: none). */
  readonly recentPostings?: number;
  readonly onPostingsRead?: PostingReads;
}

/**
 * The publisher's MongoDB collections. Hot-path operations are by `_id` (one round trip each) or
 * batched inserts; the queries by other fields run when a partition is taken over and for operators.
 *
 * Writes to one lane are sent one after another from this process. MongoDB applies each single-document
 * update atomically anyway, but the MongoDB-compatible server of the local stack does not: two updates
 * of one document in flight at once can lose one of them (an append racing a pop, measured). The
 * consumer, the worker and replays of one process share this store, so serialising here closes that
 * race for everything but two processes touching one lane at once (a hand-over), which the leases
 * make rare and which real MongoDB handles.
 */
export class DeliveryStore {
  readonly #db: Db;
  readonly #postings: Collection<PostingDocument>;
  readonly #lanes: Collection<LaneDocument>;
  readonly #limits: StoreLimits;
  /** The last write queued per lane. */
  readonly #laneWrites = new Map<string, Promise<unknown>>();
  /**
   * Postings this process stored or read lately, as they are stored (a stored posting never changes):
   * the worker delivers most parked postings in the process that parked them, and reading them back is
   * most of what a catch-up costs the store.
   */
  readonly #recent: RecentMap<string, StoredPosting>;

  readonly #onPostingsRead: PostingReads;

  constructor(db: Db, limits: Partial<StoreLimits> = {}, options: DeliveryStoreOptions = {}) {
    this.#db = db;
    this.#limits = { ...defaultStoreLimits, ...limits };
    this.#recent = new RecentMap(options.recentPostings ?? 0);
    this.#onPostingsRead = options.onPostingsRead ?? (() => undefined);
    // Every write under the store's deadline: a write the driver loses on a closed connection fails, in time.
    this.#postings = guardWrites(db.collection<PostingDocument>(publisherCollections.postings), this.#limits);
    this.#lanes = guardWrites(db.collection<LaneDocument>(publisherCollections.lanes), this.#limits);
  }

  /** Keeps postings just inserted, as they were stored. */
  #remember(documents: readonly PostingDocument[]): void {
    for (const document of documents) {
      const posting = fromPostingDocument(document);
      this.#recent.set(posting.eventId, posting);
    }
  }

  /** Runs `write` once every earlier write of this process to the lane has ended. */
  #serialised<T>(laneId: string, write: () => Promise<T>): Promise<T> {
    const previous = this.#laneWrites.get(laneId) ?? Promise.resolve();
    const next = previous.then(write, write);
    const settled = next.catch(() => undefined);
    this.#laneWrites.set(laneId, settled);
    void settled.then(() => {
      if (this.#laneWrites.get(laneId) === settled) this.#laneWrites.delete(laneId);
    });
    return next;
  }

  async ensureIndexes(): Promise<void> {
    try {
      const existing = new Set(
        (await this.#db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name),
      );
      for (const [name, indexes] of Object.entries(publisherIndexes)) {
        if (!existing.has(name)) {
          await this.#db.createCollection(name).catch((error: unknown) => {
            // NamespaceExists: another instance created it first.
            if (!(error instanceof MongoServerError && error.code === 48)) throw error;
          });
        }
        const present = new Set(
          (await this.#db.collection(name).listIndexes().toArray()).map((i) => String(i.name)),
        );
        for (const index of indexes) {
          if (index.name !== undefined && present.has(index.name)) continue;
          await this.#db.collection(name).createIndexes([index], { maxTimeMS: this.#limits.queryMaxTimeMs });
        }
      }
    } catch (error) {
      throw toStoreError(error, 'ensure event publisher indexes');
    }
  }

  /**
   * Stores postings once each: a posting stored before (a redelivered record, a replay) keeps its body
   * and only its `storedAt` moves to `now`, so that retention counts from its last use.
   */
  async savePostings(postings: readonly StoredPosting[], now: Date = new Date()): Promise<void> {
    const chunks: PostingDocument[][] = [];
    for (let start = 0; start < postings.length; start += postingWriteChunk) {
      chunks.push(
        postings.slice(start, start + postingWriteChunk).map((posting) => toPostingDocument(posting, now)),
      );
    }
    await Promise.all(
      chunks.map(async (documents) => {
        let stored: string[];
        try {
          await this.#postings.insertMany(documents, {
            ordered: false,
            maxTimeMS: this.#limits.operationMaxTimeMs,
          });
          this.#remember(documents);
          return;
        } catch (error) {
          if (!onlyDuplicateKeys(error)) throw toStoreError(error, `store ${documents.length} postings`);
          const refused = duplicateIndexes(error, documents.length);
          // Those stored before keep what they were stored with: only the ones inserted now are known.
          const skipped = new Set(refused);
          this.#remember(documents.filter((_, index) => !skipped.has(index)));
          stored = refused.map((index) => documents[index]?._id ?? '');
        }
        try {
          await this.#postings.bulkWrite(
            stored
              .filter((id) => id !== '')
              .map((id) => ({ updateOne: { filter: { _id: id }, update: { $max: { storedAt: now } } } })),
            { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
          );
        } catch (error) {
          throw toStoreError(error, `mark ${stored.length} postings stored again`);
        }
      }),
    );
  }

  /**
   * Deletes the postings last stored before `before`, at most `limit` of them; returns how many. Run with
   * `before` past the retry schedule's maximum age, a posting deleted is named by no lane any more (its
   * entries expired). One stored again between the purge's read and its delete (a replay of it) stays.
   */
  async purgePostings(before: Date, limit: number): Promise<number> {
    try {
      return await deleteFoundById(
        this.#postings,
        { storedAt: { $lt: before } },
        {
          limit,
          chunkSize: postingWriteChunk,
          limits: this.#limits,
          onDeleted: (ids) => {
            for (const id of ids) this.#recent.delete(id);
          },
        },
      );
    } catch (error) {
      throw toStoreError(error, 'purge stored postings');
    }
  }

  async getPosting(eventId: string): Promise<StoredPosting | null> {
    try {
      const document = await this.#postings.findOne(
        { _id: eventId },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : fromPostingDocument(document);
    } catch (error) {
      throw toStoreError(error, `read posting ${eventId}`);
    }
  }

  /**
   * Postings of transaction `uetr` by event id: those this process stored or read lately from memory,
   * the others in one read; the ones not stored are missing from the map. More than one is read by the
   * transaction (its index), not by `_id`: `$in` on `_id` is a full scan on the local MongoDB-compatible
   * server (measured: 0.8 s on 20,000 postings against 6 ms).
   */
  async getPostings(uetr: string, eventIds: readonly string[]): Promise<Map<string, StoredPosting>> {
    const wanted = new Set<string>();
    const found = new Map<string, StoredPosting>();
    for (const eventId of eventIds) {
      const known = this.#recent.get(eventId);
      if (known?.uetr === uetr) found.set(eventId, known);
      else wanted.add(eventId);
    }
    const [only] = wanted;
    if (only === undefined) {
      this.#onPostingsRead(found.size, 0);
      return found;
    }
    const fromMemory = found.size;
    try {
      const documents =
        wanted.size === 1
          ? [await this.#postings.findOne({ _id: only }, { maxTimeMS: this.#limits.operationMaxTimeMs })]
          : await this.#postings.find({ uetr }, { maxTimeMS: this.#limits.operationMaxTimeMs }).toArray();
      for (const document of documents) {
        if (document?.uetr === uetr && wanted.has(document._id)) {
          const posting = fromPostingDocument(document);
          this.#recent.set(posting.eventId, posting);
          found.set(document._id, posting);
        }
      }
      this.#onPostingsRead(fromMemory, found.size - fromMemory);
      return found;
    } catch (error) {
      throw toStoreError(error, `read ${wanted.size} postings of transaction ${uetr}`);
    }
  }

  /**
   * Queues postings at the end of a lane, creating it (due as `schedule` says) when it does not exist.
   * Returns whether it was created. One write.
   */
  append(lane: LaneKey, entries: readonly LaneEntry[], schedule: LaneSchedule, now: Date): Promise<boolean> {
    return this.#serialised(lane.laneId, () => this.#append(lane, entries, schedule, now));
  }

  async #append(
    lane: LaneKey,
    entries: readonly LaneEntry[],
    schedule: LaneSchedule,
    now: Date,
  ): Promise<boolean> {
    try {
      const result = await this.#lanes.updateOne(
        { _id: lane.laneId },
        {
          $push: { pending: { $each: entries.map(toEntryDocument) } },
          $inc: { count: entries.length },
          $setOnInsert: {
            memberId: lane.memberId,
            uetr: lane.uetr,
            topic: lane.topic,
            partition: lane.partition,
            headFailures: schedule.headFailures ?? 0,
            nextAttemptAt: schedule.nextAttemptAt,
            notBefore: schedule.notBefore,
            leaseUntil: epoch,
            parkedAt: now,
            ...(schedule.lastError === undefined ? {} : { lastError: schedule.lastError }),
          },
        },
        { upsert: true, maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return result.upsertedCount === 1;
    } catch (error) {
      throw toStoreError(error, `queue ${entries.length} postings in lane ${lane.laneId}`);
    }
  }

  async getLane(laneId: string): Promise<Lane | null> {
    try {
      const document = await this.#lanes.findOne(
        { _id: laneId },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : fromLaneDocument(document);
    } catch (error) {
      throw toStoreError(error, `read lane ${laneId}`);
    }
  }

  /** Takes the lane for `leaseMs` unless another worker holds it. Null when it is gone or held. */
  claim(laneId: string, owner: string, now: Date, leaseMs: number): Promise<Lane | null> {
    return this.#serialised(laneId, () => this.#claim(laneId, owner, now, leaseMs));
  }

  async #claim(laneId: string, owner: string, now: Date, leaseMs: number): Promise<Lane | null> {
    try {
      const document = await this.#lanes.findOneAndUpdate(
        { _id: laneId, leaseUntil: { $lte: now } },
        { $set: { leaseOwner: owner, leaseUntil: new Date(now.getTime() + leaseMs) } },
        { returnDocument: 'after', maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : fromLaneDocument(document);
    } catch (error) {
      throw toStoreError(error, `claim lane ${laneId}`);
    }
  }

  /**
   * Removes the first `done` entries of a lane this worker holds (delivered, failed for good or expired)
   * and then, in the same write: renews the lease to go on with the rest, reschedules the new head (it
   * just failed) and gives the lease up, or gives the lease up with the head untouched. A lane whose every
   * entry is done, with nothing appended since `lane` was read, is deleted instead. `lane` is the lane as
   * the worker knows it; when appends have changed it since, it is read again (the entries the worker
   * handled stay at its head, since only the lease holder removes entries) and the write repeated.
   *
   * Returns the lane as it is now (`'deleted'` when it was), or null when the lease was lost: the worker
   * stops working the lane and whoever holds it goes on.
   */
  settle(lane: Lane, owner: string, done: number, then: LaneSettlement): Promise<Lane | 'deleted' | null> {
    return this.#serialised(lane.laneId, () => this.#settle(lane, owner, done, then));
  }

  async #settle(
    lane: Lane,
    owner: string,
    done: number,
    then: LaneSettlement,
  ): Promise<Lane | 'deleted' | null> {
    let known = lane;
    try {
      for (let attempt = 1; attempt <= settleAttempts; attempt += 1) {
        if (done === known.count && done === known.pending.length && then.kind !== 'reschedule') {
          const deleted = await this.#lanes.deleteOne(
            { _id: known.laneId, leaseOwner: owner, count: known.count },
            { maxTimeMS: this.#limits.operationMaxTimeMs },
          );
          if (deleted.deletedCount === 1) return 'deleted';
        } else {
          const { filter, update, settled } = settlement(known, owner, done, then);
          const result = await this.#lanes.updateOne(filter, update, {
            maxTimeMS: this.#limits.operationMaxTimeMs,
          });
          if (result.matchedCount === 1) return settled;
        }
        // Appended to since it was read, or no longer ours: see which.
        const current = await this.getLane(known.laneId);
        if (current?.leaseOwner !== owner || !sameHead(current, known, done)) return null;
        known = current;
      }
    } catch (error) {
      throw toStoreError(error, `settle lane ${lane.laneId}`);
    }
    throw new StoreError('inconsistent', `settle lane ${lane.laneId}: it kept changing while it was settled`);
  }

  /** Gives the lease up without touching the head (the bank is paused, or the worker stops). */
  release(laneId: string, owner: string): Promise<void> {
    return this.#serialised(laneId, () => this.#release(laneId, owner));
  }

  async #release(laneId: string, owner: string): Promise<void> {
    try {
      await this.#lanes.updateOne(
        { _id: laneId, leaseOwner: owner },
        { $set: { leaseUntil: epoch } },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
    } catch (error) {
      throw toStoreError(error, `release lane ${laneId}`);
    }
  }

  /**
   * The lanes parked on a partition (what a consumer taking it over must know), or on every partition
   * of the topic; without their postings.
   */
  async lanesOf(topic: string, partition?: number, limit = 0): Promise<Lane[]> {
    try {
      const documents = await this.#lanes
        .find(partition === undefined ? { topic } : { topic, partition }, {
          projection: { pending: 0 },
          maxTimeMS: this.#limits.queryMaxTimeMs,
        })
        .limit(limit)
        .toArray();
      return documents.map((document) => fromLaneDocument({ ...document, pending: [] }));
    } catch (error) {
      throw toStoreError(error, `list lanes of ${topic}${partition === undefined ? '' : `/${partition}`}`);
    }
  }

  /** Parked lanes, oldest first, optionally of one bank (for operators). */
  async listLanes(memberId: string | undefined, limit: number): Promise<Lane[]> {
    try {
      const documents = await this.#lanes
        .find(memberId === undefined ? {} : { memberId }, { maxTimeMS: this.#limits.queryMaxTimeMs })
        .sort({ parkedAt: 1 })
        .limit(limit)
        .toArray();
      return documents.map(fromLaneDocument);
    } catch (error) {
      throw toStoreError(error, 'list lanes');
    }
  }
}

/** The fields a settlement sets, besides the entries it removes. */
type SettledFields = Pick<LaneDocument, 'leaseUntil'> &
  Partial<Pick<LaneDocument, 'headFailures' | 'nextAttemptAt' | 'notBefore' | 'lastError'>>;

/**
 * The write that settles `lane` as the worker knows it: guarded on the lease, and on the count when it
 * removes entries (an append in between makes it match nothing). Also the lane it leaves.
 */
function settlement(
  lane: Lane,
  owner: string,
  done: number,
  then: LaneSettlement,
): { filter: Filter<LaneDocument>; update: UpdateFilter<LaneDocument>; settled: Lane } {
  const removes = done > 0;
  // A new head starts afresh: no failures, due at once.
  const fresh = (now: Date) => (removes ? { headFailures: 0, nextAttemptAt: now, notBefore: now } : {});
  const fields: SettledFields =
    then.kind === 'renew'
      ? { leaseUntil: new Date(then.now.getTime() + then.leaseMs), ...fresh(then.now) }
      : then.kind === 'release'
        ? { leaseUntil: epoch, ...fresh(then.now) }
        : {
            leaseUntil: epoch,
            headFailures: then.schedule.headFailures,
            nextAttemptAt: then.schedule.nextAttemptAt,
            notBefore: then.schedule.notBefore,
            ...(then.schedule.lastError === undefined ? {} : { lastError: then.schedule.lastError }),
          };
  const pending = lane.pending.slice(done);
  const clearsError = removes && fields.lastError === undefined;
  const { lastError: previousError, ...rest } = lane;
  const lastError = fields.lastError ?? (clearsError ? undefined : previousError);
  return {
    filter: removes
      ? { _id: lane.laneId, leaseOwner: owner, count: lane.count }
      : { _id: lane.laneId, leaseOwner: owner },
    update: {
      $set: removes ? { ...fields, pending: pending.map(toEntryDocument), count: pending.length } : fields,
      ...(clearsError ? { $unset: { lastError: '' as const } } : {}),
    },
    settled: {
      ...rest,
      ...fields,
      pending,
      count: removes ? pending.length : lane.count,
      ...(lastError === undefined ? {} : { lastError }),
    },
  };
}

/** Whether `current` still starts with the `done` entries the worker handled of `known`. */
function sameHead(current: Lane, known: Lane, done: number): boolean {
  for (let index = 0; index < done; index += 1) {
    const had = known.pending[index];
    const has = current.pending[index];
    if (!had || !has || had.eventId !== has.eventId || had.queuedAt.getTime() !== has.queuedAt.getTime()) {
      return false;
    }
  }
  return true;
}

/** Where a stored posting was read from, as its delivery log entry keeps it. */
export function sourceOf(posting: StoredPosting): EventPostingSource {
  return postingSourceOf({ ...posting, postingId: posting.eventId });
}

function toPostingDocument(posting: StoredPosting, storedAt: Date): PostingDocument {
  const { eventId, ...rest } = posting;
  return { _id: eventId, ...rest, memberIds: [...posting.memberIds], storedAt };
}

/** The positions in an unordered bulk insert of the documents refused as already there (all but bulk errors). */
function duplicateIndexes(error: unknown, count: number): number[] {
  if (!(error instanceof MongoBulkWriteError)) return Array.from({ length: count }, (_, index) => index);
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  return writeErrors.map((writeError) => writeError.index);
}

function fromPostingDocument(document: PostingDocument): StoredPosting {
  const { _id, storedAt: _storedAt, ...rest } = document;
  return { eventId: _id, ...rest };
}

function toEntryDocument(entry: LaneEntry): LaneEntry {
  return {
    eventId: entry.eventId,
    eventName: entry.eventName,
    queuedAt: entry.queuedAt,
    ...(entry.replay ? { replay: true } : {}),
  };
}

function fromLaneDocument(document: LaneDocument): Lane {
  const { _id, ...rest } = document;
  return { laneId: _id, ...rest, pending: document.pending ?? [], count: document.count ?? 0 };
}
