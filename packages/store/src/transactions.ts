import { type Collection, type Document, type Filter, MongoBulkWriteError, type UpdateFilter } from 'mongodb';
import { pushBounded } from './bounded-list.ts';
import { isDuplicateKey, onlyDuplicateKeys, StoreError, toStoreError } from './errors.ts';
import { KeyedSerial } from './keyed-serial.ts';
import { chunk, mapBounded, type StoreLimits } from './limits.ts';
import {
  groupChangesByTransaction,
  type TransactionChangeGroup,
  type TransactionMessage,
  type TransactionStateChange,
} from './transaction-changes.ts';
import { type SnapshotPosition, SnapshotPositionCache } from './version-cache.ts';

export interface TransactionHistoryEntry {
  eventId: string;
  seq: number;
  from: string | null;
  to: string;
  eventType: string;
  at: Date;
  service: string;
}

/** One try at delivering one message of the transaction to a bank. */
export interface TransactionDeliveryAttempt {
  at: Date;
  messageIdentification: string;
  /** The bank the message went to. */
  memberId: string;
  /** Which bank endpoint, e.g. `inbound/direct-debit`. */
  endpoint: string;
  /** HTTP status of the answer; null when there was none (timeout, connection refused). */
  httpStatus: number | null;
  latencyMs: number;
  outcome: 'accepted' | 'retryable' | 'final';
  error?: string;
}

/** The current picture of one transaction, `_id` = UETR. */
export interface TransactionSnapshot {
  uetr: string;
  /** Null only while delivery attempts were recorded before the first state change arrived. */
  state: string | null;
  /** Number of state changes applied. */
  version: number;
  /** `seq` of the last state change applied. */
  lastSeq: number;
  endToEndIdentification?: string;
  debtorAgentMemberId?: string;
  creditorAgentMemberId?: string;
  history: TransactionHistoryEntry[];
  messages: TransactionMessage[];
  /** The most recent attempts only (the repository keeps a bounded number). */
  deliveryAttempts: TransactionDeliveryAttempt[];
  /** Every attempt ever recorded, including those no longer kept. */
  deliveryAttemptCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A snapshot without its history, messages and attempts: what lists show. */
export type TransactionSummary = Omit<TransactionSnapshot, 'history' | 'messages' | 'deliveryAttempts'>;

export interface TransactionSearch {
  /** The end-to-end identification the bank gave (banks choose it: not unique). */
  endToEndIdentification?: string;
  /** One state, or any of several. */
  state?: string | readonly string[];
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  /** At most 500. */
  limit: number;
}

export interface ApplyChangesResult {
  /** Transactions in the batch. */
  transactions: number;
  /**
   * Write commands sent: one for up to `bulkBatchSize` transactions' changes, one more per guard
   * conflict, one per delivery attempt pushed on its own.
   */
  writes: number;
  changesApplied: number;
  /** Changes already in their snapshot: redelivered or stale. */
  changesSkipped: number;
  /**
   * The transactions whose snapshots held changes this process did not know they held (another writer,
   * a replay after a restart); not those it had written itself and was handed again.
   */
  skippedIn: string[];
}

/** Counters since the repository was created; tests and metrics read them. */
export interface TransactionRepositoryStats {
  snapshotWrites: number;
  snapshotReads: number;
  guardConflicts: number;
  changesApplied: number;
  changesSkipped: number;
}

export interface TransactionRepositoryOptions {
  limits: StoreLimits;
  /** How many delivery attempts a snapshot keeps (the newest). */
  deliveryAttemptsKept: number;
  /** How many snapshot positions the writer remembers (see SnapshotPositionCache). */
  positionCacheSize: number;
}

interface TransactionDocument {
  _id: string;
  state?: string;
  version: number;
  lastSeq: number;
  lastEventId?: string;
  endToEndIdentification?: string;
  debtorAgentMemberId?: string;
  creditorAgentMemberId?: string;
  history?: TransactionHistoryEntry[];
  messages?: TransactionMessage[];
  deliveryAttempts?: TransactionDeliveryAttempt[];
  deliveryAttemptCount?: number;
  createdAt: Date;
  updatedAt: Date;
}

const summaryProjection = { history: 0, messages: 0, deliveryAttempts: 0 } as const;
const maxSearchLimit = 500;
const maxGuardAttempts = 3;
/** Bulk snapshot writes of one `applyChanges` call in flight at once. */
const bulkWritesInFlight = 2;

/** What one call has to write for one transaction: its changes, its attempts, or both. */
interface ChangeWork {
  uetr: string;
  group?: TransactionChangeGroup;
  attempts: TransactionDeliveryAttempt[];
}

interface GroupOutcome {
  writes: number;
  applied: number;
  skipped: number;
  /** Some changes were in the snapshot without this process knowing (see `skippedIn`). */
  stale: boolean;
  /** Attempts that did not ride with the changes: pushed one by one. */
  attemptsLeft: TransactionDeliveryAttempt[];
}

/** The guarded write of one transaction's fresh changes, and what it achieves if the guard lets it. */
interface WritePlan {
  uetr: string;
  filter: Document;
  update: UpdateFilter<TransactionDocument>;
  next: SnapshotPosition;
  /** The outcome once written (its `writes` counted by the caller). */
  outcome: GroupOutcome;
  position: SnapshotPosition;
  riding: boolean;
}

interface PlannedWrite extends WritePlan {
  /** Its place in the call's work. */
  index: number;
}

/**
 * The guarded write that takes a snapshot from `position` to its next position with the changes it
 * lacks, and the attempts riding along when the stored list has room for them (see pushBounded: it
 * holds at most twice what is kept). Undefined when the snapshot has every change already.
 */
function planWrite(
  group: TransactionChangeGroup,
  position: SnapshotPosition,
  attempts: readonly TransactionDeliveryAttempt[],
  options: Pick<TransactionRepositoryOptions, 'deliveryAttemptsKept'>,
): WritePlan | undefined {
  const fresh = group.changes.filter((change) => change.seq > position.lastSeq);
  if (fresh.length === 0) return undefined;
  const next: SnapshotPosition = {
    version: position.version + fresh.length,
    lastSeq: (fresh[fresh.length - 1] as TransactionStateChange).seq,
  };
  const riding = attempts.length > 0 && attempts.length <= options.deliveryAttemptsKept;
  const filter: Document = { _id: group.uetr, version: position.version };
  if (riding)
    filter[`deliveryAttempts.${2 * options.deliveryAttemptsKept - attempts.length}`] = { $exists: false };
  return {
    uetr: group.uetr,
    filter,
    update: snapshotUpdate(fresh, next, riding ? attempts.map(attemptEntry) : []),
    next,
    outcome: {
      writes: 0,
      applied: fresh.length,
      skipped: group.changes.length - fresh.length,
      stale: false,
      attemptsLeft: riding ? [] : [...attempts],
    },
    position,
    riding,
  };
}

/**
 * Snapshots of transactions: a projection of the state changes, written by `_id` only.
 *
 * The writer owns the UETR's Kafka partition, so it is the only writer in the normal case. Each write is
 * an upsert filtered by `{ _id, version }` with the version the writer expects; a write whose
 * expectation is wrong (a replay after a restart, another owner during a hand-over) matches nothing,
 * fails on the duplicate `_id`, and the writer re-reads the position and sends only the changes the
 * snapshot lacks. A snapshot therefore never moves back and never holds a change twice.
 */
export class TransactionRepository {
  readonly #collection: Collection<TransactionDocument>;
  readonly #options: TransactionRepositoryOptions;
  readonly #positions: SnapshotPositionCache;
  /** This process's writes of one snapshot never overlap (see KeyedSerial: the local server loses some). */
  readonly #writes = new KeyedSerial();
  readonly #stats: TransactionRepositoryStats = {
    snapshotWrites: 0,
    snapshotReads: 0,
    guardConflicts: 0,
    changesApplied: 0,
    changesSkipped: 0,
  };

  constructor(collection: Collection<TransactionDocument>, options: TransactionRepositoryOptions) {
    this.#collection = collection;
    this.#options = options;
    this.#positions = new SnapshotPositionCache(options.positionCacheSize);
  }

  stats(): TransactionRepositoryStats {
    return { ...this.#stats };
  }

  /**
   * Forgets remembered snapshot positions (all, or those of the given UETRs), e.g. when partitions are
   * revoked. Never needed for correctness, since every write is guarded in the database.
   */
  forgetPositions(uetrs?: readonly string[]): void {
    if (uetrs === undefined) this.#positions.clear();
    else for (const uetr of uetrs) this.#positions.delete(uetr);
  }

  /**
   * Applies a batch of state changes: one guarded write per transaction, and those writes sent together,
   * up to `limits.bulkBatchSize` transactions in one command (two such commands in flight at most).
   * Safe to call again with the same batch.
   *
   * `attempts` (delivery attempts by UETR, in order) ride in the same write as their transaction's
   * changes; a transaction with attempts and no fresh change gets them as `recordDeliveryAttempt` would,
   * one write each. The attempts are not idempotent: the caller hands each over once.
   *
   * `onWritten` is told each transaction whose changes and attempts are all in, as soon as they are:
   * when the call fails, the caller hands over again only what it was not told of, so that the attempts
   * of a transaction written before the failure are not written twice.
   */
  async applyChanges(
    changes: readonly TransactionStateChange[],
    attempts: ReadonlyMap<string, readonly TransactionDeliveryAttempt[]> = new Map(),
    options: { onWritten?: (uetr: string) => void } = {},
  ): Promise<ApplyChangesResult> {
    const groups = groupChangesByTransaction(changes);
    const work: ChangeWork[] = groups.map((group) => ({
      uetr: group.uetr,
      group,
      attempts: [...(attempts.get(group.uetr) ?? [])],
    }));
    const grouped = new Set(groups.map((group) => group.uetr));
    for (const [uetr, list] of attempts) {
      if (list.length > 0 && !grouped.has(uetr)) work.push({ uetr, attempts: [...list] });
    }
    const outcomes = await this.#writes.runAll(
      work.map((item) => item.uetr),
      () => this.#applyAll(work, options.onWritten ?? (() => undefined)),
    );
    const result: ApplyChangesResult = {
      transactions: groups.length,
      writes: 0,
      changesApplied: 0,
      changesSkipped: 0,
      skippedIn: [],
    };
    for (const [index, outcome] of outcomes.entries()) {
      result.writes += outcome.writes;
      result.changesApplied += outcome.applied;
      result.changesSkipped += outcome.skipped;
      if (outcome.stale) result.skippedIn.push((work[index] as ChangeWork).uetr);
    }
    this.#stats.changesApplied += result.changesApplied;
    this.#stats.changesSkipped += result.changesSkipped;
    return result;
  }

  async #applyAll(work: readonly ChangeWork[], onWritten: (uetr: string) => void): Promise<GroupOutcome[]> {
    const outcomes: GroupOutcome[] = work.map((item) => ({
      writes: 0,
      applied: 0,
      skipped: 0,
      stale: false,
      attemptsLeft: item.attempts,
    }));
    /** Tells the caller of a transaction with nothing left to write. */
    const settled = (index: number) => {
      if ((outcomes[index] as GroupOutcome).attemptsLeft.length === 0)
        onWritten((work[index] as ChangeWork).uetr);
    };
    // Where each snapshot stands: remembered, assumed new, or read (a transaction not seen lately).
    const withChanges = work.flatMap((item, index) => (item.group === undefined ? [] : [{ item, index }]));
    const known = withChanges.map(({ item }) => this.#positions.get(item.uetr));
    const positions = await mapBounded(
      withChanges,
      this.#options.limits.writeConcurrency,
      async ({ item }, at) => known[at] ?? (await this.#coldPosition(item.group as TransactionChangeGroup)),
    );
    const planned: PlannedWrite[] = [];
    withChanges.forEach(({ item, index }, at) => {
      const group = item.group as TransactionChangeGroup;
      const plan = planWrite(group, positions[at] as SnapshotPosition, item.attempts, this.#options);
      // Changes below a position this process wrote itself are its own, handed over again (a retried
      // flush); below a position read from the database, another writer's.
      const stale = known[at] === undefined;
      if (plan === undefined) {
        this.#positions.set(item.uetr, positions[at] as SnapshotPosition);
        outcomes[index] = {
          writes: 0,
          applied: 0,
          skipped: group.changes.length,
          stale,
          attemptsLeft: item.attempts,
        };
        settled(index);
      } else
        planned.push({
          ...plan,
          index,
          outcome: { ...plan.outcome, stale: stale && plan.outcome.skipped > 0 },
        });
    });
    const chunks = chunk(planned, Math.max(1, this.#options.limits.bulkBatchSize));
    await mapBounded(chunks, bulkWritesInFlight, async (writes) => {
      if (writes.length === 1) {
        const only = writes[0] as PlannedWrite;
        const item = work[only.index] as ChangeWork;
        const outcome = await this.#applyGroup(item.group as TransactionChangeGroup, item.attempts, only);
        outcomes[only.index] = { ...outcome, stale: outcome.stale || only.outcome.stale };
        settled(only.index);
        return;
      }
      await this.#applyBulk(writes, work, outcomes, settled);
    });
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.attemptsLeft.length === 0) continue;
      const uetr = (work[index] as ChangeWork).uetr;
      for (const attempt of outcome.attemptsLeft) {
        outcome.writes += 1;
        await this.#pushAttempt(uetr, attempt);
      }
      onWritten(uetr);
    }
    return outcomes;
  }

  /**
   * Several transactions' guarded writes in one ordered command. A refusal stops the command there:
   * the writes before it went, the rest did not. The local server stops at the first refusal whatever
   * the order and names the first write as refused, so from the position the server names on, each
   * snapshot is read again: its changes go on their own, as after any conflict (those it has already
   * are skipped), and its attempts went with them only if the snapshot holds them.
   */
  async #applyBulk(
    writes: readonly PlannedWrite[],
    work: readonly ChangeWork[],
    outcomes: GroupOutcome[],
    settled: (index: number) => void,
  ): Promise<void> {
    const first = writes[0] as PlannedWrite;
    this.#stats.snapshotWrites += 1;
    let refused: number;
    try {
      await this.#collection.bulkWrite(
        writes.map((write) => ({
          updateOne: {
            filter: write.filter as Filter<TransactionDocument>,
            update: write.update,
            upsert: true,
          },
        })),
        { ordered: true, maxTimeMS: this.#options.limits.operationMaxTimeMs },
      );
      refused = writes.length;
    } catch (error) {
      if (!onlyDuplicateKeys(error))
        throw toStoreError(error, `apply changes to ${writes.length} transactions from ${first.uetr}`);
      this.#stats.guardConflicts += 1;
      refused = firstWriteError(error);
    }
    for (const [at, write] of writes.entries()) {
      const counted = at === 0 ? 1 : 0;
      if (at < refused) {
        this.#positions.set(write.uetr, write.next);
        outcomes[write.index] = { ...write.outcome, writes: counted };
        settled(write.index);
        continue;
      }
      const item = work[write.index] as ChangeWork;
      const stored = await this.#readStored(write.uetr);
      const attemptsTaken =
        write.riding &&
        item.attempts.every((attempt) => stored.attempts.some((kept) => sameAttempt(kept, attempt)));
      const outcome = await this.#applyGroup(item.group as TransactionChangeGroup, item.attempts, {
        position: stored.position,
        riding: false,
        fromDatabase: true,
      });
      // Changes found there count as another writer's: on the local server, which names no position,
      // the writes this command made before the refusal count so too (they are read again; no harm).
      outcomes[write.index] = {
        ...outcome,
        writes: outcome.writes + counted,
        attemptsLeft: attemptsTaken ? [] : outcome.attemptsLeft,
      };
      settled(write.index);
    }
  }

  /**
   * A snapshot's position, and with `withAttempts` the delivery attempts it holds (after a refused
   * command). One read by `_id`.
   */
  async #readStored(
    uetr: string,
    withAttempts = true,
  ): Promise<{ position: SnapshotPosition; attempts: TransactionDeliveryAttempt[] }> {
    this.#stats.snapshotReads += 1;
    try {
      const document = await this.#collection.findOne(
        { _id: uetr },
        {
          projection: withAttempts
            ? { version: 1, lastSeq: 1, deliveryAttempts: 1 }
            : { version: 1, lastSeq: 1 },
          maxTimeMS: this.#options.limits.operationMaxTimeMs,
        },
      );
      return {
        position: { version: document?.version ?? 0, lastSeq: document?.lastSeq ?? 0 },
        attempts: document?.deliveryAttempts ?? [],
      };
    } catch (error) {
      throw toStoreError(error, `read position of transaction ${uetr}`);
    }
  }

  /**
   * One guarded write of a transaction's fresh changes, with its delivery attempts when the snapshot's
   * list has room for them. Attempts that could not ride along (no fresh change, or a guard conflict:
   * the list may be full) are handed back, to be pushed one by one.
   */
  async #applyGroup(
    group: TransactionChangeGroup,
    attempts: readonly TransactionDeliveryAttempt[],
    start: { position: SnapshotPosition; riding: boolean; fromDatabase?: boolean },
  ): Promise<GroupOutcome> {
    const { uetr, changes } = group;
    let position = start.position;
    let writes = 0;
    let riding = start.riding;
    for (let attempt = 1; attempt <= maxGuardAttempts; attempt += 1) {
      const plan = planWrite(group, position, riding ? attempts : [], this.#options);
      if (plan === undefined) {
        this.#positions.set(uetr, position);
        return {
          writes,
          applied: 0,
          skipped: changes.length,
          stale: writes > 0 || start.fromDatabase === true,
          attemptsLeft: [...attempts],
        };
      }
      try {
        writes += 1;
        this.#stats.snapshotWrites += 1;
        await this.#collection.updateOne(plan.filter as Filter<TransactionDocument>, plan.update, {
          upsert: true,
          maxTimeMS: this.#options.limits.operationMaxTimeMs,
        });
        this.#positions.set(uetr, plan.next);
        return {
          ...plan.outcome,
          writes,
          stale: plan.outcome.skipped > 0 && (writes > 1 || start.fromDatabase === true),
          attemptsLeft: plan.riding ? [] : [...attempts],
        };
      } catch (error) {
        if (!isDuplicateKey(error)) throw toStoreError(error, `apply changes to transaction ${uetr}`);
        this.#stats.guardConflicts += 1;
        // The version moved, or the attempts' list is full: the attempts go on their own after the changes.
        riding = false;
        position = await this.#readPosition(uetr);
      }
    }
    throw new StoreError(
      'inconsistent',
      `transaction ${uetr}: snapshot version kept moving under ${maxGuardAttempts} guarded writes`,
    );
  }

  /**
   * Position of a transaction this process has not seen lately. A batch that starts with the change
   * creating the transaction assumes a new snapshot and saves the read: if the snapshot exists after
   * all (a replay), the guarded write fails and the position is read then.
   */
  async #coldPosition(group: TransactionChangeGroup): Promise<SnapshotPosition> {
    const first = group.changes[0];
    if (first !== undefined && first.from === null) return { version: 0, lastSeq: 0 };
    return this.#readPosition(group.uetr);
  }

  async #readPosition(uetr: string): Promise<SnapshotPosition> {
    return (await this.#readStored(uetr, false)).position;
  }

  async get(uetr: string): Promise<TransactionSnapshot | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: uetr },
        { maxTimeMS: this.#options.limits.operationMaxTimeMs },
      );
      return document === null ? null : toSnapshot(document, this.#options.deliveryAttemptsKept);
    } catch (error) {
      throw toStoreError(error, `get transaction ${uetr}`);
    }
  }

  /** Newest first. Off the hot path: for the console and operators. */
  async search(query: TransactionSearch): Promise<TransactionSummary[]> {
    const filter: Filter<TransactionDocument> = {};
    if (query.endToEndIdentification !== undefined)
      filter.endToEndIdentification = query.endToEndIdentification;
    if (typeof query.state === 'string') filter.state = query.state;
    else if (query.state !== undefined) filter.state = { $in: [...query.state] };
    if (query.from !== undefined || query.to !== undefined) {
      filter.createdAt = {
        ...(query.from === undefined ? {} : { $gte: query.from }),
        ...(query.to === undefined ? {} : { $lt: query.to }),
      };
    }
    try {
      const documents = await this.#collection
        .find(filter, { projection: summaryProjection, maxTimeMS: this.#options.limits.queryMaxTimeMs })
        .sort({ createdAt: -1, _id: -1 })
        .limit(Math.min(Math.max(1, query.limit), maxSearchLimit))
        .toArray();
      return documents.map(toSummary);
    } catch (error) {
      throw toStoreError(error, 'search transactions');
    }
  }

  /**
   * Adds a delivery attempt; the snapshot shows the newest `deliveryAttemptsKept` (see pushBounded).
   * Creates the snapshot if the attempt arrives before the first state change has been projected.
   */
  async recordDeliveryAttempt(uetr: string, attempt: TransactionDeliveryAttempt): Promise<void> {
    await this.#writes.run(uetr, () => this.#pushAttempt(uetr, attempt));
  }

  #pushAttempt(uetr: string, attempt: TransactionDeliveryAttempt): Promise<void> {
    return pushBounded(this.#collection as unknown as Collection<Document>, {
      id: uetr,
      arrayField: 'deliveryAttempts',
      countField: 'deliveryAttemptCount',
      entry: attemptEntry(attempt),
      keep: this.#options.deliveryAttemptsKept,
      max: { updatedAt: attempt.at },
      setOnInsert: { version: 0, lastSeq: 0, createdAt: attempt.at },
      maxTimeMs: this.#options.limits.operationMaxTimeMs,
      operation: `record delivery attempt of transaction ${uetr}`,
    });
  }
}

/** Where an ordered bulk write stopped: the position of its first refused write. */
function firstWriteError(error: unknown): number {
  if (!(error instanceof MongoBulkWriteError)) return 0;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  const indexes = writeErrors
    .map((writeError) => writeError.index)
    .filter((index) => Number.isInteger(index));
  return indexes.length === 0 ? 0 : Math.min(...indexes);
}

function sameAttempt(stored: TransactionDeliveryAttempt, attempt: TransactionDeliveryAttempt): boolean {
  return (
    stored.at.getTime() === attempt.at.getTime() &&
    stored.messageIdentification === attempt.messageIdentification &&
    stored.memberId === attempt.memberId &&
    stored.endpoint === attempt.endpoint &&
    stored.httpStatus === attempt.httpStatus &&
    stored.latencyMs === attempt.latencyMs &&
    stored.outcome === attempt.outcome
  );
}

function historyEntry(change: TransactionStateChange): TransactionHistoryEntry {
  return {
    eventId: change.eventId,
    seq: change.seq,
    from: change.from,
    to: change.to,
    eventType: change.eventType,
    at: change.at,
    service: change.service,
  };
}

function messageEntry(message: TransactionMessage): TransactionMessage {
  return {
    kind: message.kind,
    messageIdentification: message.messageIdentification,
    at: message.at,
    bodyJson: message.bodyJson,
  };
}

function attemptEntry(attempt: TransactionDeliveryAttempt): TransactionDeliveryAttempt {
  return {
    at: attempt.at,
    messageIdentification: attempt.messageIdentification,
    memberId: attempt.memberId,
    endpoint: attempt.endpoint,
    httpStatus: attempt.httpStatus,
    latencyMs: attempt.latencyMs,
    outcome: attempt.outcome,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
  };
}

/**
 * The one write that takes a snapshot from its current position to `next` with the `fresh` changes,
 * and the delivery attempts that ride along.
 */
function snapshotUpdate(
  fresh: readonly TransactionStateChange[],
  next: SnapshotPosition,
  attempts: readonly TransactionDeliveryAttempt[],
): UpdateFilter<TransactionDocument> {
  const first = fresh[0] as TransactionStateChange;
  const last = fresh[fresh.length - 1] as TransactionStateChange;
  const set: Document = {
    state: last.to,
    version: next.version,
    lastSeq: next.lastSeq,
    lastEventId: last.eventId,
  };
  for (const change of fresh) {
    if (change.endToEndIdentification !== undefined)
      set.endToEndIdentification = change.endToEndIdentification;
    if (change.debtorAgentMemberId !== undefined) set.debtorAgentMemberId = change.debtorAgentMemberId;
    if (change.creditorAgentMemberId !== undefined) set.creditorAgentMemberId = change.creditorAgentMemberId;
  }
  const push: Document = { history: { $each: fresh.map(historyEntry) } };
  const messages = fresh.flatMap((change) =>
    change.message === undefined ? [] : [messageEntry(change.message)],
  );
  if (messages.length > 0) push.messages = { $each: messages };
  let updatedAt = last.at;
  for (const attempt of attempts) if (attempt.at > updatedAt) updatedAt = attempt.at;
  if (attempts.length === 0) {
    return {
      $set: set,
      $push: push,
      $max: { updatedAt },
      $setOnInsert: { createdAt: first.at, deliveryAttemptCount: 0 },
    } as UpdateFilter<TransactionDocument>;
  }
  push.deliveryAttempts = { $each: attempts };
  return {
    $set: set,
    $push: push,
    $inc: { deliveryAttemptCount: attempts.length },
    $max: { updatedAt },
    $setOnInsert: { createdAt: first.at },
  } as UpdateFilter<TransactionDocument>;
}

function toSummary(document: TransactionDocument): TransactionSummary {
  return {
    uetr: document._id,
    state: document.state ?? null,
    version: document.version ?? 0,
    lastSeq: document.lastSeq ?? 0,
    ...(document.endToEndIdentification === undefined
      ? {}
      : { endToEndIdentification: document.endToEndIdentification }),
    ...(document.debtorAgentMemberId === undefined
      ? {}
      : { debtorAgentMemberId: document.debtorAgentMemberId }),
    ...(document.creditorAgentMemberId === undefined
      ? {}
      : { creditorAgentMemberId: document.creditorAgentMemberId }),
    deliveryAttemptCount: document.deliveryAttemptCount ?? 0,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
  };
}

function toSnapshot(document: TransactionDocument, attemptsKept: number): TransactionSnapshot {
  return {
    ...toSummary(document),
    history: document.history ?? [],
    messages: document.messages ?? [],
    deliveryAttempts: (document.deliveryAttempts ?? []).slice(-attemptsKept),
  };
}

export type { TransactionDocument };
