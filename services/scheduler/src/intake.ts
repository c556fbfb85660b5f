import { AppError } from '@rp/runtime';
import { type Collection, type Db, MongoServerError } from 'mongodb';

/**
 * Accepted debits that wait for their ACCP status report to be acknowledged by the initiating bank,
 * before they join the debit queue (the store's DebitQueueRepository, which orders them for their
 * window). `_id` = UETR. The two halves of the join (the accepted debit, the report's acknowledgement)
 * come from two topics in either order; each half is one atomic upsert, and the one that completes the
 * pair makes the debit ready. A debit from a clearing house has no initiating bank among the
 * participants and no report to wait for: its accepted record alone makes it ready.
 *
 * A document stays after the debit was made ready or withdrawn (reconciled), as a tombstone: a record
 * delivered again must not bring the debit back. Tombstones are purged after the topics' retention.
 *
 * This is the scheduler's own collection because the store's debit queue has no "awaiting the status
 * report" state yet; it moves into @rp/store when the queue gets one.
 */
export type IntakeStatus = 'awaiting' | 'ready' | 'withdrawn';

export interface IntakeEntry {
  uetr: string;
  status: IntakeStatus;
  /** The accepted DirectDebit as JSON text (contracts' toJson). */
  debitJson?: string;
  /** When the scheduler first saw the accepted debit: its place in the queue's order. */
  acceptedAt?: Date;
  /** The debit came from a clearing house (`rp-origin: scheme`): no status report will be acknowledged. */
  fromScheme?: boolean;
  /** When the initiating bank's 202 to the ACCP report was first seen. */
  statusReportAcknowledgedAt?: Date;
  statusReportId?: string;
  windowDate?: string;
  updatedAt: Date;
}

interface IntakeDocument {
  _id: string;
  status: IntakeStatus;
  debitJson?: string;
  acceptedAt?: Date;
  fromScheme?: boolean;
  statusReportAcknowledgedAt?: Date;
  statusReportId?: string;
  windowDate?: string;
  updatedAt: Date;
}

export const intakeCollectionName = 'scheduler_debit_intake';

const operationMaxTimeMs = 5_000;
const queryMaxTimeMs = 30_000;

export class DebitIntakeRepository {
  readonly #collection: Collection<IntakeDocument>;

  constructor(db: Db) {
    this.#collection = db.collection<IntakeDocument>(intakeCollectionName);
  }

  async ensureIndexes(): Promise<void> {
    await this.#run('create intake indexes', () =>
      this.#collection.createIndex({ status: 1, updatedAt: 1 }, { name: 'status_1_updatedAt_1' }),
    );
  }

  /**
   * Records the accepted debit; returns the entry after the write (ready to go when both halves are in,
   * or at once for a debit from a clearing house).
   */
  recordAccepted(
    uetr: string,
    debitJson: string,
    at: Date,
    options: { fromScheme?: boolean } = {},
  ): Promise<IntakeEntry> {
    return this.#upsert(uetr, {
      $set: { debitJson, updatedAt: at, ...(options.fromScheme ? { fromScheme: true } : {}) },
      $min: { acceptedAt: at },
    });
  }

  /** Records the initiating bank's acknowledgement of the ACCP report. */
  recordAcknowledged(uetr: string, statusReportId: string, at: Date): Promise<IntakeEntry> {
    return this.#upsert(uetr, {
      $set: { statusReportId, updatedAt: at },
      $min: { statusReportAcknowledgedAt: at },
    });
  }

  /** The debit joined the queue for `windowDate`. Only an awaiting entry moves. */
  async markReady(uetr: string, windowDate: string, at: Date): Promise<void> {
    await this.#run(`mark intake ${uetr} ready`, () =>
      this.#collection.updateOne(
        { _id: uetr, status: 'awaiting' },
        { $set: { status: 'ready', windowDate, updatedAt: at } },
        { maxTimeMS: operationMaxTimeMs },
      ),
    );
  }

  /** The transactions were reconciled: whatever arrives for them later is ignored. */
  async withdraw(uetrs: readonly string[], at: Date): Promise<void> {
    for (const uetr of uetrs) {
      await this.#run(`withdraw intake ${uetr}`, () =>
        this.#collection.updateOne(
          { _id: uetr },
          { $set: { status: 'withdrawn', updatedAt: at } },
          { upsert: true, maxTimeMS: operationMaxTimeMs },
        ),
      );
    }
  }

  async get(uetr: string): Promise<IntakeEntry | null> {
    const document = await this.#run(`read intake ${uetr}`, () =>
      this.#collection.findOne({ _id: uetr }, { maxTimeMS: operationMaxTimeMs }),
    );
    return document === null ? null : toEntry(document);
  }

  /** Debits (or acknowledgements) still waiting for their other half. */
  countAwaiting(): Promise<number> {
    return this.#run('count awaiting intake', () =>
      this.#collection.countDocuments({ status: 'awaiting' }, { maxTimeMS: queryMaxTimeMs }),
    );
  }

  /**
   * Deletes entries last touched before `before`: tombstones, and halves whose other half never came
   * (an acknowledgement of a rejection report has no accepted debit). Off the hot path.
   */
  async purge(before: Date): Promise<number> {
    const result = await this.#run('purge intake', () =>
      this.#collection.deleteMany({ updatedAt: { $lt: before } }, { maxTimeMS: queryMaxTimeMs }),
    );
    return result.deletedCount;
  }

  async #upsert(
    uetr: string,
    update: {
      $set: Partial<IntakeDocument>;
      $min: Partial<IntakeDocument>;
    },
  ): Promise<IntakeEntry> {
    const document = await this.#run(`record intake ${uetr}`, async () => {
      try {
        return await this.#findAndUpsert(uetr, update);
      } catch (error) {
        // Two first writes of one UETR at once: the loser's upsert hits the unique _id; the entry exists now.
        if (error instanceof MongoServerError && error.code === 11000)
          return this.#findAndUpsert(uetr, update);
        throw error;
      }
    });
    if (document === null) throw new AppError('INTERNAL', `intake upsert of ${uetr} returned nothing`);
    return toEntry(document);
  }

  #findAndUpsert(
    uetr: string,
    update: { $set: Partial<IntakeDocument>; $min: Partial<IntakeDocument> },
  ): Promise<IntakeDocument | null> {
    return this.#collection.findOneAndUpdate(
      { _id: uetr },
      { ...update, $setOnInsert: { status: 'awaiting' } },
      { upsert: true, returnDocument: 'after', maxTimeMS: operationMaxTimeMs },
    );
  }

  async #run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('STORE_UNAVAILABLE', `${operation} failed`, { cause: error });
    }
  }
}

function toEntry(document: IntakeDocument): IntakeEntry {
  return {
    uetr: document._id,
    status: document.status,
    ...(document.debitJson === undefined ? {} : { debitJson: document.debitJson }),
    ...(document.acceptedAt === undefined ? {} : { acceptedAt: document.acceptedAt }),
    ...(document.fromScheme === true ? { fromScheme: true } : {}),
    ...(document.statusReportAcknowledgedAt === undefined
      ? {}
      : { statusReportAcknowledgedAt: document.statusReportAcknowledgedAt }),
    ...(document.statusReportId === undefined ? {} : { statusReportId: document.statusReportId }),
    ...(document.windowDate === undefined ? {} : { windowDate: document.windowDate }),
    updatedAt: document.updatedAt,
  };
}

/**
 * Both halves are in (for a debit from a clearing house, the accepted debit is all there is) and the
 * debit has not moved on.
 */
export function isComplete(
  entry: IntakeEntry,
): entry is IntakeEntry & { debitJson: string; acceptedAt: Date } {
  return (
    entry.status === 'awaiting' &&
    entry.debitJson !== undefined &&
    entry.acceptedAt !== undefined &&
    (entry.fromScheme === true || entry.statusReportAcknowledgedAt !== undefined)
  );
}
