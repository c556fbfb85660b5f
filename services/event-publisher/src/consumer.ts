import type { EventPosting } from '@rp/contracts';
import type { BatchHandler, ConsumedRecord } from '@rp/kafka';
import { AppError, type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { EventPostingSource, TransactionRepository } from '@rp/store';
import type { BankGates } from './bank-gate.ts';
import type { Delivery, DeliveryRecords } from './delivery.ts';
import type { DeliveryStore, LaneEntry, LaneKey, StoredPosting } from './delivery-store.ts';
import type { FirstAttemptLog } from './first-attempts.ts';
import type { LaneIndex } from './lane-index.ts';
import type { PublisherMetrics } from './metrics.ts';
import type { Parking } from './parking.ts';
import { describePosting, laneId, type OutgoingPosting } from './postings.ts';
import type { Subscriber, Subscriptions, TransactionBanks } from './subscribers.ts';

export interface PostingHandlerDeps {
  readonly store: Pick<DeliveryStore, 'savePostings'>;
  /** Where the delivery log records of postings sent at once wait for the consumer's next commit. */
  readonly firstAttempts: Pick<FirstAttemptLog, 'add' | 'whenRoom' | 'size'>;
  readonly transactions: Pick<TransactionRepository, 'get'>;
  readonly subscriptions: Subscriptions;
  readonly transactionBanks: TransactionBanks;
  readonly index: LaneIndex;
  readonly parking: Parking;
  readonly delivery: Delivery;
  readonly gates: BankGates;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: PublisherMetrics;
  /** (bank, transaction) lanes of one batch worked at the same time. */
  readonly laneConcurrency: number;
  /** Snapshot reads in flight for ESM_STATE postings whose banks are not cached. */
  readonly readConcurrency: number;
  /**
   * How long a batch sends directly. Postings not sent by then are queued in their lanes for the worker,
   * so that a bank that answers, but slowly, delays the other banks' postings on its partition by this
   * much at most.
   */
  readonly directBudgetMs: number;
}

/** One record of the batch, with what it means. */
interface Item {
  readonly index: number;
  readonly record: ConsumedRecord<EventPosting>;
  readonly posting: OutgoingPosting;
  /** Where it was read from, for its delivery log entries. */
  readonly source: EventPostingSource;
  subscribers: Subscriber[];
}

interface BatchLane {
  readonly key: LaneKey;
  readonly subscriber: Subscriber;
  readonly items: Item[];
  /** The delivery log records of `items[0..records.length)`, each ended by its attempt. */
  readonly records: DeliveryRecords;
  /** Where the lane stopped sending: `items[from..]` go to the lane in MongoDB. */
  park?: { readonly from: number; readonly failedHead?: { error: string; retryAfterMs?: number } };
}

/**
 * Whether a batch continues right after what this process last handled on a partition. When it does
 * not (a start, a partition coming back after a rebalance, records re-delivered after a failure), the
 * lanes parked on the partition are read from MongoDB before anything is sent: another process may have
 * parked some.
 */
export class PartitionPositions {
  readonly #last = new Map<string, bigint>();

  continues(topic: string, partition: number, offset: string): boolean {
    const last = this.#last.get(`${topic}/${partition}`);
    return last !== undefined && BigInt(offset) === last + 1n;
  }

  handled(topic: string, partition: number, offset: string): void {
    this.#last.set(`${topic}/${partition}`, BigInt(offset));
  }

  forget(topic: string, partition: number): void {
    this.#last.delete(`${topic}/${partition}`);
  }
}

async function mapBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/**
 * The handler of rp.events.v1. Per batch of one partition:
 *
 * 1. Each posting's subscribed banks: the transaction's agents (from the TRANSACTION_STATE posting, or
 *    for an ESM_STATE posting the cache or the snapshot) that take the class and have an events URL.
 * 2. Per (bank, transaction) lane, in offset order: while the lane is not parked and the bank not
 *    paused, each posting is sent; the first that fails with a retryable answer is to open the lane as
 *    its head, with the lane's later postings behind it. A lane already parked only queues. Lanes run
 *    side by side; other transactions never wait for a parked one. Past the batch's sending budget,
 *    what is left is queued rather than sent.
 * 3. The delivery log records of the postings whose delivery ended (delivered, refused for good) are
 *    written behind (`FirstAttemptLog`): many batches' in one insert command, before the consumer
 *    commits their offsets. Each names the record it came from (topic, partition, offset): a replay
 *    reads the posting again from there.
 * 4. The postings that are to wait are stored with their bodies (one insert for the batch), and then
 *    their lanes are parked in MongoDB. A posting sent at once is not stored: the topic holds it.
 * 5. The batch is handled once every posting is delivered, failed for good, or durably queued: the
 *    offsets are committed once the delivery log records are written, and nothing is held only in memory
 *    by then.
 *
 * A MongoDB failure in storing or parking fails the postings it concerns and the transaction's later
 * ones in the batch (the consumer's retry tiers bring them back in order; nothing of them was parked);
 * the bank may then see a posting twice. A delivery log write that fails is tried again before the next
 * commit; while too many records wait for it, the consumer waits too.
 */
export function createPostingHandler(deps: PostingHandlerDeps): BatchHandler<EventPosting> {
  const { metrics, logger } = deps;
  const positions = new PartitionPositions();

  async function banksOf(items: readonly Item[]): Promise<Map<string, readonly string[] | null>> {
    const banks = new Map<string, readonly string[] | null>();
    const missing: string[] = [];
    for (const item of items) {
      const { uetr, involvedBanks } = item.posting;
      if (involvedBanks) {
        deps.transactionBanks.set(uetr, involvedBanks);
        banks.set(uetr, involvedBanks);
        continue;
      }
      if (banks.has(uetr)) continue;
      const cached = deps.transactionBanks.get(uetr);
      if (cached) banks.set(uetr, cached);
      else {
        banks.set(uetr, null);
        missing.push(uetr);
      }
    }
    await mapBounded(missing, deps.readConcurrency, async (uetr) => {
      const snapshot = await deps.transactions.get(uetr);
      const found = [snapshot?.debtorAgentMemberId, snapshot?.creditorAgentMemberId].filter(
        (memberId): memberId is string => typeof memberId === 'string' && memberId.length > 0,
      );
      if (found.length > 0) {
        const unique = [...new Set(found)];
        deps.transactionBanks.set(uetr, unique);
        banks.set(uetr, unique);
      }
    });
    return banks;
  }

  return async (records, context) => {
    const started = performance.now();
    const first = records[0];
    if (!first) return;
    const { topic, partition } = first;
    const sources = records.filter((record) => record.attempt === 1);
    const firstSource = sources[0];
    if (firstSource && !positions.continues(topic, partition, firstSource.offset)) {
      const lanes = await deps.parking.loadPartition(topic, partition);
      if (lanes > 0) logger.info({ topic, partition, lanes }, 'parked lanes of the partition loaded');
    }

    const items: Item[] = records.map((record, index) => {
      metrics.received(record.value.class);
      const posting = describePosting(record.value, record.key, record.headers);
      return { index, record, posting, source: postingSource(posting, record), subscribers: [] };
    });
    /** Per transaction, the first posting that could not be handled: it and the later ones are retried. */
    const failed = new Map<string, { index: number; error: unknown }>();
    const failFrom = (uetr: string, index: number, error: unknown) => {
      const known = failed.get(uetr);
      if (!known || index < known.index) failed.set(uetr, { index, error });
    };
    const isFailed = (item: Item) =>
      (failed.get(item.posting.uetr)?.index ?? Number.POSITIVE_INFINITY) <= item.index;
    /** A posting neither delivered nor queued: it and its transaction's later ones are retried. */
    const notHandled = (lane: BatchLane, item: Item, error: unknown) => {
      transactionLogger(logger, {
        uetr: item.posting.uetr,
        messageIdentification: item.posting.eventId,
      }).warn(
        { err: error, memberId: lane.key.memberId },
        'posting neither delivered nor queued; the consumer retries it',
      );
      failFrom(item.posting.uetr, item.index, error);
    };

    try {
      const banks = await banksOf(items);
      for (const item of items) {
        const involved = banks.get(item.posting.uetr);
        if (involved === null || involved === undefined) {
          // An ESM_STATE posting whose TRANSACTION_STATE posting and snapshot are not there yet.
          metrics.skipped('banks-unknown');
          transactionLogger(logger, {
            uetr: item.posting.uetr,
            messageIdentification: item.posting.eventId,
          }).warn(
            { eventName: item.posting.eventName, attempt: item.record.attempt },
            "the transaction's banks are not known yet; the posting is retried",
          );
          failFrom(
            item.posting.uetr,
            item.index,
            new AppError('NOT_FOUND', `banks of transaction ${item.posting.uetr} not known yet`, {
              retriable: true,
            }),
          );
          continue;
        }
        item.subscribers = deps.subscriptions.subscribersOf(involved, item.posting.eventClass);
        if (item.subscribers.length === 0) {
          metrics.skipped('no-subscriber');
        }
      }

      const lanes = new Map<string, BatchLane>();
      for (const item of items) {
        if (isFailed(item)) continue;
        for (const subscriber of item.subscribers) {
          const id = laneId(subscriber.memberId, item.posting.uetr);
          let lane = lanes.get(id);
          if (!lane) {
            lane = {
              key: { laneId: id, memberId: subscriber.memberId, uetr: item.posting.uetr, topic, partition },
              subscriber,
              items: [],
              records: [],
            };
            lanes.set(id, lane);
          }
          lane.items.push(item);
        }
      }

      let lastBeat = performance.now();
      const beat = async () => {
        if (performance.now() - lastBeat > 1_000) {
          lastBeat = performance.now();
          await context.heartbeat();
        }
      };
      const sendUntil = performance.now() + deps.directBudgetMs;
      await mapBounded([...lanes.values()], deps.laneConcurrency, async (lane) => {
        const progress = { position: 0 };
        try {
          await deliverLane(lane, progress, sendUntil, context.signal);
        } catch (error) {
          notHandled(lane, lane.items[progress.position] as Item, error);
        }
        await beat();
      });

      // Written behind: before the consumer commits these records, with other batches' records.
      const refused = deps.firstAttempts.add([...lanes.values()].flatMap((lane) => lane.records));
      for (const { posting } of refused) {
        logger.error({ topic, partition, posting }, 'a posting without an event id or a UETR is not logged');
      }
      await deps.firstAttempts.whenRoom({
        signal: context.signal,
        heartbeat: () => context.heartbeat(),
        onFailure: (error) =>
          logger.warn(
            { err: error, topic, partition, waiting: deps.firstAttempts.size },
            'delivery log not written; the consumer waits for it before it goes on',
          ),
      });

      // A posting failed above comes back from the retry tiers, after what is parked here.
      const waitingOf = (lane: BatchLane) =>
        lane.items
          .slice((lane.park as NonNullable<BatchLane['park']>).from)
          .filter((item) => !isFailed(item));
      const parked = [...lanes.values()].filter(
        (lane) => lane.park !== undefined && waitingOf(lane).length > 0,
      );
      // The postings that wait are stored with their bodies before their lanes name them (one insert).
      const toStore = new Map<string, StoredPosting>();
      for (const lane of parked) {
        for (const item of waitingOf(lane)) toStore.set(item.posting.eventId, storedPosting(item));
      }
      try {
        await deps.store.savePostings([...toStore.values()]);
      } catch (error) {
        for (const lane of parked) notHandled(lane, waitingOf(lane)[0] as Item, error);
      }
      await mapBounded(parked, deps.laneConcurrency, async (lane) => {
        const park = lane.park as NonNullable<BatchLane['park']>;
        const waiting = waitingOf(lane);
        if (waiting.length === 0) return;
        try {
          const failedHead = waiting[0] === lane.items[park.from] ? park.failedHead : undefined;
          await queue(lane, waiting, failedHead, context.signal);
        } catch (error) {
          notHandled(lane, waiting[0] as Item, error);
        }
        await beat();
      });
    } catch (error) {
      positions.forget(topic, partition);
      throw error;
    }

    for (const item of items) {
      if (isFailed(item)) context.fail(item.record, failed.get(item.posting.uetr)?.error);
    }
    const lastSource = sources[sources.length - 1];
    if (lastSource) positions.handled(topic, partition, lastSource.offset);
    metrics.batch((performance.now() - started) / 1000, records.length);
  };

  /** Appends postings to their lane in MongoDB (opening it, with `failedHead` as its failed head). */
  async function queue(
    lane: BatchLane,
    items: readonly Item[],
    failedHead: { error: string; retryAfterMs?: number } | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const queuedAt = deps.clock.now();
    const entries: LaneEntry[] = items.map((item) => ({
      eventId: item.posting.eventId,
      eventName: item.posting.eventName,
      queuedAt,
    }));
    await deps.parking.park(lane.key, entries, { ...(failedHead ? { failedHead } : {}), signal });
  }

  /**
   * Sends a lane's postings of the batch, in order, until one must wait: then `lane.park` says from
   * where the lane is to be parked. `progress.position` is the posting being handled, so that a failure
   * names it. Each posting whose delivery ended leaves its delivery log record in `lane.records`.
   */
  async function deliverLane(
    lane: BatchLane,
    progress: { position: number },
    sendUntil: number,
    signal: AbortSignal,
  ): Promise<void> {
    const gate = deps.gates.of(lane.key.memberId);
    const stopAt = (failedHead?: { error: string; retryAfterMs?: number }) => {
      lane.park = { from: progress.position, ...(failedHead ? { failedHead } : {}) };
    };
    if (deps.index.has(lane.key.laneId)) return stopAt();
    while (progress.position < lane.items.length) {
      if (performance.now() > sendUntil) return stopAt();
      const ticket = gate.admit();
      if (!ticket) return stopAt();
      const item = lane.items[progress.position] as Item;
      const { result, retryAfterMs } = await deps.delivery.attempt(
        lane.subscriber,
        {
          eventId: item.posting.eventId,
          uetr: item.posting.uetr,
          eventName: item.posting.eventName,
          body: item.posting.body,
          producedAt: new Date(item.record.timestamp),
          ...(item.record.headers.traceparent ? { traceparent: item.record.headers.traceparent } : {}),
          source: item.source,
        },
        ticket,
        'direct',
        { signal, records: lane.records },
      );
      if (result.kind === 'retryable') {
        return stopAt({ error: result.error, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
      }
      progress.position += 1;
    }
  }
}

function postingSource(posting: OutgoingPosting, record: ConsumedRecord<EventPosting>): EventPostingSource {
  return {
    postingId: posting.eventId,
    eventClass: posting.eventClass,
    ...(posting.stageVersion === undefined ? {} : { stageVersion: posting.stageVersion }),
    topic: record.topic,
    partition: record.partition,
    offset: Number(record.offset),
    producedAt: new Date(record.timestamp),
  };
}

function storedPosting(item: Item): StoredPosting {
  const { posting, record } = item;
  const { postingId, eventClass: _named, ...place } = item.source;
  return {
    eventId: postingId,
    uetr: posting.uetr,
    eventClass: posting.eventClass,
    eventName: posting.eventName,
    ...place,
    memberIds: item.subscribers.map((subscriber) => subscriber.memberId),
    body: posting.body,
    ...(record.headers.traceparent ? { traceparent: record.headers.traceparent } : {}),
  };
}
