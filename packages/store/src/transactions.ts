import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { pushBounded } from './bounded-list.ts';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';
import { KeyedSerial } from './keyed-serial.ts';
import { mapBounded, type StoreLimits } from './limits.ts';
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
  /** Snapshot writes sent (at most one per transaction, plus one per guard conflict). */
  writes: number;
  changesApplied: number;
  /** Changes already in their snapshot: redelivered or stale. */
  changesSkipped: number;
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
   * Applies a batch of state changes: one guarded write per transaction, at most
   * `limits.writeConcurrency` in flight. Safe to call again with the same batch.
   *
   * `attempts` (delivery attempts by UETR, in order) ride in the same write as their transaction's
   * changes; a transaction with attempts and no fresh change gets them as `recordDeliveryAttempt` would,
   * one write each. The attempts are not idempotent: the caller hands each over once.
   */
  async applyChanges(
    changes: readonly TransactionStateChange[],
    attempts: ReadonlyMap<string, readonly TransactionDeliveryAttempt[]> = new Map(),
  ): Promise<ApplyChangesResult> {
    const groups = groupChangesByTransaction(changes);
    const work: { uetr: string; group?: TransactionChangeGroup; attempts: TransactionDeliveryAttempt[] }[] =
      groups.map((group) => ({ uetr: group.uetr, group, attempts: [...(attempts.get(group.uetr) ?? [])] }));
    for (const [uetr, list] of attempts) {
      if (list.length > 0 && !groups.some((group) => group.uetr === uetr))
        work.push({ uetr, attempts: [...list] });
    }
    const outcomes = await mapBounded(work, this.#options.limits.writeConcurrency, (item) =>
      this.#writes.run(item.uetr, async () => {
        const outcome = item.group
          ? await this.#applyGroup(item.group, item.attempts)
          : { writes: 0, applied: 0, skipped: 0, attemptsLeft: item.attempts };
        for (const attempt of outcome.attemptsLeft) {
          outcome.writes += 1;
          await this.#pushAttempt(item.uetr, attempt);
        }
        return outcome;
      }),
    );
    const result: ApplyChangesResult = {
      transactions: groups.length,
      writes: 0,
      changesApplied: 0,
      changesSkipped: 0,
    };
    for (const outcome of outcomes) {
      result.writes += outcome.writes;
      result.changesApplied += outcome.applied;
      result.changesSkipped += outcome.skipped;
    }
    this.#stats.changesApplied += result.changesApplied;
    this.#stats.changesSkipped += result.changesSkipped;
    return result;
  }

  /**
   * One guarded write of a transaction's fresh changes, with its delivery attempts when the snapshot's
   * list has room for them. Attempts that could not ride along (no fresh change, or a guard conflict:
   * the list may be full) are handed back, to be pushed one by one.
   */
  async #applyGroup(
    group: TransactionChangeGroup,
    attempts: readonly TransactionDeliveryAttempt[],
  ): Promise<{
    writes: number;
    applied: number;
    skipped: number;
    attemptsLeft: TransactionDeliveryAttempt[];
  }> {
    const { uetr, changes } = group;
    let position = this.#positions.get(uetr) ?? (await this.#coldPosition(group));
    let writes = 0;
    let riding = attempts.length > 0 && attempts.length <= this.#options.deliveryAttemptsKept;
    for (let attempt = 1; attempt <= maxGuardAttempts; attempt += 1) {
      const fresh = changes.filter((change) => change.seq > position.lastSeq);
      if (fresh.length === 0) {
        this.#positions.set(uetr, position);
        return { writes, applied: 0, skipped: changes.length, attemptsLeft: [...attempts] };
      }
      const next: SnapshotPosition = {
        version: position.version + fresh.length,
        lastSeq: (fresh[fresh.length - 1] as TransactionStateChange).seq,
      };
      const filter: Document = { _id: uetr, version: position.version };
      // Room for the attempts in the bounded list (see pushBounded: it holds at most twice what is kept).
      if (riding)
        filter[`deliveryAttempts.${2 * this.#options.deliveryAttemptsKept - attempts.length}`] = {
          $exists: false,
        };
      try {
        writes += 1;
        this.#stats.snapshotWrites += 1;
        await this.#collection.updateOne(
          filter as Filter<TransactionDocument>,
          snapshotUpdate(fresh, next, riding ? attempts.map(attemptEntry) : []),
          {
            upsert: true,
            maxTimeMS: this.#options.limits.operationMaxTimeMs,
          },
        );
        this.#positions.set(uetr, next);
        return {
          writes,
          applied: fresh.length,
          skipped: changes.length - fresh.length,
          attemptsLeft: riding ? [] : [...attempts],
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
    this.#stats.snapshotReads += 1;
    try {
      const document = await this.#collection.findOne(
        { _id: uetr },
        { projection: { version: 1, lastSeq: 1 }, maxTimeMS: this.#options.limits.operationMaxTimeMs },
      );
      return { version: document?.version ?? 0, lastSeq: document?.lastSeq ?? 0 };
    } catch (error) {
      throw toStoreError(error, `read position of transaction ${uetr}`);
    }
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

  /** Transactions with this end-to-end identification (banks choose it, so it need not be unique). */
  async findByEndToEndId(endToEndIdentification: string, limit = 20): Promise<TransactionSnapshot[]> {
    try {
      const documents = await this.#collection
        .find({ endToEndIdentification }, { maxTimeMS: this.#options.limits.queryMaxTimeMs })
        .limit(Math.min(Math.max(1, limit), maxSearchLimit))
        .toArray();
      return documents.map((document) => toSnapshot(document, this.#options.deliveryAttemptsKept));
    } catch (error) {
      throw toStoreError(error, 'find transactions by end-to-end identification');
    }
  }

  /** Newest first. Off the hot path: for the console and operators. */
  async search(query: TransactionSearch): Promise<TransactionSummary[]> {
    const filter: Filter<TransactionDocument> = {};
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
