import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { assertIsoDate, debitOrderKey } from './debit-order.ts';
import {
  isDuplicateKey,
  onlyDuplicateKeys,
  refusedAsDuplicates,
  StoreError,
  toStoreError,
} from './errors.ts';
import { besideId } from './filters.ts';
import { GroupCommit, type Settled } from './group-commit.ts';
import { chunk, mapBounded, type StoreLimits } from './limits.ts';

/** A debit waiting for its debit window. */
export interface DebitQueueItem {
  uetr: string;
  /** Business date (Africa/Johannesburg) of the debit window it waits for, `YYYY-MM-DD`. */
  windowDate: string;
  /** `YYYY-MM-DD`, from the debit. */
  requestedCollectionDate: string;
  creditorAgentMemberId: string;
  /** An on-us debit, or an off-us debit that came in from a clearing house. */
  origin: 'on-us' | 'inbound';
  enqueuedAt: Date;
  /** The debit message to dispatch, as JSON text. */
  messageJson: string;
}

export interface QueuedDebit extends DebitQueueItem {
  /** Its place in the window; see `debitOrderKey`. */
  orderKey: string;
}

export interface DrainOptions {
  /** Debits per yielded batch (also the cursor's batch size). Default 100, at most 1,000. */
  batchSize?: number;
}

/**
 * Where a debit is on its way through the scheduler:
 * - `awaiting`: one half is in (the accepted debit, or the initiating bank's acknowledgement of its ACCP
 *   status report), not both;
 * - `queued`: waiting for its debit window (`windowDate`, in `orderKey` order);
 * - `dispatched`: released to its window (a tombstone);
 * - `withdrawn`: reconciled, or taken off the queue by an operator (a tombstone).
 * A tombstone keeps a record delivered again from bringing the debit back; tombstones are purged after
 * the input topics' retention.
 */
export type DebitStatus = 'awaiting' | 'queued' | 'dispatched' | 'withdrawn';

/** A debit's document in the queue, whatever its status. */
export interface DebitEntry {
  uetr: string;
  status: DebitStatus;
  /** The accepted DirectDebit as JSON text (gone once the debit is a tombstone). */
  messageJson?: string;
  /** When the accepted debit was first seen: its place in the queue's order. */
  acceptedAt?: Date;
  /** The debit came from a clearing house: no status report will be acknowledged. */
  fromScheme?: boolean;
  /** When the initiating bank's 202 to the ACCP report was first seen. */
  statusReportAcknowledgedAt?: Date;
  statusReportId?: string;
  /** While queued: the window it waits for. */
  windowDate?: string;
  updatedAt: Date;
}

interface DebitQueueDocument {
  _id: string;
  status: DebitStatus;
  windowDate?: string;
  orderKey?: string;
  requestedCollectionDate?: string;
  creditorAgentMemberId?: string;
  origin?: 'on-us' | 'inbound';
  enqueuedAt?: Date;
  messageJson?: string;
  acceptedAt?: Date;
  fromScheme?: boolean;
  statusReportAcknowledgedAt?: Date;
  statusReportId?: string;
  updatedAt: Date;
}

const maxDrainResumes = 3;

/** A debit released at once, for `recordReleased`. */
export interface ReleasedDebit {
  readonly uetr: string;
  readonly intake: DebitIntake;
  /** Nothing of it was written to the queue before (its halves met in the caller's memory), as far as known. */
  readonly unwritten?: boolean;
}

/** The two intake halves `enqueue` and `recordReleased` can record with the debit. */
export type DebitIntake = Pick<
  DebitEntry,
  'acceptedAt' | 'statusReportAcknowledgedAt' | 'statusReportId' | 'fromScheme'
>;

interface EnqueueRequest {
  readonly item: DebitQueueItem;
  readonly orderKey: string;
  readonly at: Date;
  readonly halves: DebitIntake | undefined;
  readonly unwritten: boolean;
}

type EnqueueOutcome = 'enqueued' | 'already-queued';

/** What a tombstone drops: it no longer waits for a window, and its message was sent or never will be. */
const tombstoneUnset = { windowDate: '', orderKey: '', messageJson: '' } as const;

/**
 * The scheduler's debits from the first record seen to their release, one document each (`_id` = UETR):
 * the two halves of the intake joined by atomic upserts, the queue ordered for its window and drained
 * through one cursor, and a tombstone once released or withdrawn. A debit costs at most three writes of
 * its own (each half, then queued; one when its halves met in the caller's memory), the last shared with
 * the debits queued at the same moment, and a share of a bulk write when its window releases it.
 */
export class DebitQueueRepository {
  readonly #collection: Collection<DebitQueueDocument>;
  readonly #limits: StoreLimits;
  readonly #enqueues: GroupCommit<EnqueueRequest, EnqueueOutcome>;

  constructor(collection: Collection<DebitQueueDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
    this.#enqueues = new GroupCommit((requests) => this.#enqueueGroup(requests), {
      maxBatch: limits.bulkBatchSize,
      maxInFlight: Math.max(1, Math.floor(limits.writeConcurrency / 4)),
    });
  }

  /**
   * Records the accepted debit (its first sight sets `acceptedAt`); returns the entry after the write.
   * A debit that moved on (queued, dispatched, withdrawn) is returned as it is, unchanged: a tombstone
   * does not take back the message it dropped.
   */
  recordAccepted(
    uetr: string,
    messageJson: string,
    at: Date,
    options: { fromScheme?: boolean } = {},
  ): Promise<DebitEntry> {
    return this.#record(
      uetr,
      {
        $set: { messageJson, updatedAt: at, ...(options.fromScheme ? { fromScheme: true } : {}) },
        $min: { acceptedAt: at },
      },
      { onlyAwaiting: true },
    );
  }

  /**
   * Records the accepted halves of on-us debits the queue has not seen yet, in insert commands of at most
   * `bulkInsertSize` (a few in flight): a half that lands alone completes nothing, so its write needs to
   * return nothing, and an insert is the cheapest write there is (on the local server a tenth of an
   * atomic upsert's CPU, bench/HISTORY.md). Returns the entries of the debits written one at a time
   * instead, as `recordAccepted` writes them: those the insert found there already (the acknowledgement
   * in, so the half completes the pair and the caller makes it ready; a half written before; a debit that
   * moved on), or the whole command's when its error names none. The caller must keep the
   * acknowledgements of these debits from being written while this runs: a half inserted and then written
   * again on its own would otherwise complete a pair that its acknowledgement completed too.
   */
  async recordAcceptedHalves(
    halves: readonly { readonly uetr: string; readonly messageJson: string; readonly at: Date }[],
  ): Promise<Map<string, DebitEntry>> {
    const entries = new Map<string, DebitEntry>();
    const one = async ({ uetr, messageJson, at }: (typeof halves)[number]) => {
      entries.set(uetr, await this.recordAccepted(uetr, messageJson, at));
    };
    const parallel = Math.max(1, Math.floor(this.#limits.writeConcurrency / 4));
    await mapBounded(chunk(halves, this.#limits.bulkInsertSize), parallel, async (batch) => {
      try {
        await this.#collection.insertMany(
          batch.map(({ uetr, messageJson, at }) => ({
            _id: uetr,
            status: 'awaiting' as const,
            messageJson,
            acceptedAt: at,
            updatedAt: at,
          })),
          { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw toStoreError(error, 'record accepted debits');
        await mapBounded(refusedAsDuplicates(error, batch), parallel, one);
      }
    });
    return entries;
  }

  /** Records the initiating bank's acknowledgement of the debit's ACCP report. */
  recordAcknowledged(uetr: string, statusReportId: string, at: Date): Promise<DebitEntry> {
    return this.#record(uetr, {
      $set: { statusReportId, updatedAt: at },
      $min: { statusReportAcknowledgedAt: at },
    });
  }

  /**
   * Queues a debit for its window, once: an awaiting entry (or none) becomes queued; a debit already
   * queued, released or withdrawn is left as it is. One write either way, in one command with the other
   * debits queued at the same moment (a group commit). `halves` records the intake in the same write, for
   * a debit whose halves met in the caller's memory and were never written; `unwritten` says nothing of
   * it was written here before, as far as the caller knows, and its write is then an insert (on the
   * local server a tenth of an upsert's CPU), done as the others are if the debit was there after all.
   */
  async enqueue(
    item: DebitQueueItem,
    at: Date = new Date(),
    halves?: DebitIntake,
    options: { unwritten?: boolean } = {},
  ): Promise<{ outcome: EnqueueOutcome; orderKey: string }> {
    assertIsoDate(item.windowDate, 'windowDate');
    const orderKey = debitOrderKey(item);
    const outcome = await this.#enqueues.submit({
      item,
      orderKey,
      at,
      halves,
      unwritten: options.unwritten === true,
    });
    return { outcome, orderKey };
  }

  /**
   * The debits queued at one moment: one ordered bulk write; a single debit is one update. A bulk that
   * fails (a debit in it moved on already, or the server) is done again one debit at a time: each write
   * is safe to repeat, and a repeat that finds the debit queued by this very request says `enqueued`
   * (the local server names no position for the write it refused in a bulk, so what went before it is
   * not known otherwise).
   */
  async #enqueueGroup(requests: readonly EnqueueRequest[]): Promise<Settled<EnqueueOutcome>[]> {
    const unwritten = requests.filter((request) => request.unwritten);
    if (unwritten.length === 0) return this.#enqueueUpserts(requests);
    const left = new Set(await this.#insertQueued(unwritten));
    const rest = requests.filter((request) => !request.unwritten || left.has(request));
    const upserted = rest.length > 0 ? await this.#enqueueUpserts(rest) : [];
    const outcomes = new Map(rest.map((request, index) => [request, upserted[index]]));
    return requests.map((request) => outcomes.get(request) ?? { ok: true, value: 'enqueued' });
  }

  /**
   * The debits never written before, queued by one insert command. Returns those it did not queue: the
   * ones it found there after all, or all of them when the command failed otherwise. The caller queues
   * them by the upserts, which find one this insert put in queued by this very request (`#queuedBy`).
   */
  async #insertQueued(requests: readonly EnqueueRequest[]): Promise<readonly EnqueueRequest[]> {
    try {
      await this.#collection.insertMany(requests.map(queuedDocument), {
        ordered: false,
        maxTimeMS: this.#limits.operationMaxTimeMs,
      });
      return [];
    } catch (error) {
      return onlyDuplicateKeys(error) ? refusedAsDuplicates(error, requests) : requests;
    }
  }

  async #enqueueUpserts(requests: readonly EnqueueRequest[]): Promise<Settled<EnqueueOutcome>[]> {
    if (requests.length > 1) {
      try {
        await this.#collection.bulkWrite(
          requests.map((request) => ({ updateOne: { ...enqueueWrite(request), upsert: true } })),
          { ordered: true, maxTimeMS: this.#limits.operationMaxTimeMs },
        );
        return requests.map(() => ({ ok: true, value: 'enqueued' }));
      } catch {
        // One at a time below.
      }
    }
    return Promise.all(
      requests.map(async (request): Promise<Settled<EnqueueOutcome>> => {
        try {
          const outcome = await this.#enqueueOne(request);
          if (outcome === 'already-queued' && requests.length > 1 && (await this.#queuedBy(request)))
            return { ok: true, value: 'enqueued' };
          return { ok: true, value: outcome };
        } catch (error) {
          return { ok: false, error: toStoreError(error, `enqueue debit ${request.item.uetr}`) };
        }
      }),
    );
  }

  async #enqueueOne(request: EnqueueRequest): Promise<EnqueueOutcome> {
    const { filter, update } = enqueueWrite(request);
    try {
      await this.#collection.updateOne(filter, update, {
        upsert: true,
        maxTimeMS: this.#limits.operationMaxTimeMs,
      });
      return 'enqueued';
    } catch (error) {
      // Not awaiting: the upsert's insert met the entry that moved on.
      if (isDuplicateKey(error)) return 'already-queued';
      throw error;
    }
  }

  /** Whether the debit is queued by this request's own write (a bulk that failed after it). */
  async #queuedBy(request: EnqueueRequest): Promise<boolean> {
    const document = await this.#collection.findOne(
      { _id: request.item.uetr },
      { projection: { status: 1, orderKey: 1, updatedAt: 1 }, maxTimeMS: this.#limits.operationMaxTimeMs },
    );
    return (
      document !== null &&
      document.status === 'queued' &&
      document.orderKey === request.orderKey &&
      document.updatedAt.getTime() === request.at.getTime()
    );
  }

  /** Debits queued for one window, or for any window. */
  async depth(windowDate?: string): Promise<number> {
    if (windowDate !== undefined) assertIsoDate(windowDate, 'windowDate');
    return this.#count(
      windowDate === undefined ? { status: 'queued' } : { windowDate },
      'measure debit queue depth',
    );
  }

  /** Debits (or acknowledgements) still waiting for their other half. */
  countAwaiting(): Promise<number> {
    return this.#count({ status: 'awaiting' }, 'count debits awaiting their status report');
  }

  /**
   * The window's debits in `orderKey` order, in batches of `batchSize`, streamed from one cursor so the
   * queue is never held in memory. Debits stay queued until `markDispatched`; a drain that stops half
   * way (crash, break) leaves the rest for the next drain, which starts again at the first one still
   * queued. If the cursor fails with a retriable error the drain resumes after the last debit yielded.
   * Debits queued for the window while a drain runs may or may not be seen by it: drain again until
   * `depth(windowDate)` is 0.
   */
  async *drain(
    windowDate: string,
    options: DrainOptions = {},
  ): AsyncGenerator<QueuedDebit[], void, undefined> {
    assertIsoDate(windowDate, 'windowDate');
    const batchSize = Math.min(Math.max(1, options.batchSize ?? 100), 1_000);
    let after: string | undefined;
    let resumes = 0;
    for (;;) {
      const cursor = this.#collection
        .find(after === undefined ? { windowDate } : { windowDate, orderKey: { $gt: after } }, {
          maxTimeMS: this.#limits.queryMaxTimeMs,
          batchSize,
        })
        .sort({ orderKey: 1 });
      try {
        let batch: QueuedDebit[] = [];
        for await (const document of cursor) {
          batch.push(toQueuedDebit(document));
          if (batch.length === batchSize) {
            after = document.orderKey;
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
        return;
      } catch (error) {
        const failure = toStoreError(error, `drain debit queue of window ${windowDate}`);
        if (!failure.retriable || resumes >= maxDrainResumes) throw failure;
        resumes += 1;
      } finally {
        await cursor.close().catch(() => undefined);
      }
    }
  }

  /**
   * Debits released the moment they became ready, never queued (their window open and nothing of it
   * waiting): after their records went out, their tombstones with their intake. A debit the caller knows
   * was never written here (`unwritten`: its halves met in the caller's memory) gets its tombstone by an
   * insert, in commands of at most `bulkInsertSize` (on the local server a tenth of an upsert's CPU); one
   * the insert found there is written as the others are. The others, in bulks of
   * upserts (`bulkBatchSize` at most each), a few bulks in flight as `markDispatched` sends them: the
   * release waits for the slowest bulk, not for their sum. An entry awaiting its other half, or queued,
   * becomes the tombstone; one that moved on already (released by an earlier attempt, or withdrawn) is
   * left as it is. Safe to repeat. A bulk that meets one that moved on is done again one debit at a time
   * (the local server stops an unordered bulk of updates at its first refusal).
   */
  async recordReleased(debits: readonly ReleasedDebit[], at: Date = new Date()): Promise<void> {
    const options = { maxTimeMS: this.#limits.operationMaxTimeMs };
    const one = async ({ uetr, intake }: ReleasedDebit) => {
      try {
        await this.#collection.updateOne(releasedFilter(uetr), releasedWrite(intake, at), {
          ...options,
          upsert: true,
        });
      } catch (error) {
        // Moved on: the upsert's insert met its entry.
        if (!isDuplicateKey(error)) throw error;
      }
    };
    const parallel = Math.max(1, Math.floor(this.#limits.writeConcurrency / 4));
    const upserts = async (batch: readonly ReleasedDebit[]) => {
      if (batch.length === 1) {
        await one(batch[0] as ReleasedDebit);
        return;
      }
      try {
        await this.#collection.bulkWrite(
          batch.map(({ uetr, intake }) => ({
            updateOne: { filter: releasedFilter(uetr), update: releasedWrite(intake, at), upsert: true },
          })),
          { ...options, ordered: false },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw error;
        await mapBounded(batch, parallel, one);
      }
    };
    const inserts = async (batch: readonly ReleasedDebit[]) => {
      try {
        await this.#collection.insertMany(
          batch.map(({ uetr, intake }) => releasedDocument(uetr, intake, at)),
          { ...options, ordered: false },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw error;
        // Some were there: the upserts write those, and leave the ones that moved on.
        const refused = refusedAsDuplicates(error, batch);
        await mapBounded(chunk(refused, this.#limits.bulkBatchSize), parallel, upserts);
      }
    };
    const unwritten = debits.filter((debit) => debit.unwritten === true);
    const written = debits.filter((debit) => debit.unwritten !== true);
    try {
      await mapBounded(
        [
          ...chunk(unwritten, this.#limits.bulkInsertSize).map((batch) => () => inserts(batch)),
          ...chunk(written, this.#limits.bulkBatchSize).map((batch) => () => upserts(batch)),
        ],
        parallel,
        (write) => write(),
      );
    } catch (error) {
      throw toStoreError(error, 'record released debits');
    }
  }

  /**
   * Takes released debits off the queue, leaving their tombstones. Returns how many were still queued.
   */
  async markDispatched(uetrs: readonly string[], at: Date = new Date()): Promise<number> {
    return this.#tombstone(uetrs, 'dispatched', at, 'mark debits dispatched');
  }

  /**
   * Withdraws debits whatever their status (reconciled, or taken off by an operator): they leave the
   * queue if queued, and anything that arrives for them later is ignored. A UETR never seen gets its
   * tombstone too. Returns how many were still queued.
   */
  async withdraw(uetrs: readonly string[], at: Date = new Date()): Promise<number> {
    return this.#tombstone(uetrs, 'withdrawn', at, 'withdraw debits');
  }

  /** A queued debit; null when it is not (or no longer) queued. */
  async get(uetr: string): Promise<QueuedDebit | null> {
    const document = await this.#find(uetr);
    return document === null || !isQueued(document) ? null : toQueuedDebit(document);
  }

  /** A debit's entry whatever its status; null when the queue never saw it (or purged its tombstone). */
  async entry(uetr: string): Promise<DebitEntry | null> {
    const document = await this.#find(uetr);
    return document === null ? null : toEntry(document);
  }

  /**
   * Deletes tombstones, and halves whose other half never came (an acknowledgement of a rejection
   * report has no accepted debit), last touched before `before`. Queued debits stay, however long they
   * wait. Off the hot path: one delete per status, each served by the status index.
   */
  async purge(before: Date): Promise<number> {
    let purged = 0;
    for (const status of ['dispatched', 'withdrawn', 'awaiting'] as const) {
      try {
        const result = await this.#collection.deleteMany(
          { status, updatedAt: { $lt: before } },
          { maxTimeMS: this.#limits.queryMaxTimeMs },
        );
        purged += result.deletedCount;
      } catch (error) {
        throw toStoreError(error, `purge ${status} debits`);
      }
    }
    return purged;
  }

  async #find(uetr: string): Promise<DebitQueueDocument | null> {
    try {
      return await this.#collection.findOne({ _id: uetr }, { maxTimeMS: this.#limits.operationMaxTimeMs });
    } catch (error) {
      throw toStoreError(error, `read debit ${uetr}`);
    }
  }

  async #count(filter: Filter<DebitQueueDocument>, operation: string): Promise<number> {
    try {
      return await this.#collection.countDocuments(filter, { maxTimeMS: this.#limits.queryMaxTimeMs });
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }

  /**
   * One half of the intake: an atomic upsert that returns the entry after it. `onlyAwaiting`: only an
   * awaiting entry is written (or a new one); one that moved on is read and returned as it is.
   */
  async #record(
    uetr: string,
    update: { $set: Partial<DebitQueueDocument>; $min: Partial<DebitQueueDocument> },
    options: { onlyAwaiting?: boolean } = {},
  ): Promise<DebitEntry> {
    const filter: Filter<DebitQueueDocument> =
      options.onlyAwaiting === true ? { _id: uetr, status: besideId('awaiting' as const) } : { _id: uetr };
    const upsert = () =>
      this.#collection.findOneAndUpdate(
        filter,
        { ...update, $setOnInsert: { status: 'awaiting' } },
        { upsert: true, returnDocument: 'after', maxTimeMS: this.#limits.operationMaxTimeMs },
      );
    let document: DebitQueueDocument | null;
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          document = await upsert();
          break;
        } catch (error) {
          // The unique _id refused the upsert's insert: a first write of the UETR landed at the same time
          // (the entry exists now and the write is made again), or, filtered, the debit moved on.
          if (!isDuplicateKey(error) || attempt >= 3) throw error;
          if (options.onlyAwaiting !== true) continue;
          const found = await this.#collection.findOne(
            { _id: uetr },
            { maxTimeMS: this.#limits.operationMaxTimeMs },
          );
          if (found !== null && found.status !== 'awaiting') return toEntry(found);
        }
      }
    } catch (error) {
      throw toStoreError(error, `record debit ${uetr}`);
    }
    if (document === null) throw new StoreError('inconsistent', `upsert of debit ${uetr} returned nothing`);
    return toEntry(document);
  }

  /**
   * Turns debits into tombstones in bulk writes of at most `bulkBatchSize` updates by `_id` (the local
   * server takes small bulks of updates well and large ones badly), a few bulks in flight. Releasing
   * marks only what is still queued; withdrawing marks whatever is there, and upserts the rest.
   */
  async #tombstone(
    uetrs: readonly string[],
    status: 'dispatched' | 'withdrawn',
    at: Date,
    operation: string,
  ): Promise<number> {
    const batches = chunk([...new Set(uetrs)], this.#limits.bulkBatchSize);
    const parallel = Math.max(1, Math.floor(this.#limits.writeConcurrency / 4));
    const update = { $set: { status, updatedAt: at }, $unset: tombstoneUnset };
    try {
      const counts = await mapBounded(batches, parallel, async (batch) => {
        if (status === 'dispatched') {
          const result = await this.#collection.bulkWrite(
            batch.map((uetr) => ({
              updateOne: { filter: { _id: uetr, status: besideId('queued' as const) }, update },
            })),
            { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
          );
          return result.modifiedCount;
        }
        // Withdrawn: how many were queued is read first (by _id, one at a time: few, and off the hot path).
        const queued = await mapBounded(batch, parallel, async (uetr) => {
          const document = await this.#collection.findOne(
            { _id: uetr },
            { projection: { status: 1 }, maxTimeMS: this.#limits.operationMaxTimeMs },
          );
          return document !== null && isQueued(document) ? 1 : 0;
        });
        await this.#collection.bulkWrite(
          batch.map((uetr) => ({ updateOne: { filter: { _id: uetr }, update, upsert: true } })),
          { ordered: false, maxTimeMS: this.#limits.operationMaxTimeMs },
        );
        return queued.reduce<number>((sum, count) => sum + count, 0);
      });
      return counts.reduce((sum, count) => sum + count, 0);
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }
}

/** What a queued debit holds beside its intake: its window, its place in the queue and its message. */
function queuedPlace({ item, orderKey }: EnqueueRequest) {
  return {
    windowDate: item.windowDate,
    orderKey,
    requestedCollectionDate: item.requestedCollectionDate,
    creditorAgentMemberId: item.creditorAgentMemberId,
    origin: item.origin,
    enqueuedAt: item.enqueuedAt,
    messageJson: item.messageJson,
  };
}

/** The intake halves as a new document's fields. */
function intakeFields(intake: DebitIntake | undefined): Partial<DebitQueueDocument> {
  return {
    ...(intake?.acceptedAt === undefined ? {} : { acceptedAt: intake.acceptedAt }),
    ...(intake?.statusReportAcknowledgedAt === undefined
      ? {}
      : { statusReportAcknowledgedAt: intake.statusReportAcknowledgedAt }),
    ...(intake?.statusReportId === undefined ? {} : { statusReportId: intake.statusReportId }),
    ...(intake?.fromScheme === true ? { fromScheme: true } : {}),
  };
}

/** A debit never written before, queued: the document `enqueueWrite` upserts where there was none. */
function queuedDocument(request: EnqueueRequest): DebitQueueDocument {
  return {
    _id: request.item.uetr,
    status: 'queued',
    ...queuedPlace(request),
    ...intakeFields(request.halves),
    updatedAt: request.at,
  };
}

/** The write that queues a debit: matches only an awaiting entry; none there, it inserts one. */
function enqueueWrite(request: EnqueueRequest): {
  filter: Filter<DebitQueueDocument>;
  update: UpdateFilter<DebitQueueDocument>;
} {
  const { min, set } = intakeUpdate(request.halves);
  return {
    filter: { _id: request.item.uetr, status: besideId('awaiting' as const) },
    update: {
      ...min,
      $set: { ...set, status: 'queued', ...queuedPlace(request), updatedAt: request.at },
    },
  };
}

/** The intake halves as an update: the first sight of each half wins (`$min`), the report's id is set. */
function intakeUpdate(intake: DebitIntake | undefined): {
  min: { $min?: Partial<DebitQueueDocument> };
  set: Partial<DebitQueueDocument>;
} {
  const min: Partial<DebitQueueDocument> = {};
  if (intake?.acceptedAt !== undefined) min.acceptedAt = intake.acceptedAt;
  if (intake?.statusReportAcknowledgedAt !== undefined)
    min.statusReportAcknowledgedAt = intake.statusReportAcknowledgedAt;
  return {
    min: Object.keys(min).length > 0 ? { $min: min } : {},
    set: {
      ...(intake?.statusReportId === undefined ? {} : { statusReportId: intake.statusReportId }),
      ...(intake?.fromScheme === true ? { fromScheme: true } : {}),
    },
  };
}

/**
 * What a debit released at once may turn into its tombstone: not one that moved on already (an `$in`, so
 * the `_id` index alone serves it: see `besideId`).
 */
function releasedFilter(uetr: string): Filter<DebitQueueDocument> {
  return { _id: uetr, status: { $in: ['awaiting', 'queued'] } };
}

/** The tombstone of a debit released at once and never written before: what `releasedWrite` upserts. */
function releasedDocument(uetr: string, intake: DebitIntake, at: Date): DebitQueueDocument {
  return { _id: uetr, status: 'dispatched', ...intakeFields(intake), updatedAt: at };
}

/** The tombstone of a debit released at once, with its intake halves. */
function releasedWrite(intake: DebitIntake, at: Date): UpdateFilter<DebitQueueDocument> {
  const { min, set } = intakeUpdate(intake);
  return { ...min, $set: { ...set, status: 'dispatched', updatedAt: at }, $unset: tombstoneUnset };
}

function isQueued(document: Pick<DebitQueueDocument, 'status'>): boolean {
  return document.status === 'queued';
}

function toEntry(document: DebitQueueDocument): DebitEntry {
  return {
    uetr: document._id,
    status: document.status,
    ...(document.messageJson === undefined ? {} : { messageJson: document.messageJson }),
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
 * debit has not moved on: it is ready to be queued.
 */
export function isReadyToQueue(
  entry: DebitEntry,
): entry is DebitEntry & { messageJson: string; acceptedAt: Date } {
  return (
    entry.status === 'awaiting' &&
    entry.messageJson !== undefined &&
    entry.acceptedAt !== undefined &&
    (entry.fromScheme === true || entry.statusReportAcknowledgedAt !== undefined)
  );
}

function toQueuedDebit(document: DebitQueueDocument): QueuedDebit {
  const { windowDate, orderKey, requestedCollectionDate, creditorAgentMemberId, origin, enqueuedAt } =
    document;
  if (
    windowDate === undefined ||
    orderKey === undefined ||
    requestedCollectionDate === undefined ||
    creditorAgentMemberId === undefined ||
    origin === undefined ||
    enqueuedAt === undefined ||
    document.messageJson === undefined
  ) {
    throw new StoreError('inconsistent', `queued debit ${document._id} lacks its place in the queue`);
  }
  return {
    uetr: document._id,
    windowDate,
    orderKey,
    requestedCollectionDate,
    creditorAgentMemberId,
    origin,
    enqueuedAt,
    messageJson: document.messageJson,
  };
}

export type { DebitQueueDocument };
