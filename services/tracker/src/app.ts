import {
  allowedEventTypes,
  bankPaths,
  type CreditTransfer,
  type DeliveryOutcome,
  type DeliveryResult,
  type DirectDebit,
  type EventPosting,
  fromStoredJson,
  type TransactionStateChanged,
  toJson,
  transactionStates,
} from '@rp/contracts';
import type { BatchHandler, ConsumedRecord } from '@rp/kafka';
import { type PipelineProducer, postingIdHeader, resentHeader } from '@rp/pipeline';
import {
  type AppEnv,
  AppError,
  type Clock,
  createProblemJsonErrorHandler,
  type Logger,
  notFoundHandler,
  parseInstant,
  type RecentKeys,
  type RecentMap,
  transactionLogger,
  wholeNumberQuery,
} from '@rp/runtime';
import {
  type DeliveryLogRepository,
  type IdempotencyRepository,
  type TransactionDeliveryAttempt,
  type TransactionMessage,
  type TransactionRepository,
  type TransactionSnapshot,
  type TransactionStateChange,
  transactionKey,
} from '@rp/store';
import { Hono } from 'hono';
import type { TrackerMetrics } from './metrics.ts';
import { postingIdOf, postingsOf } from './postings.ts';
import {
  decide,
  fromSnapshot,
  knowsMessage,
  newTransaction,
  PartitionPositions,
  type TrackedTransaction,
  type TransactionCache,
  withImpliedDelivery,
  withMessage,
} from './sequencer.ts';
import type { SnapshotWriter } from './snapshot-writer.ts';

export interface TrackerHandlerDeps {
  readonly producer: PipelineProducer;
  readonly transactions: Pick<TransactionRepository, 'get'>;
  /** Where the applied changes wait for their snapshot write (flushed before every commit). */
  readonly snapshots: SnapshotWriter;
  /** Transactions whose changes may wait at once; past it, a batch waits for them to be written. */
  readonly maxPendingSnapshots: number;
  readonly cache: TransactionCache;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: TrackerMetrics;
  /** Snapshot reads on cache misses in flight at once. */
  readonly readConcurrency: number;
  /** Also record event posting deliveries (the event-publisher's own log has them). Default false. */
  readonly recordEventPostingAttempts: boolean;
  /** Delivery outcomes remembered as recorded, so a redelivered outcome is not recorded twice. */
  readonly recentOutcomes: RecentKeys;
  /**
   * The payloads of the transactions that changed lately, for the changes emitted without one (the
   * dispatcher's deliveries of the engine's status report, the ingress's of a bank's report); a payload
   * forgotten is read from the snapshot.
   */
  readonly payloads: RecentMap<string, Payload>;
}

/** A transaction's payload, as its changes carry it. */
type Payload = CreditTransfer | DirectDebit;

/** A state change with its payload: as it was emitted, or filled in by the tracker. */
type CarriedChange = TransactionStateChanged & { readonly transaction: Payload };

export interface TrackerHandlers {
  /** rp.transaction.state.v1: sequence, project into the snapshot, produce the postings. */
  readonly stateChanges: BatchHandler<TransactionStateChanged>;
  /** rp.delivery.outcome.v1: record each delivery attempt in its transaction's snapshot. */
  readonly deliveryOutcomes: BatchHandler<DeliveryOutcome>;
}

/** The payload a transaction started with, as its snapshot recorded it (its first message). */
function payloadOfSnapshot(snapshot: TransactionSnapshot | null): Payload | undefined {
  for (const message of snapshot?.messages ?? []) {
    if (message.kind === 'DirectDebit') return fromStoredJson('DirectDebit', message.bodyJson);
    if (message.kind === 'CreditTransfer') return fromStoredJson('CreditTransfer', message.bodyJson);
  }
  return undefined;
}

/** A change the tracker accepted in this batch. */
interface Applied {
  record: ConsumedRecord<TransactionStateChanged>;
  change: TransactionStateChange;
  postings: EventPosting[];
}

/**
 * The message a change brings into the snapshot, when it brings a new one: the transaction's own
 * message (the DirectDebit the ingress and validator read back), else its status report. A snapshot
 * change has room for one message; both are new together only on a transaction's first change, which
 * carries no report.
 */
function newMessage(
  change: CarriedChange,
  tracked: TrackedTransaction,
  at: Date,
): TransactionMessage | undefined {
  const transaction = change.transaction;
  const transactionId = transaction.messageIdentifiers.messageIdentification;
  if (!knowsMessage(tracked, transaction.schema, transactionId)) {
    const bodyJson =
      transaction.schema === 'DirectDebit'
        ? toJson('DirectDebit', transaction)
        : toJson('CreditTransfer', transaction);
    return { kind: transaction.schema, messageIdentification: transactionId, at, bodyJson };
  }
  const report = change.statusReport;
  if (report && !knowsMessage(tracked, report.schema, report.messageIdentifiers.messageIdentification)) {
    return {
      kind: report.schema,
      messageIdentification: report.messageIdentifiers.messageIdentification,
      at,
      bodyJson: toJson('PaymentStatusReport', report),
    };
  }
  return undefined;
}

/**
 * Whether a record not in the cache is its transaction's first change, seen for the first time: a change
 * from no state (the ingress's DEBIT_REQUEST_RECEIVED, CREDIT_AUTH_RECEIVED) on its first delivery, below
 * no position a consumer of the group may have handled before, and not produced again for a resend. Its
 * transaction has no snapshot to read. Should one exist all the same (a record the producer wrote
 * twice), the guarded snapshot write finds it, and the tracker forgets the transaction and reads it
 * (`onConflict`); the postings sequenced meanwhile carry the event ids they had, which the bank absorbs.
 */
function startsTransaction(record: ConsumedRecord<TransactionStateChanged>): boolean {
  const { value } = record;
  return (
    value.fromState === undefined &&
    record.attempt === 1 &&
    record.possiblyHandled !== true &&
    record.headers[resentHeader] === undefined &&
    initialEventTypes.has(value.eventType)
  );
}

/** The event types that start a transaction (allowed from no state). */
const initialEventTypes: ReadonlySet<string> = new Set(allowedEventTypes(undefined));

async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

export function createTrackerHandlers(deps: TrackerHandlerDeps): TrackerHandlers {
  const { producer, transactions, cache, metrics, logger } = deps;
  const positions = new PartitionPositions();

  const stateChanges: BatchHandler<TransactionStateChanged> = async (records, context) => {
    const started = performance.now();
    metrics.received(records.length);
    const partition = records[0]?.partition ?? 0;
    const sourceRecords = records.filter((record) => record.attempt === 1);
    const firstSource = sourceRecords[0];
    if (firstSource && !positions.continues(partition, firstSource.offset)) {
      const dropped = cache.dropPartition(partition);
      if (dropped > 0) {
        metrics.cache('partition-reset');
        logger.info(
          { partition, dropped, offset: firstSource.offset },
          'partition resumed elsewhere: cache entries dropped',
        );
      }
    }

    // The batch works on its own copies; the cache learns the outcome only once everything is durable.
    const working = new Map<string, TrackedTransaction>();
    const missing = new Set<string>();
    let fresh = 0;
    for (const record of records) {
      const uetr = record.value.uetr;
      if (working.has(uetr) || missing.has(uetr)) continue;
      const cached = cache.get(uetr);
      if (cached) {
        metrics.cache('hit');
        working.set(uetr, cached);
      } else if (startsTransaction(record)) {
        fresh += 1;
        working.set(uetr, { ...newTransaction(uetr, partition), assumed: true });
      } else missing.add(uetr);
    }
    if (fresh > 0) metrics.cache('new', fresh);
    // A change emitted without its payload takes it from an earlier change of the batch, from memory, or
    // else from the snapshot (read with the cache misses).
    const carried = new Set<string>();
    const payloadReads = new Set<string>();
    for (const { value } of records) {
      if (value.transaction !== undefined) carried.add(value.uetr);
      else if (!carried.has(value.uetr) && !deps.payloads.has(value.uetr)) payloadReads.add(value.uetr);
    }
    // The payloads this batch applies with, recorded in memory once the batch is durable.
    const payloads = new Map<string, Payload>();
    const misses = [...missing];
    const reads = [...new Set([...misses, ...payloadReads])];
    try {
      if (reads.length > 0) {
        if (misses.length > 0) metrics.cache('miss', misses.length);
        // What this process sequenced and has not written yet goes first: the read must see it.
        await deps.snapshots.write(reads);
        const snapshots = await mapBounded(reads, deps.readConcurrency, (uetr) => transactions.get(uetr));
        reads.forEach((uetr, index) => {
          const snapshot = snapshots[index] ?? null;
          if (missing.has(uetr)) working.set(uetr, fromSnapshot(snapshot, uetr, partition));
          const payload = payloadReads.has(uetr) ? payloadOfSnapshot(snapshot) : undefined;
          if (payload !== undefined) payloads.set(uetr, payload);
        });
      }

      const applied: Applied[] = [];
      // Transactions whose record went to the retry tiers: their later records of the batch wait (the
      // consumer delivers them again after it).
      const held = new Set<string>();
      for (const record of records) {
        const emitted = record.value;
        if (held.has(emitted.uetr)) continue;
        const payload = emitted.transaction ?? payloads.get(emitted.uetr) ?? deps.payloads.get(emitted.uetr);
        if (payload === undefined) {
          // Its transaction's first change has not been sequenced yet (or was refused): tried again later.
          metrics.change('no-payload', emitted.eventType);
          held.add(emitted.uetr);
          context.fail(
            record,
            new AppError(
              'NOT_FOUND',
              `transaction ${emitted.uetr}: a change without a payload, and none recorded`,
              {
                retriable: true,
              },
            ),
          );
          continue;
        }
        payloads.set(emitted.uetr, payload);
        const carried: CarriedChange =
          emitted.transaction === undefined
            ? { ...emitted, transaction: payload }
            : (emitted as CarriedChange);
        for (const value of withImpliedDelivery(working.get(emitted.uetr) as TrackedTransaction, carried)) {
          const current = working.get(value.uetr) as TrackedTransaction;
          const decision = decide(current, value);
          const log = transactionLogger(logger, {
            uetr: value.uetr,
            messageIdentification:
              value.causedBy.messageIdentification ??
              value.transaction.messageIdentifiers.messageIdentification,
          });
          if (decision.kind === 'repeat') {
            metrics.change('repeat', value.eventType);
            log.debug(
              { eventId: decision.eventId, eventType: value.eventType },
              'repeated state change dropped',
            );
            continue;
          }
          if (decision.kind === 'late') {
            metrics.change('late', value.eventType);
            log.info(
              { eventId: decision.eventId, eventType: value.eventType, state: decision.state },
              "transaction already final; the bank's report not applied",
            );
            continue;
          }
          if (decision.kind === 'refuse' && current.assumed) {
            // Refused by a transaction taken as new without a read: tried again once the tracker has
            // read what its snapshot holds (the transaction is forgotten below), refused for good only then.
            metrics.change('unconfirmed', value.eventType);
            log.warn(
              { eventId: decision.eventId, eventType: value.eventType, reason: decision.reason },
              'state change refused by a transaction taken as new; read and tried again',
            );
            held.add(value.uetr);
            context.fail(record, new AppError('CONFLICT', decision.reason, { retriable: true }));
            break;
          }
          if (decision.kind === 'refuse') {
            metrics.change('refused', value.eventType);
            log.warn(
              {
                eventId: decision.eventId,
                eventType: value.eventType,
                state: current.state ?? null,
                emitterFromState: value.fromState ?? null,
                emittedBy: value.emittedBy,
                reason: decision.reason,
              },
              'state change refused',
            );
            // Non-retriable: straight to the dead-letter topic with the reason, without holding the
            // transaction's later changes back.
            context.fail(record, new AppError('ILLEGAL_TRANSITION', decision.reason, { retriable: false }));
            continue;
          }
          const at = new Date(value.occurredAt);
          const message = newMessage(value, current, at);
          const next = message
            ? withMessage(decision.next, message.kind, message.messageIdentification)
            : decision.next;
          working.set(value.uetr, next);
          const ids = value.transaction.transactionIdentifiers;
          const transaction = value.transaction;
          applied.push({
            record,
            change: {
              uetr: value.uetr,
              eventId: decision.eventId,
              seq: decision.sequence,
              from: decision.fromState ?? null,
              to: decision.toState,
              eventType: decision.eventType,
              at,
              service: value.emittedBy,
              endToEndIdentification: ids.endToEndIdentification,
              ...(transaction.debtorAgent.memberId
                ? { debtorAgentMemberId: transaction.debtorAgent.memberId }
                : {}),
              ...(transaction.creditorAgent.memberId
                ? { creditorAgentMemberId: transaction.creditorAgent.memberId }
                : {}),
              ...(message ? { message } : {}),
            },
            postings: postingsOf({
              uetr: value.uetr,
              eventType: decision.eventType,
              eventId: decision.eventId,
              sequence: decision.sequence,
              direction: decision.direction,
              occurredAt: value.occurredAt,
              transaction,
            }),
          });
          if (decision.fromState !== value.fromState) {
            log.info(
              {
                eventType: value.eventType,
                state: decision.fromState ?? null,
                emitterFromState: value.fromState ?? null,
              },
              "emitter's state differs from the tracker's; the tracker's is applied",
            );
          }
        }
      }

      if (applied.length > 0) {
        // Postings first, then the snapshot. A failure in between re-runs the changes against the old
        // snapshot: the same sequence numbers and the same postings again (duplicates the event id
        // absorbs), never a snapshot that claims changes whose postings were lost.
        const postings = applied.flatMap(({ change, postings }) =>
          postings.map((value) => ({
            key: change.uetr,
            value,
            headers: { [postingIdHeader]: postingIdOf(value, change.eventId) },
          })),
        );
        await producer.send('rp.events.v1', postings);
        // The snapshot is written behind, before the consumer commits these records, a transaction's
        // first change too: nothing on a journey waits for it (the ingress admits a bank's report against
        // its UETR's claim; the validator names the transaction of an actioning bank's report by its UETR).
        deps.snapshots.add(applied.map((entry) => entry.change));
        if (deps.snapshots.size > deps.maxPendingSnapshots) await deps.snapshots.flush();
        const now = deps.clock.now().getTime();
        for (const { change, postings } of applied) {
          metrics.change('applied', change.eventType);
          for (const posting of postings) metrics.postings(posting.class, 1);
          metrics.latency((now - change.at.getTime()) / 1000);
        }
      }
      for (const transaction of working.values()) {
        if (transaction.assumed && held.has(transaction.uetr)) cache.delete(transaction.uetr);
        else cache.set(transaction);
      }
      for (const [uetr, payload] of payloads) deps.payloads.set(uetr, payload);
      const lastSource = sourceRecords[sourceRecords.length - 1];
      if (lastSource) positions.handled(partition, lastSource.offset);
      metrics.cacheSize(cache.size);
      metrics.batch('state', (performance.now() - started) / 1000, records.length);
    } catch (error) {
      // Nothing of this batch is known to be durable: forget what it touched and let the runner re-run it.
      for (const uetr of working.keys()) cache.delete(uetr);
      positions.forget(partition);
      metrics.batchFailed('state');
      throw error;
    }
  };

  const deliveryOutcomes: BatchHandler<DeliveryOutcome> = async (records) => {
    const started = performance.now();
    const attempts: { uetr: string; attempt: TransactionDeliveryAttempt }[] = [];
    for (const record of records) {
      const outcome = record.value;
      if (outcome.operation === 'eventPosting' && !deps.recordEventPostingAttempts) {
        metrics.deliveryAttempt(outcome.operation, outcome.result, 'skipped');
        continue;
      }
      const key = outcomeKey(outcome);
      if (deps.recentOutcomes.has(key)) {
        metrics.deliveryAttempt(outcome.operation, outcome.result, 'repeat');
        continue;
      }
      deps.recentOutcomes.add(key);
      attempts.push({ uetr: outcome.uetr, attempt: deliveryAttemptOf(outcome) });
      metrics.deliveryAttempt(outcome.operation, outcome.result, 'recorded');
    }
    // Written behind with the transactions' state changes (most attempts come with the change they led
    // to), in offset order per transaction: before the consumer commits, or now when too many wait.
    deps.snapshots.addAttempts(attempts);
    if (deps.snapshots.size > deps.maxPendingSnapshots) await deps.snapshots.flush();
    metrics.batch('outcomes', (performance.now() - started) / 1000, records.length);
  };

  return { stateChanges, deliveryOutcomes };
}

const outcomeKey = (outcome: DeliveryOutcome) =>
  `${outcome.uetr}\u0000${outcome.messageIdentification}\u0000${outcome.targetBank}\u0000${outcome.operation}\u0000${outcome.attempt}`;

const attemptOutcomes: Record<DeliveryResult, TransactionDeliveryAttempt['outcome']> = {
  ACKNOWLEDGED: 'accepted',
  RETRYABLE_FAILURE: 'retryable',
  FINAL_FAILURE: 'final',
  UNKNOWN: 'retryable',
};

/** A delivery outcome as the snapshot keeps it; the endpoint is the bank path without its slash. */
export function deliveryAttemptOf(outcome: DeliveryOutcome): TransactionDeliveryAttempt {
  const path = outcome.operation === 'UNKNOWN' ? 'unknown' : bankPaths[outcome.operation].replace(/^\//, '');
  return {
    at: new Date(outcome.attemptedAt),
    messageIdentification: outcome.messageIdentification,
    memberId: outcome.targetBank,
    endpoint: path,
    httpStatus: outcome.httpStatus ?? null,
    latencyMs: outcome.latencyMs,
    outcome: attemptOutcomes[outcome.result],
    ...(outcome.error ? { error: `${outcome.error.code}: ${outcome.error.message}` } : {}),
  };
}

/** An RFC 3339 time with its offset (`2026-11-23T08:00:00+02:00`), or a date (`2026-11-23`, UTC midnight). */
function instantQuery(text: string | undefined, name: string): Date | undefined {
  if (text === undefined || text === '') return undefined;
  const at = parseInstant(text, { allowDate: true, optionalSeconds: true });
  if (at === undefined) {
    throw new AppError('VALIDATION_FAILED', `${name} must be an RFC 3339 time with its offset, or a date`, {
      details: [{ pointer: `/${name}`, detail: 'e.g. 2026-11-23T08:00:00+02:00 or 2026-11-23' }],
    });
  }
  return at;
}

/** A transaction state by name (`DEBIT_COMPLETED`); an empty or absent one filters nothing. */
function stateQuery(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  if (!Object.hasOwn(transactionStates, text)) {
    throw new AppError('VALIDATION_FAILED', `state ${text} is not a transaction state`, {
      details: [{ pointer: '/state', detail: 'a transaction state such as DEBIT_COMPLETED' }],
    });
  }
  return text;
}

function uetrParameter(uetr: string): string {
  if (!uuidPattern.test(uetr)) {
    throw new AppError('VALIDATION_FAILED', 'uetr must be a UUID', {
      details: [{ pointer: '/uetr', detail: 'must be a UUID' }],
    });
  }
  return uetr.toLowerCase();
}

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The read-only operator API: a transaction's snapshot, and lists by end-to-end id or state. */
export function createAdminRoutes(options: {
  transactions: Pick<TransactionRepository, 'get' | 'search'>;
  /** The event publisher's delivery log (same database): the transaction's postings per bank. */
  deliveryLog?: Pick<DeliveryLogRepository, 'listByUetr'>;
  /** This process's snapshot writes still waiting: a transaction's are written before it is shown. */
  snapshots?: Pick<SnapshotWriter, 'write'>;
  /** The ingress's claims (same database): what a 404 says of a UETR received and not yet recorded. */
  claims?: Pick<IdempotencyRepository, 'get'>;
  logger: Logger;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { transactions } = options;
  app.get('/admin/transactions/:uetr', async (c) => {
    const uetr = uetrParameter(c.req.param('uetr'));
    await options.snapshots?.write([uetr]);
    const snapshot = await transactions.get(uetr);
    if (snapshot === null) throw new AppError('NOT_FOUND', await notRecorded(uetr));
    return c.json(snapshot);
  });

  /**
   * Why there is no snapshot, as far as the store can tell: a UETR the ingress claimed was received (its
   * first state change not yet applied here: the tracker is behind, or the message never became durable
   * and its sender was answered 503); any other was never received.
   */
  async function notRecorded(uetr: string): Promise<string> {
    const claim = await options.claims?.get(transactionKey(uetr));
    if (claim === null || claim === undefined) return `no transaction ${uetr}`;
    const kind = claim.transaction?.kind ?? 'first message';
    return `no transaction ${uetr} recorded yet: the ingress received its ${kind} at ${claim.receivedAt.toISOString()}, and the tracker has not applied its first state change (it is behind, or the message was never made durable and its sender was answered 503)`;
  }
  // Its event postings as the banks got them: per posting and bank, the outcome and the attempts. Apart
  // from the snapshot: the delivery log is read by UETR, a query the snapshot's readers need not pay for.
  app.get('/admin/transactions/:uetr/events', async (c) => {
    const uetr = uetrParameter(c.req.param('uetr'));
    const postings = (await options.deliveryLog?.listByUetr(uetr, 500)) ?? [];
    if (postings.length === 0) {
      // As for the snapshot: what this process applied and has not written yet counts as recorded.
      await options.snapshots?.write([uetr]);
      if ((await transactions.get(uetr)) === null) throw new AppError('NOT_FOUND', await notRecorded(uetr));
    }
    // The log is kept per posting and bank (`<eventId>:<memberId>`); the bank saw the event id alone.
    const events = postings.map((posting) => ({
      eventId: posting.eventId.endsWith(`:${posting.memberId}`)
        ? posting.eventId.slice(0, -(posting.memberId.length + 1))
        : posting.eventId,
      memberId: posting.memberId,
      eventType: posting.eventType,
      outcome: posting.outcome,
      attemptCount: posting.attemptCount,
      attempts: posting.attempts,
      createdAt: posting.createdAt,
      ...(posting.completedAt ? { completedAt: posting.completedAt } : {}),
    }));
    return c.json({ uetr, events });
  });
  app.get('/admin/transactions', async (c) => {
    const endToEndId = c.req.query('endToEndId');
    const state = stateQuery(c.req.query('state'));
    const limit = wholeNumberQuery(c.req.query('limit'), { name: 'limit', fallback: 50, max: 500 });
    const from = instantQuery(c.req.query('from'), 'from');
    const to = instantQuery(c.req.query('to'), 'to');
    // Every filter in the one query, so that the limit counts only what matches.
    return c.json({
      transactions: await transactions.search({
        ...(endToEndId ? { endToEndIdentification: endToEndId } : {}),
        ...(state ? { state } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        limit,
      }),
    });
  });
  app.onError(createProblemJsonErrorHandler({ logger: options.logger }));
  app.notFound(notFoundHandler);
  return app;
}
