import { defaultStoreLimits, isDuplicateKey, type StoreLimits, toStoreError } from '@rp/store';
import {
  type Collection,
  type Db,
  type IndexDescription,
  MongoBulkWriteError,
  MongoServerError,
} from 'mongodb';
import type { EventClassName } from './postings.ts';

/** The publisher's own collections (the delivery log itself is the store's `event_delivery_log`). */
export const publisherCollections = {
  postings: 'event_postings',
  lanes: 'event_lanes',
} as const;

/**
 * A posting with at least one subscribed bank, as it was signed and sent: what replays and retries send
 * again, byte for byte. `_id` is the event id.
 */
export interface StoredPosting {
  readonly eventId: string;
  readonly uetr: string;
  readonly eventClass: EventClassName;
  readonly eventName: string;
  readonly stageVersion?: number;
  /** The banks it went to. */
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
  /** Failed attempts of the current head. */
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

const epoch = new Date(0);
const postingWriteChunk = 25;

/** Every query that is not by `_id` and the index that serves it on MongoDB. */
export const publisherIndexes: Record<string, IndexDescription[]> = {
  [publisherCollections.postings]: [
    // replay of one transaction, in topic order
    { key: { uetr: 1, offset: 1 }, name: 'uetr_1_offset_1' },
    // replay of a time range to one bank
    { key: { memberIds: 1, producedAt: 1 }, name: 'memberIds_1_producedAt_1' },
  ],
  [publisherCollections.lanes]: [
    // the lanes of a partition, when a consumer starts on it; of the topic, at start and every rescan
    { key: { topic: 1, partition: 1 }, name: 'topic_1_partition_1' },
    // the parked lanes of a bank (admin)
    { key: { memberId: 1, parkedAt: 1 }, name: 'memberId_1_parkedAt_1' },
  ],
};

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

  constructor(db: Db, limits: Partial<StoreLimits> = {}) {
    this.#db = db;
    this.#limits = { ...defaultStoreLimits, ...limits };
    this.#postings = db.collection<PostingDocument>(publisherCollections.postings);
    this.#lanes = db.collection<LaneDocument>(publisherCollections.lanes);
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

  /** Stores postings once each: a posting stored before (a redelivered record) is left as it is. */
  async savePostings(postings: readonly StoredPosting[]): Promise<void> {
    const chunks: PostingDocument[][] = [];
    for (let start = 0; start < postings.length; start += postingWriteChunk) {
      chunks.push(postings.slice(start, start + postingWriteChunk).map(toPostingDocument));
    }
    await Promise.all(
      chunks.map(async (documents) => {
        try {
          await this.#postings.insertMany(documents, {
            ordered: false,
            maxTimeMS: this.#limits.operationMaxTimeMs,
          });
        } catch (error) {
          if (onlyDuplicates(error)) return;
          throw toStoreError(error, `store ${documents.length} postings`);
        }
      }),
    );
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

  /** A transaction's postings for a bank, in topic order. */
  async postingsOfTransaction(memberId: string, uetr: string, limit: number): Promise<StoredPosting[]> {
    try {
      const documents = await this.#postings
        .find({ uetr, memberIds: memberId }, { maxTimeMS: this.#limits.queryMaxTimeMs })
        .sort({ offset: 1 })
        .limit(limit)
        .toArray();
      return documents.map(fromPostingDocument);
    } catch (error) {
      throw toStoreError(error, `list postings of transaction ${uetr}`);
    }
  }

  /** A bank's postings produced in [from, to), oldest first. */
  async postingsInRange(memberId: string, from: Date, to: Date, limit: number): Promise<StoredPosting[]> {
    try {
      const documents = await this.#postings
        .find(
          { memberIds: memberId, producedAt: { $gte: from, $lt: to } },
          { maxTimeMS: this.#limits.queryMaxTimeMs },
        )
        .sort({ producedAt: 1, partition: 1, offset: 1 })
        .limit(limit)
        .toArray();
      return documents.map(fromPostingDocument);
    } catch (error) {
      throw toStoreError(error, `list postings of bank ${memberId}`);
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
   * Removes the head (delivered, failed for good or expired) and renews the lease. Null when the lease
   * was lost or the head is not `headEventId` any more: the caller stops working the lane.
   */
  completeHead(
    laneId: string,
    owner: string,
    headEventId: string,
    now: Date,
    leaseMs: number,
  ): Promise<Lane | null> {
    return this.#serialised(laneId, () => this.#completeHead(laneId, owner, headEventId, now, leaseMs));
  }

  async #completeHead(
    laneId: string,
    owner: string,
    headEventId: string,
    now: Date,
    leaseMs: number,
  ): Promise<Lane | null> {
    try {
      const document = await this.#lanes.findOneAndUpdate(
        { _id: laneId, leaseOwner: owner, 'pending.0.eventId': headEventId },
        {
          $pop: { pending: -1 },
          $inc: { count: -1 },
          $set: {
            headFailures: 0,
            leaseUntil: new Date(now.getTime() + leaseMs),
            nextAttemptAt: now,
            notBefore: now,
          },
          $unset: { lastError: '' },
        },
        { returnDocument: 'after', maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null ? null : fromLaneDocument(document);
    } catch (error) {
      throw toStoreError(error, `complete the head of lane ${laneId}`);
    }
  }

  /** The head failed again: when to try it next; the lease is given up. */
  reschedule(
    laneId: string,
    owner: string,
    schedule: LaneSchedule & { headFailures: number },
  ): Promise<boolean> {
    return this.#serialised(laneId, () => this.#reschedule(laneId, owner, schedule));
  }

  async #reschedule(
    laneId: string,
    owner: string,
    schedule: LaneSchedule & { headFailures: number },
  ): Promise<boolean> {
    try {
      const result = await this.#lanes.updateOne(
        { _id: laneId, leaseOwner: owner },
        {
          $set: {
            headFailures: schedule.headFailures,
            nextAttemptAt: schedule.nextAttemptAt,
            notBefore: schedule.notBefore,
            leaseUntil: epoch,
            ...(schedule.lastError === undefined ? {} : { lastError: schedule.lastError }),
          },
        },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return result.matchedCount === 1;
    } catch (error) {
      throw toStoreError(error, `reschedule lane ${laneId}`);
    }
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

  /** Deletes the lane if it is still empty and ours; false when a posting was queued meanwhile. */
  deleteIfEmpty(laneId: string, owner: string): Promise<boolean> {
    return this.#serialised(laneId, () => this.#deleteIfEmpty(laneId, owner));
  }

  async #deleteIfEmpty(laneId: string, owner: string): Promise<boolean> {
    try {
      const result = await this.#lanes.deleteOne(
        { _id: laneId, count: 0, leaseOwner: owner },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return result.deletedCount === 1;
    } catch (error) {
      throw toStoreError(error, `delete lane ${laneId}`);
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

function onlyDuplicates(error: unknown): boolean {
  if (error instanceof MongoBulkWriteError) {
    const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    return writeErrors.length > 0 && writeErrors.every((writeError) => writeError.code === 11000);
  }
  return isDuplicateKey(error);
}

function toPostingDocument(posting: StoredPosting): PostingDocument {
  const { eventId, ...rest } = posting;
  return { _id: eventId, ...rest, memberIds: [...posting.memberIds] };
}

function fromPostingDocument(document: PostingDocument): StoredPosting {
  const { _id, ...rest } = document;
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
