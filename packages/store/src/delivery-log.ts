import type { Collection, Document } from 'mongodb';
import { pushBounded } from './bounded-list.ts';
import { StoreError, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** The event posting a log entry is about. */
export interface EventPosting {
  eventId: string;
  uetr: string;
  /** The bank the posting goes to. */
  memberId: string;
  eventType: string;
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

export interface EventDeliveryLog extends EventPosting {
  outcome: EventDeliveryOutcome;
  /** The newest attempts (`deliveryAttemptsKept` of them). */
  attempts: EventDeliveryAttempt[];
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt?: Date;
}

interface DeliveryLogDocument {
  _id: string;
  uetr: string;
  memberId: string;
  eventType: string;
  outcome: EventDeliveryOutcome;
  attempts: EventDeliveryAttempt[];
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt?: Date;
}

const maxListLimit = 500;

/** Delivery log of event postings, `_id` = event id: one upsert per attempt, listed per transaction. */
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
    if (!posting.eventId || !posting.uetr)
      throw new StoreError('invalid-input', 'posting needs an event id and a UETR');
    const entry: EventDeliveryAttempt = {
      at: attempt.at,
      httpStatus: attempt.httpStatus,
      latencyMs: attempt.latencyMs,
      ...(attempt.error === undefined ? {} : { error: attempt.error }),
    };
    await pushBounded(this.#collection as unknown as Collection<Document>, {
      id: posting.eventId,
      arrayField: 'attempts',
      countField: 'attemptCount',
      entry,
      keep: this.#attemptsKept,
      set: { outcome, ...(outcome === 'pending' ? {} : { completedAt: attempt.at }) },
      max: { updatedAt: attempt.at },
      setOnInsert: {
        uetr: posting.uetr,
        memberId: posting.memberId,
        eventType: posting.eventType,
        createdAt: attempt.at,
      },
      maxTimeMs: this.#limits.operationMaxTimeMs,
      operation: `record delivery attempt of event ${posting.eventId}`,
    });
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
}

function toLog(document: DeliveryLogDocument, attemptsKept: number): EventDeliveryLog {
  return {
    eventId: document._id,
    uetr: document.uetr,
    memberId: document.memberId,
    eventType: document.eventType,
    outcome: document.outcome,
    attempts: (document.attempts ?? []).slice(-attemptsKept),
    attemptCount: document.attemptCount ?? 0,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    ...(document.completedAt === undefined ? {} : { completedAt: document.completedAt }),
  };
}

export type { DeliveryLogDocument };
