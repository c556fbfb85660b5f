import {
  type Direction,
  isFinalState,
  type KnownEventType,
  nextState,
  type TransactionEventType,
  type TransactionState,
  type TransactionStateChanged,
  transactionEventTypes,
} from '@rp/contracts';
import { stateEventId } from '@rp/pipeline';
import type { TransactionSnapshot } from '@rp/store';
import { directionOf } from './postings.ts';

/**
 * What the tracker knows of one transaction: enough to sequence its next change without a read. Up to
 * `TRACKER_CACHE_SIZE` of them stay in memory, so it is kept small: a bit for each change applied and the
 * snapshot's messages as their ids. A completed debit keeps under 0.7 kB of heap, where sets of event ids
 * and message keys took 4.4 kB (the bench's "heap a completed debit keeps in the tracker's cache").
 */
export interface TrackedTransaction {
  readonly uetr: string;
  /** The state-topic partition the transaction lives on (its cache entry belongs to that partition). */
  readonly partition: number;
  /** Undefined until the first change. */
  readonly state: TransactionState | undefined;
  /** Sequence of the last change applied; 0 before the first. */
  readonly sequence: number;
  /**
   * The event types applied, a bit each (`eventTypeBits`). A change's event id is its transaction's and
   * its event type's (`stateEventId`), and the transition table has no cycles, so the type says whether
   * the change was applied before.
   */
  readonly applied: number;
  /**
   * Event types applied that have no bit, kept by name: those a snapshot records that this tracker does
   * not know (a later version's), and any known type past the 31 bits. Seldom any.
   */
  readonly appliedByName?: ReadonlySet<string>;
  /** The messages the snapshot holds: each one's kind and its messageIdentification, in turn. */
  readonly messages: readonly string[];
  /** Direction of the last stage (for a stage that keeps the direction the transaction was in). */
  readonly direction: Direction | undefined;
  /**
   * Taken as new on its first change without reading its snapshot (see `startsTransaction` in app.ts): a
   * change this state refuses may be the tracker's ignorance rather than the change's fault.
   */
  readonly assumed?: true;
}

export function newTransaction(uetr: string, partition: number): TrackedTransaction {
  return {
    uetr,
    partition,
    state: undefined,
    sequence: 0,
    applied: 0,
    messages: [],
    direction: undefined,
  };
}

const knownEventType = (type: string): type is KnownEventType => Object.hasOwn(transactionEventTypes, type);

/** The known event types' bits in `TrackedTransaction.applied`: the first 31 (21 today) have one. */
const eventTypeBits: ReadonlyMap<string, number> = new Map(
  Object.keys(transactionEventTypes)
    .slice(0, 31)
    .map((type, index) => [type, 1 << index]),
);

/** Whether a change of this event type was applied to the transaction. */
export function hasApplied(transaction: TrackedTransaction, eventType: string): boolean {
  const bit = eventTypeBits.get(eventType);
  if (bit !== undefined) return (transaction.applied & bit) !== 0;
  return transaction.appliedByName?.has(eventType) === true;
}

type Applied = Pick<TrackedTransaction, 'applied' | 'appliedByName'>;

/** What a transaction keeps of the changes applied, with one more. */
function withApplied(transaction: Applied, eventType: string): Applied {
  const bit = eventTypeBits.get(eventType);
  if (bit !== undefined) {
    const { applied, appliedByName } = transaction;
    return { applied: applied | bit, ...(appliedByName === undefined ? {} : { appliedByName }) };
  }
  return {
    applied: transaction.applied,
    appliedByName: new Set([...(transaction.appliedByName ?? []), eventType]),
  };
}

/** Whether the snapshot holds this message. */
export function knowsMessage(
  transaction: TrackedTransaction,
  kind: string,
  messageIdentification: string,
): boolean {
  const { messages } = transaction;
  for (let index = 0; index < messages.length; index += 2) {
    if (messages[index] === kind && messages[index + 1] === messageIdentification) return true;
  }
  return false;
}

/** The transaction with one more message in its snapshot. */
export function withMessage(
  transaction: TrackedTransaction,
  kind: string,
  messageIdentification: string,
): TrackedTransaction {
  if (knowsMessage(transaction, kind, messageIdentification)) return transaction;
  return { ...transaction, messages: [...transaction.messages, kind, messageIdentification] };
}

/** The tracker's view of a transaction from its snapshot (a cache miss). */
export function fromSnapshot(
  snapshot: TransactionSnapshot | null,
  uetr: string,
  partition: number,
): TrackedTransaction {
  if (snapshot === null || snapshot.state === null) return newTransaction(uetr, partition);
  let direction: Direction | undefined;
  let applied: Applied = { applied: 0 };
  for (const entry of snapshot.history) {
    applied = withApplied(applied, entry.eventType);
    if (knownEventType(entry.eventType)) direction = directionOf(entry.eventType, direction);
  }
  return {
    uetr,
    partition,
    state: snapshot.state as TransactionState,
    sequence: snapshot.lastSeq,
    ...applied,
    messages: snapshot.messages.flatMap((message) => [message.kind, message.messageIdentification]),
    direction,
  };
}

export type Decision =
  | {
      kind: 'apply';
      eventId: string;
      eventType: KnownEventType;
      sequence: number;
      fromState: TransactionState | undefined;
      toState: TransactionState;
      direction: Direction;
      /** The transaction after the change. */
      next: TrackedTransaction;
    }
  /** The change was applied before (a re-emitted or redelivered record): dropped. */
  | { kind: 'repeat'; eventId: string }
  /** A bank's report on a transaction already final (reconciled, or answered before): left alone. */
  | { kind: 'late'; eventId: string; state: TransactionState }
  /** The transition is not allowed from the tracker's state. */
  | { kind: 'refuse'; eventId: string; reason: string };

/**
 * Sequences one change against the tracker's state, which is the truth: the emitter's fromState may
 * differ (a bank's report can overtake the engine's record of the bank's 202).
 */
export function decide(current: TrackedTransaction, change: TransactionStateChanged): Decision {
  const eventId = stateEventId(change.uetr, change.eventType);
  if (hasApplied(current, change.eventType)) return { kind: 'repeat', eventId };
  // A bank may report on a transaction that ended meanwhile (the reconciliation window closed on it, or
  // another report of it came first): nothing leaves a final state, and nothing is wrong either.
  if (
    current.state !== undefined &&
    isFinalState(current.state) &&
    change.causedBy.messageType === 'PaymentStatusReport'
  ) {
    return { kind: 'late', eventId, state: current.state };
  }
  const eventType: TransactionEventType = change.eventType;
  if (!knownEventType(eventType)) {
    return { kind: 'refuse', eventId, reason: `event type ${eventType} is unknown to this tracker` };
  }
  let toState: TransactionState;
  try {
    toState = nextState(current.state, eventType);
  } catch {
    return {
      kind: 'refuse',
      eventId,
      reason: `${eventType} is not allowed from ${current.state ?? 'no state'}${
        change.fromState !== undefined && change.fromState !== current.state
          ? ` (the emitter saw ${change.fromState})`
          : ''
      }`,
    };
  }
  const sequence = current.sequence + 1;
  const direction = directionOf(eventType, current.direction);
  return {
    kind: 'apply',
    eventId,
    eventType,
    sequence,
    fromState: current.state,
    toState,
    direction,
    next: {
      ...current,
      state: toState,
      sequence,
      ...withApplied(current, eventType),
      direction,
    },
  };
}

/**
 * A bank's report on a message proves the message reached the bank. When the report is recorded before
 * the dispatcher's record of the bank's 202 (a bank that answers at once; two services on one
 * partition), the delivery is applied first, by the tracker, so that every journey shows the same stages
 * in the same order. The dispatcher's own record arrives later with the same event id (ids are per UETR
 * and event type) and is dropped as a repeat.
 */
const impliedDeliveries: Readonly<
  Partial<Record<string, { readonly from: TransactionState; readonly implied: KnownEventType }>>
> = {
  DEBIT_RESPONSE_ACCEPTED: { from: 'DEBIT_DELIVERY_PENDING', implied: 'DEBIT_DELIVERED' },
  CREDIT_AUTH_RESPONSE_ACCEPTED: { from: 'CREDIT_AUTH_DELIVERY_PENDING', implied: 'CREDIT_AUTH_DELIVERED' },
};

/** The changes to apply for one record: the record's, preceded by the delivery it implies (see above). */
export function withImpliedDelivery<C extends TransactionStateChanged>(
  current: TrackedTransaction,
  change: C,
): C[] {
  const rule = impliedDeliveries[change.eventType];
  if (rule === undefined || current.state !== rule.from) return [change];
  const { statusReport: _report, ...withoutReport } = change;
  const implied = {
    ...withoutReport,
    eventType: rule.implied,
    fromState: rule.from,
    toState: nextState(rule.from, rule.implied),
    emittedBy: 'tracker',
  } as C;
  return [implied, change];
}

export function isFinal(transaction: TrackedTransaction): boolean {
  return transaction.state !== undefined && isFinalState(transaction.state);
}

/**
 * The tracked transactions, bounded: when full, the least recently used transaction in a final state
 * is forgotten first (it will most likely never change again), then the least recently used open one.
 * A forgotten transaction is read from its snapshot on its next change.
 */
export class TransactionCache {
  readonly #capacity: number;
  readonly #open = new Map<string, TrackedTransaction>();
  readonly #final = new Map<string, TrackedTransaction>();
  #evictions = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError('cache capacity must be at least 1');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#open.size + this.#final.size;
  }

  get evictions(): number {
    return this.#evictions;
  }

  get(uetr: string): TrackedTransaction | undefined {
    const entry = this.#open.get(uetr) ?? this.#final.get(uetr);
    if (entry) this.set(entry);
    return entry;
  }

  /** Stores (or refreshes) a transaction as the most recently used. */
  set(transaction: TrackedTransaction): void {
    this.#open.delete(transaction.uetr);
    this.#final.delete(transaction.uetr);
    (isFinal(transaction) ? this.#final : this.#open).set(transaction.uetr, transaction);
    while (this.size > this.#capacity) {
      const victims = this.#final.size > 0 ? this.#final : this.#open;
      const oldest = victims.keys().next();
      if (oldest.done) break;
      victims.delete(oldest.value);
      this.#evictions += 1;
    }
  }

  delete(uetr: string): void {
    this.#open.delete(uetr);
    this.#final.delete(uetr);
  }

  /** Forgets every transaction of a partition (its owner may have changed it meanwhile). */
  dropPartition(partition: number): number {
    let dropped = 0;
    for (const map of [this.#open, this.#final]) {
      for (const [uetr, entry] of map) {
        if (entry.partition === partition) {
          map.delete(uetr);
          dropped += 1;
        }
      }
    }
    return dropped;
  }

  clear(): void {
    this.#open.clear();
    this.#final.clear();
  }
}

/**
 * Tells whether a partition's cached transactions can still be trusted when a batch arrives. The
 * consumer runner does not report revocations, so the tracker reads them off the offsets: a batch that
 * starts right after the last offset this process handled proves that nobody handled records of the
 * partition in between, and the cache is current. Any other start (the partition was away and came
 * back, a restart, records re-delivered after a failed commit) drops the partition's entries, and they
 * are read again from their snapshots. Only records read from the source topic count; records from the
 * retry tiers carry their original offsets and belong to transactions whose entries were dropped when
 * they failed.
 */
export class PartitionPositions {
  readonly #next = new Map<number, bigint>();

  /** True when the batch continues where this process left the partition. */
  continues(partition: number, firstOffset: string): boolean {
    return this.#next.get(partition) === BigInt(firstOffset);
  }

  handled(partition: number, lastOffset: string): void {
    this.#next.set(partition, BigInt(lastOffset) + 1n);
  }

  forget(partition: number): void {
    this.#next.delete(partition);
  }
}
