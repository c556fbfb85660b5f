import { createHash } from 'node:crypto';
import { Binary, BSON, type Collection } from 'mongodb';
import type {
  EventDeliveryAttempt,
  EventDeliveryLog,
  EventDeliveryOutcome,
  EventDeliveryRecord,
  EventPostingSource,
} from './delivery-log.ts';
import { onlyDuplicateKeys, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

/** One posting's first attempt, final at once, as a batch document holds it. */
export interface BatchedAttempt {
  eventId: string;
  uetr: string;
  eventType: string;
  source?: EventPostingSource;
  outcome: Exclude<EventDeliveryOutcome, 'pending'>;
  attempt: EventDeliveryAttempt;
}

/**
 * The first attempts of many postings to one bank, each final at once (delivered, or refused for good):
 * what the event publisher logs for nearly every posting. One document holds a few dozen, so the log
 * costs the server a document per few dozen postings instead of one each. A batch is never changed; it
 * goes whole when its retention ends. Its entries are one BSON document in a binary field, as MongoDB's
 * own time-series buckets keep theirs: the fields the reads select by are top-level, and the local
 * stand-in converts every field of a document it stores one by one (measured: the entries as fields cost
 * it two to three times what the same entries as one binary do).
 */
export interface DeliveryBatchDocument {
  /** A hash of the bank and its entries: the same batch written again is the same document. */
  _id: string;
  memberId: string;
  /** The earliest production time of its entries (their attempt's time where one has no source). */
  producedFrom: Date;
  /** The latest attempt: all of them are final, so the batch changes no more after it. */
  updatedAt: Date;
  /** Its entries' event ids and (distinct) UETRs, indexed (multikey) for the reads by each. */
  eventIds: string[];
  uetrs: string[];
  /** BSON of `{ entries: BatchedAttempt[] }`, in the order they were recorded (`entriesOfBatch`). */
  entries: Binary;
}

/** A batch's entries, decoded. */
export function entriesOfBatch(batch: Pick<DeliveryBatchDocument, 'entries'>): BatchedAttempt[] {
  const bytes = batch.entries.read(0, batch.entries.length());
  return (BSON.deserialize(bytes) as { entries: BatchedAttempt[] }).entries;
}

/**
 * Entries of one batch span less than this of production time, so that a replay of a time range finds
 * every batch that may hold one of its postings among those that start at most this much before it.
 */
export const batchSpanMs = 60_000;
/**
 * Bytes of event ids, and of UETRs, one batch holds at most (with 8 a key for the array's own overhead).
 * The local stand-in keeps an index on an array field as one btree key of the whole array, and refuses a
 * key over 2,704 bytes; MongoDB indexes each element. About 50 postings a batch, past which the measured
 * cost a posting no longer falls.
 */
const maxKeyBytes = 2_400;

/** The records that a batch can take: first attempts with a final outcome. */
export function isBatchable(
  record: EventDeliveryRecord,
): record is EventDeliveryRecord & { outcome: BatchedAttempt['outcome'] } {
  return record.outcome !== 'pending';
}

/**
 * Groups records into batch documents: per bank and span of production time, in the order given, each
 * under `maxKeyBytes` of event ids and of UETRs.
 */
export function toBatches(records: readonly EventDeliveryRecord[]): DeliveryBatchDocument[] {
  const groups = new Map<string, EventDeliveryRecord[]>();
  for (const record of records) {
    const key = `${record.posting.memberId}\u0000${Math.floor(timeOf(record).getTime() / batchSpanMs)}`;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const batches: DeliveryBatchDocument[] = [];
  for (const group of groups.values()) {
    let part: EventDeliveryRecord[] = [];
    let idBytes = 0;
    let uetrs = new Set<string>();
    let uetrBytes = 0;
    for (const record of group) {
      const idCost = Buffer.byteLength(record.posting.eventId) + 8;
      const fullUetrCost = Buffer.byteLength(record.posting.uetr) + 8;
      let uetrCost = uetrs.has(record.posting.uetr) ? 0 : fullUetrCost;
      if (part.length > 0 && (idBytes + idCost > maxKeyBytes || uetrBytes + uetrCost > maxKeyBytes)) {
        batches.push(batchOf(part));
        part = [];
        idBytes = 0;
        uetrs = new Set();
        uetrBytes = 0;
        // The new batch has not met this UETR yet.
        uetrCost = fullUetrCost;
      }
      part.push(record);
      idBytes += idCost;
      uetrBytes += uetrCost;
      uetrs.add(record.posting.uetr);
    }
    if (part.length > 0) batches.push(batchOf(part));
  }
  return batches;
}

function timeOf(record: EventDeliveryRecord): Date {
  return record.posting.source?.producedAt ?? record.attempt.at;
}

function batchOf(records: readonly EventDeliveryRecord[]): DeliveryBatchDocument {
  const memberId = (records[0] as EventDeliveryRecord).posting.memberId;
  const hash = createHash('sha256').update(memberId);
  let producedFrom = timeOf(records[0] as EventDeliveryRecord);
  let updatedAt = (records[0] as EventDeliveryRecord).attempt.at;
  const entries = records.map((record) => {
    const { posting, attempt } = record;
    hash.update(`\u0000${posting.eventId}\u0000${attemptKey(attempt)}`);
    if (timeOf(record) < producedFrom) producedFrom = timeOf(record);
    if (attempt.at > updatedAt) updatedAt = attempt.at;
    return {
      eventId: posting.eventId,
      uetr: posting.uetr,
      eventType: posting.eventType,
      ...(posting.source === undefined ? {} : { source: postingSourceOf(posting.source) }),
      outcome: record.outcome as BatchedAttempt['outcome'],
      attempt: attemptEntry(attempt),
    };
  });
  return {
    _id: hash.digest('base64url').slice(0, 32),
    memberId,
    producedFrom,
    updatedAt,
    eventIds: entries.map((entry) => entry.eventId),
    uetrs: [...new Set(entries.map((entry) => entry.uetr))],
    entries: new Binary(BSON.serialize({ entries }, { ignoreUndefined: true })),
  };
}

/**
 * Inserts batches, unordered; a batch that is there already (the same records written again after a
 * write that failed part way) is left as it is.
 */
export async function insertBatches(
  collection: Collection<DeliveryBatchDocument>,
  batches: readonly DeliveryBatchDocument[],
  limits: StoreLimits,
): Promise<void> {
  if (batches.length === 0) return;
  const operation = `record the first delivery attempts of ${batches.reduce((sum, batch) => sum + batch.eventIds.length, 0)} postings`;
  try {
    await collection.insertMany([...batches], { ordered: false, maxTimeMS: limits.operationMaxTimeMs });
  } catch (error) {
    if (!onlyDuplicateKeys(error)) throw toStoreError(error, operation);
  }
}

/** A batched first attempt with the bank its batch is for. */
export interface BatchedAttemptOf extends BatchedAttempt {
  memberId: string;
}

/** The entries of `batches` that `keep` takes, each with its batch's bank. */
export function entriesOf(
  batches: readonly DeliveryBatchDocument[],
  keep: (entry: BatchedAttempt) => boolean,
): BatchedAttemptOf[] {
  return batches.flatMap((batch) =>
    entriesOfBatch(batch)
      .filter(keep)
      .map((entry) => ({ ...entry, memberId: batch.memberId })),
  );
}

/**
 * One posting's log: its own entry (its retries, a replay's attempts, an outcome without an attempt) and
 * its batched first attempts, as one. An attempt is known by its time, answer and latency, so one written
 * twice counts once; the outcome is that of the latest attempt or outcome (a batched attempt wins a tie:
 * a posting's entry is made when its first attempt was not final, so the batched one came after it).
 */
export function fold(
  single: EventDeliveryLog | undefined,
  batched: readonly BatchedAttemptOf[],
  attemptsKept: number,
): EventDeliveryLog | undefined {
  const first = batched[0];
  if (single === undefined && first === undefined) return undefined;
  const attempts = new Map<string, EventDeliveryAttempt>();
  for (const attempt of single?.attempts ?? []) attempts.set(attemptKey(attempt), attempt);
  const base = single ?? (first as BatchedAttemptOf);
  let attemptCount = single?.attemptCount ?? 0;
  let outcome = single?.outcome;
  let createdAt = single?.createdAt;
  let updatedAt = single?.updatedAt;
  let completedAt = single?.completedAt;
  let source = single?.source;
  for (const entry of batched) {
    const key = attemptKey(entry.attempt);
    if (attempts.has(key)) continue;
    attempts.set(key, entry.attempt);
    attemptCount += 1;
    const at = entry.attempt.at;
    if (createdAt === undefined || at < createdAt) createdAt = at;
    if (updatedAt === undefined || at >= updatedAt) {
      updatedAt = at;
      outcome = entry.outcome;
      completedAt = at;
    }
    source ??= entry.source;
  }
  return {
    eventId: base.eventId,
    uetr: base.uetr,
    memberId: base.memberId,
    eventType: base.eventType,
    ...(source === undefined ? {} : { source }),
    outcome: outcome as EventDeliveryOutcome,
    attempts: [...attempts.values()]
      .sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime())
      .slice(-attemptsKept),
    attemptCount,
    createdAt: createdAt as Date,
    updatedAt: updatedAt as Date,
    ...(completedAt === undefined || outcome === 'pending' ? {} : { completedAt }),
  };
}

/** Folds each posting's entry and batched attempts (postings in either), in no particular order. */
export function foldAll(
  singles: readonly EventDeliveryLog[],
  batched: readonly BatchedAttemptOf[],
  attemptsKept: number,
): EventDeliveryLog[] {
  const byId = new Map<string, { single?: EventDeliveryLog; batched: BatchedAttemptOf[] }>();
  for (const single of singles) byId.set(single.eventId, { single, batched: [] });
  for (const entry of batched) {
    const known = byId.get(entry.eventId);
    if (known) known.batched.push(entry);
    else byId.set(entry.eventId, { batched: [entry] });
  }
  return [...byId.values()].flatMap(({ single, batched: ofPosting }) => {
    const log = fold(single, ofPosting, attemptsKept);
    return log === undefined ? [] : [log];
  });
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

export function attemptKey(attempt: EventDeliveryAttempt): string {
  return `${new Date(attempt.at).getTime()}|${attempt.httpStatus}|${attempt.latencyMs}`;
}

export function attemptEntry(attempt: EventDeliveryAttempt): EventDeliveryAttempt {
  return {
    at: attempt.at,
    httpStatus: attempt.httpStatus,
    latencyMs: attempt.latencyMs,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
  };
}
