import { type DeliveryOutcome, type DirectDebit, type StateChangeCause, toJson } from '@rp/contracts';
import type { ConsumedRecord } from '@rp/kafka';
import { originHeader, type StateEmitter, schemeOrigin } from '@rp/pipeline';
import { AppError, type Clock, type Logger, transactionLogger } from '@rp/runtime';
import {
  type DebitEntry,
  type DebitIntake,
  type DebitQueueItem,
  type DebitQueueRepository,
  isReadyToQueue,
} from '@rp/store';
import { readDirectDebit, stateHeader } from './messages.ts';
import type { SchedulerMetrics } from './metrics.ts';
import type { PromptRelease, ReadyDebit } from './prompt-release.ts';
import type { WindowController } from './window-state.ts';

export interface QueueingDeps {
  readonly debitQueue: Pick<
    DebitQueueRepository,
    'recordAccepted' | 'recordAcceptedHalves' | 'recordAcknowledged' | 'enqueue'
  >;
  readonly emitter: StateEmitter;
  readonly windows: WindowController;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: SchedulerMetrics;
  /** Told when a debit joined the queue for `windowDate`: if that window is open it goes out promptly. */
  readonly onQueued: (windowDate: string) => void;
  /**
   * Offered every debit made ready before it is queued: it may be released at once (its window open and
   * nothing of it queued), else it is told the debit joins the queue.
   */
  readonly prompt?: Pick<PromptRelease, 'accepts' | 'submit' | 'queueing'>;
  /**
   * Accepted on-us debits held in memory at most; past it, the accepted handler waits for room: for
   * acknowledgements to take debits out, else for the oldest to have been held `holdMs`. Default 2,000.
   */
  readonly maxPending?: number;
  /**
   * How long an accepted half is held in memory for its acknowledgement before it is written: a commit
   * (`flush({ all: false })`) writes the halves held this long and leaves the younger ones, which hold the
   * commit back (`heldFrom`). Real time, not the clock's. Default 3,000 ms.
   */
  readonly holdMs?: number;
  /** Real milliseconds, for how long a half has been held. Default `performance.now`. */
  readonly monotonicMs?: () => number;
  /** Bulk writes in flight at once when `flush` writes the accepted debits that wait. Default 4. */
  readonly writeConcurrency?: number;
  /** Accepted halves in one bulk write when `flush` writes them. Default 25. */
  readonly writeBatch?: number;
}

export interface QueueingHandlers {
  /**
   * rp.directdebit.accepted.v1: the debit waits for its ACCP report's acknowledgement; one from a clearing
   * house (`rp-origin: scheme`) has no report to wait for and is queued at once.
   */
  accepted(record: ConsumedRecord<DirectDebit>): Promise<void>;
  /** rp.delivery.outcome.v1: the initiating bank's 202 to an ACCP report makes its debit ready. */
  outcome(record: ConsumedRecord<DeliveryOutcome>): Promise<void>;
  /**
   * Writes the accepted on-us debits still held in memory, after the joins in flight: the accepted
   * consumer calls it before it commits its offsets. `all: false` writes only those held `holdMs` or
   * longer; the others stay, and `heldFrom` holds the commit back at them. Default: all. Throws if a
   * write failed (the debit waits for the next flush).
   */
  flush(scope?: { readonly all?: boolean }): Promise<void>;
  /**
   * The offset of the oldest accepted record of the partition whose half is held in memory, or being
   * written or joined (undefined: none): the accepted consumer commits the partition up to it.
   */
  heldFrom(topic: string, partition: number): bigint | undefined;
  /**
   * Waits for the debits made ready with their window open until each is released or queued: the
   * outcomes consumer calls it before it commits its offsets (`flush` does it too). Throws if one failed
   * (it is tried again).
   */
  flushReleases(): Promise<void>;
  /** Accepted debits held in memory (a gauge, and tests). */
  readonly pending: number;
  /** The debits were withdrawn (reconciled): an acknowledgement that comes later must not queue them. */
  forget(uetrs: readonly string[]): void;
}

/** A debit made ready and handed to the prompt release, until it is released or queued. */
interface Releasing {
  readonly ready: ReadyDebit;
  readonly log: Logger;
  /** The accepted half it was held as, whose record's commit waits for the release (`heldFrom`). */
  readonly held?: PendingAccepted;
  /** Undefined once released or queued; the failure otherwise. */
  settled: Promise<{ error: unknown } | undefined>;
}

/** An accepted on-us debit held in memory until its acknowledgement comes, or the next flush. */
interface PendingAccepted {
  readonly uetr: string;
  readonly messageJson: string;
  readonly acceptedAt: Date;
  readonly cause: StateChangeCause;
  /** Its record may have been handled before (a retry, or one a previous owner may have handled). */
  readonly repeated: boolean;
  /** Its record's offset in its partition (`cause`'s), which the commit must not pass while it is held. */
  readonly offset: bigint;
  /** `monotonicMs` when it was first held. */
  readonly heldSince: number;
}

/** Whether a record may have been handled before: a retry, or one a previous owner may have handled. */
function mayBeRepeated(record: ConsumedRecord<unknown>): boolean {
  return record.attempt > 1 || record.possiblyHandled === true;
}

/**
 * A queued debit's creditor agent as the queue orders it: the member id, else the BIC, else '-'
 * (the store's order key needs 1-16 bytes).
 */
export function creditorAgentKey(debit: DirectDebit): string {
  let agent = debit.creditorAgent.memberId ?? debit.creditorAgent.bicfi ?? '-';
  while (Buffer.byteLength(agent, 'utf8') > 16) agent = Array.from(agent).slice(0, -1).join('');
  return agent;
}

export function createQueueingHandlers(deps: QueueingDeps): QueueingHandlers {
  const { debitQueue, emitter, windows, clock, logger, metrics } = deps;
  const calendar = windows.calendar;
  const maxPending = deps.maxPending ?? 2_000;
  const holdMs = Math.max(0, deps.holdMs ?? 3_000);
  const monotonicMs = deps.monotonicMs ?? (() => performance.now());
  const writeConcurrency = Math.max(1, deps.writeConcurrency ?? 4);
  const writeBatch = Math.max(1, deps.writeBatch ?? 25);
  /**
   * The accepted half of on-us debits, written behind: the acknowledgement of the debit's ACCP report
   * usually comes within `holdMs`, and then the two halves meet here and the debit is queued in one write,
   * its intake with it. What has been here `holdMs` when the consumer commits is written as the accepted
   * half (`flush`), and the commit stops at the oldest record still here (`heldFrom`), so nothing is
   * committed that is not in MongoDB.
   */
  const pending = new Map<string, PendingAccepted>();
  /** Accepted halves taken from memory into a bulk write, until the write and what follows it are done. */
  const inBulks = new Set<PendingAccepted>();
  /** The accepted handlers waiting for room (`makeRoom`): woken when some is made, or when a half ages. */
  let room: { readonly woken: Promise<void>; readonly wake: () => void; timer: NodeJS.Timeout } | undefined;
  const wakeRoom = () => {
    if (room === undefined) return;
    clearTimeout(room.timer);
    room.wake();
    room = undefined;
  };
  const held = () => {
    metrics.heldInMemory(pending.size);
    if (pending.size <= maxPending) wakeRoom();
  };
  /**
   * Debits whose acknowledgement came before their accepted record (the two consumers read at their own
   * pace, so one can run ahead of the other after a restart or with a backlog): the acknowledgement's half
   * is in MongoDB, so the accepted half is written at once when it comes, completing the pair there,
   * rather than held for an acknowledgement that already went by until the next flush (the accepted
   * consumer's commit interval). At most `maxPending` remembered, the oldest forgotten first: a forgotten
   * one waits for the flush, as every one did before.
   */
  const acknowledgedFirst = new Set<string>();
  const rememberAcknowledged = (uetr: string) => {
    acknowledgedFirst.delete(uetr);
    acknowledgedFirst.add(uetr);
    if (acknowledgedFirst.size > maxPending) {
      const oldest = acknowledgedFirst.values().next();
      if (oldest.done !== true) acknowledgedFirst.delete(oldest.value);
    }
  };
  /**
   * Accepted halves in a bulk write, by UETR: the acknowledgement of one waits until the bulk is in, so that
   * the pair is completed by one write only (the store's `recordAcceptedHalves`). Never rejects.
   */
  const writing = new Map<string, Promise<void>>();
  /** Acknowledgements being written, by UETR (how many): their accepted halves are written alone meanwhile. */
  const acknowledging = new Map<string, number>();
  /** Joins in flight, by UETR: `flush` waits for them, since their accepted records may be committed with it. */
  const joining = new Map<string, { item: PendingAccepted; work: Promise<void> }>();
  /**
   * Debits made ready while their window is open, handed to the prompt release (`deps.prompt`) behind the
   * handler call: both consumers' flushes wait for them (`flushReleases`), since the records that made
   * them ready may be committed with it.
   */
  const releasing = new Map<string, Releasing>();

  /**
   * Both halves are in (or the debit came from a clearing house): DEBIT_QUEUED first (acknowledged
   * before anything can release the debit, so the dispatcher's DEBIT_DELIVERY_PENDING always follows
   * it), then the entry becomes queued for its window, in one write, or is released at once (`prompt`).
   * A failure half way is repeated whole on the retried record: each step is idempotent.
   */
  async function makeReady(
    entry: DebitEntry & { messageJson: string; acceptedAt: Date },
    cause: StateChangeCause,
    options: { repeated?: boolean; unwritten?: boolean; held?: PendingAccepted } = {},
  ) {
    const debit = readDirectDebit(entry.messageJson);
    if (debit === undefined) {
      throw new AppError('INTERNAL', `debit ${entry.uetr} holds no readable DirectDebit`, {
        retriable: false,
      });
    }
    const log = transactionLogger(logger, {
      uetr: entry.uetr,
      messageIdentification: debit.messageIdentifiers.messageIdentification,
    });
    const now = clock.now();
    // A debit from a clearing house skipped the status report: it is queued straight from DEBIT_ACCEPTED.
    const fromScheme = entry.fromScheme === true;
    await emitter.emit([
      {
        fromState: fromScheme ? 'DEBIT_ACCEPTED' : 'DEBIT_ACCEPTANCE_DELIVERED',
        eventType: 'DEBIT_QUEUED',
        transaction: debit,
        causedBy: cause,
        occurredAt: now,
      },
    ]);
    const today = calendar.localDate(now);
    const windowDate = calendar.debitWindowFor(
      now,
      debit.requestedCollectionDate,
      windows.isDebitWindowClosedEarly(today),
    );
    const item: DebitQueueItem = {
      uetr: entry.uetr,
      windowDate,
      requestedCollectionDate: debit.requestedCollectionDate ?? windowDate,
      creditorAgentMemberId: creditorAgentKey(debit),
      origin: fromScheme ? 'inbound' : 'on-us',
      enqueuedAt: entry.acceptedAt,
      messageJson: entry.messageJson,
    };
    const intake: DebitIntake = {
      acceptedAt: entry.acceptedAt,
      ...(entry.statusReportAcknowledgedAt === undefined
        ? {}
        : { statusReportAcknowledgedAt: entry.statusReportAcknowledgedAt }),
      ...(entry.statusReportId === undefined ? {} : { statusReportId: entry.statusReportId }),
      ...(fromScheme ? { fromScheme } : {}),
    };
    const ready: ReadyDebit = {
      item,
      debit,
      intake,
      ...(options.unwritten === true ? { unwritten: true } : {}),
    };
    // Both halves met in memory from records handled before (a crash, a rebalance): the debit may be
    // out already, and only the queue's write, which matches an awaiting entry alone, can tell.
    if (deps.prompt?.accepts(windowDate) === true) {
      if (options.repeated !== true) {
        // Released with the next release, behind this call: the consumers' flushes wait for it.
        const handed: Releasing = {
          ready,
          log,
          ...(options.held === undefined ? {} : { held: options.held }),
          settled: Promise.resolve(undefined),
        };
        handed.settled = settle(handed);
        releasing.set(item.uetr, handed);
        return;
      }
      metrics.queuedAsRepeated();
    }
    await queueDurably(ready, now, log);
  }

  /** The debit joins the queue of its window: one write, shared with the debits queued at the same moment. */
  async function queueDurably(ready: ReadyDebit, now: Date, log: Logger): Promise<void> {
    const { item, intake } = ready;
    deps.prompt?.queueing(item.windowDate);
    const { outcome, orderKey } = await debitQueue.enqueue(item, now, intake, {
      unwritten: ready.unwritten === true,
    });
    // A debit found queued already (its records handled again after a crash) is not counted twice.
    if (outcome === 'enqueued') metrics.queued();
    log.info(
      { windowDate: item.windowDate, orderKey, outcome, fromScheme: intake.fromScheme === true },
      'debit queued for its window',
    );
    deps.onQueued(item.windowDate);
  }

  /** Released at once, or queued if its window closed before the release; resolves to the failure, if any. */
  async function settle(entry: Releasing): Promise<{ error: unknown } | undefined> {
    const { ready, log } = entry;
    try {
      if (deps.prompt !== undefined && (await deps.prompt.submit(ready))) {
        metrics.queued();
        log.info(
          { windowDate: ready.item.windowDate, fromScheme: ready.intake.fromScheme === true },
          'debit released at once: its window is open',
        );
        return undefined;
      }
      await queueDurably(ready, clock.now(), log);
      return undefined;
    } catch (error) {
      return { error };
    }
  }

  /**
   * Waits for the debits handed to the release so far: released, or queued. One that failed is tried
   * again at once and the flush throws (its consumer calls it again a second later, its offsets waiting).
   */
  async function flushReleases(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const entry of [...releasing.values()]) {
      const result = await entry.settled;
      if (releasing.get(entry.ready.item.uetr) !== entry) continue;
      if (result === undefined) {
        releasing.delete(entry.ready.item.uetr);
        continue;
      }
      failure ??= result;
      entry.settled = settle(entry);
    }
    if (failure) throw failure.error;
  }

  /** Writes an accepted half; the write that completes the pair makes the debit ready. */
  async function recordAccepted(
    uetr: string,
    messageJson: string,
    acceptedAt: Date,
    cause: StateChangeCause,
    options: { fromScheme?: boolean } = {},
  ): Promise<void> {
    await afterAccepted(await debitQueue.recordAccepted(uetr, messageJson, acceptedAt, options), cause);
  }

  /**
   * The entry after its accepted half was written: ready if that completed the pair, ignored if it moved on.
   * `held`: the half was held in memory, and its record's commit waits for the debit's release.
   */
  async function afterAccepted(
    entry: DebitEntry,
    cause: StateChangeCause,
    held?: PendingAccepted,
  ): Promise<void> {
    if (entry.status !== 'awaiting') {
      metrics.ignored('accepted', entry.status);
      return;
    }
    if (isReadyToQueue(entry)) await makeReady(entry, cause, held === undefined ? {} : { held });
  }

  /**
   * Everything accepted before the call is in MongoDB when it resolves: each debit that waited then is
   * written as its accepted half, or was queued by a join (awaited; a failed join hands its debit back,
   * and it is written here). Debits accepted during the flush are left for the next one.
   */
  async function flush(scope: { readonly all?: boolean } = {}): Promise<void> {
    await flushAccepted(scope.all !== false);
    await flushReleases();
  }

  /** The halves in memory that have waited `holdMs` for their acknowledgement. */
  function heldLong(): PendingAccepted[] {
    const since = monotonicMs() - holdMs;
    return [...pending.values()].filter((item) => item.heldSince <= since);
  }

  async function flushAccepted(all: boolean): Promise<void> {
    const due = new Map<string, PendingAccepted>();
    for (const item of all ? pending.values() : heldLong()) due.set(item.uetr, item);
    for (const { item } of joining.values()) due.set(item.uetr, item);
    const joinsOfDue = () =>
      [...due].flatMap(([uetr, item]) => {
        const join = joining.get(uetr);
        return join !== undefined && join.item === item ? [join.work] : [];
      });
    for (;;) {
      await Promise.allSettled(joinsOfDue());
      const writes = [...due.values()].filter((item) => pending.get(item.uetr) === item);
      if (writes.length === 0) {
        if (joinsOfDue().length === 0) return;
        continue;
      }
      await writeAccepted(writes);
    }
  }

  /**
   * Writes accepted halves that wait in memory: in bulks of `writeBatch`, a few in flight, each taken from
   * memory as its bulk starts (one whose acknowledgement came meanwhile joined it there). Each debit's
   * acknowledgement is kept out of MongoDB until its bulk is in (`writing`; see the store's
   * `recordAcceptedHalves`). A half whose acknowledgement is in completes the pair: the store writes it on
   * its own and hands its entry back, and the debit is made ready here. A failed half goes back to memory.
   */
  async function writeAccepted(items: readonly PendingAccepted[]): Promise<void> {
    let failure: { error: unknown } | undefined;
    const giveBack = (item: PendingAccepted, error: unknown) => {
      if (!pending.has(item.uetr)) pending.set(item.uetr, item);
      failure ??= { error };
    };
    const writeBulk = async (bulk: readonly PendingAccepted[]): Promise<void> => {
      // A debit whose acknowledgement is being written as the bulk starts goes alone (one atomic write:
      // whichever of the two lands second sees the other half); the bulk's own acknowledgements wait for it.
      const alone = bulk.filter((item) => acknowledging.has(item.uetr));
      if (alone.length > 0 && bulk.length > 1) {
        const rest = bulk.filter((item) => !acknowledging.has(item.uetr));
        const groups = alone.map((item) => [item]);
        if (rest.length > 0) groups.push(rest);
        await Promise.all(groups.map(writeBulk));
        return;
      }
      const { promise: settled, resolve: written } = Promise.withResolvers<void>();
      for (const item of bulk) writing.set(item.uetr, settled);
      let entries: Map<string, DebitEntry>;
      try {
        entries = await debitQueue.recordAcceptedHalves(
          bulk.map((item) => ({ uetr: item.uetr, messageJson: item.messageJson, at: item.acceptedAt })),
        );
      } catch (error) {
        for (const item of bulk) giveBack(item, error);
        return;
      } finally {
        for (const item of bulk) if (writing.get(item.uetr) === settled) writing.delete(item.uetr);
        written();
      }
      await Promise.all(
        bulk.map(async (item) => {
          // Not handed back: the half is in, alone, and its acknowledgement will complete the pair.
          const entry = entries.get(item.uetr);
          if (entry === undefined) return;
          try {
            await afterAccepted(entry, item.cause, item);
          } catch (error) {
            giveBack(item, error);
          }
        }),
      );
    };
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const bulk: PendingAccepted[] = [];
        for (; next < items.length && bulk.length < writeBatch; next += 1) {
          const item = items[next] as PendingAccepted;
          // Taken by a join meanwhile, or forgotten.
          if (pending.get(item.uetr) !== item) continue;
          pending.delete(item.uetr);
          inBulks.add(item);
          bulk.push(item);
        }
        held();
        if (bulk.length === 0) continue;
        try {
          await writeBulk(bulk);
        } finally {
          for (const item of bulk) inBulks.delete(item);
        }
      }
    };
    const bulks = Math.ceil(items.length / writeBatch);
    await Promise.all(Array.from({ length: Math.min(writeConcurrency, bulks) }, worker));
    held();
    if (failure) throw failure.error;
  }

  /**
   * Past `maxPending` the accepted handler waits for room: acknowledgements take halves out of memory (in a
   * catch-up the accepted consumer runs ahead of the other, and its halves meet their acknowledgements here
   * as at the usual pace), else the halves held `holdMs` are written as they age.
   */
  async function makeRoom(): Promise<void> {
    const started = monotonicMs();
    while (pending.size > maxPending) {
      // A wait already set up found nothing held long enough, and its timer fires when the oldest is:
      // the handlers that come meanwhile join it rather than go through memory again.
      if (room === undefined) {
        const aged = heldLong();
        if (aged.length > 0) {
          await writeAccepted(aged);
          continue;
        }
        let oldest = Number.POSITIVE_INFINITY;
        for (const item of pending.values()) oldest = Math.min(oldest, item.heldSince);
        const { promise, resolve } = Promise.withResolvers<void>();
        const timer = setTimeout(wakeRoom, Math.max(0, oldest + holdMs - monotonicMs()));
        room = { woken: promise, wake: resolve, timer };
      }
      await room.woken;
    }
    metrics.roomWait((monotonicMs() - started) / 1000);
  }

  /** The acknowledgement of a debit whose accepted half is still in memory: queued in one write. */
  async function join(
    item: PendingAccepted,
    outcome: DeliveryOutcome,
    cause: StateChangeCause,
    repeated: boolean,
  ) {
    pending.delete(item.uetr);
    held();
    const now = clock.now();
    const work = makeReady(
      {
        uetr: item.uetr,
        status: 'awaiting',
        messageJson: item.messageJson,
        acceptedAt: item.acceptedAt,
        statusReportAcknowledgedAt: now,
        statusReportId: outcome.messageIdentification,
        updatedAt: now,
      },
      cause,
      // Nothing of it was written (its halves met here), unless a record of it came before.
      { repeated: repeated || item.repeated, unwritten: !(repeated || item.repeated), held: item },
    ).catch((error: unknown) => {
      // The accepted half goes back, for the next flush (or the retried acknowledgement) to write.
      if (!pending.has(item.uetr)) pending.set(item.uetr, item);
      held();
      throw error;
    });
    joining.set(item.uetr, { item, work });
    try {
      await work;
    } finally {
      if (joining.get(item.uetr)?.work === work) joining.delete(item.uetr);
    }
  }

  return {
    async accepted(record) {
      metrics.received('accepted');
      if (record.attempt > 1) metrics.retried('accepted');
      const debit = record.value;
      const uetr = debit.transactionIdentifiers.uetr;
      const messageJson = toJson('DirectDebit', debit);
      const cause: StateChangeCause = {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      };
      if (record.headers[originHeader] === schemeOrigin) {
        // From a clearing house: nothing to wait for. Written at once, and the tombstone of a debit that
        // moved on (a record delivered again) keeps it from being queued twice.
        await recordAccepted(uetr, messageJson, clock.now(), cause, { fromScheme: true });
        return;
      }
      if (pending.has(uetr)) return; // delivered again before its first sight was written
      // Its acknowledgement went by first and is in MongoDB: this half completes the pair there now. A
      // record from a retry tier is written at once too: its offset is not its partition's to hold back.
      if (acknowledgedFirst.delete(uetr) || record.fromRetryTier === true) {
        await recordAccepted(uetr, messageJson, clock.now(), cause);
        return;
      }
      pending.set(uetr, {
        uetr,
        messageJson,
        acceptedAt: clock.now(),
        cause,
        repeated: mayBeRepeated(record),
        offset: BigInt(record.offset),
        heldSince: monotonicMs(),
      });
      held();
      if (pending.size > maxPending) await makeRoom();
    },

    async outcome(record) {
      metrics.received('outcomes');
      const outcome = record.value;
      if (outcome.operation !== 'outboundDirectDebitResponse' || outcome.result !== 'ACKNOWLEDGED') {
        metrics.ignored('outcomes', 'not-a-status-report-acknowledgement');
        return;
      }
      // The dispatcher names the state the acknowledgement led to; a rejection report's has no debit waiting.
      const state = record.headers[stateHeader];
      if (state !== undefined && state !== 'DEBIT_ACCEPTANCE_DELIVERED') {
        metrics.ignored('outcomes', 'rejection-report');
        return;
      }
      if (record.attempt > 1) metrics.retried('outcomes');
      const cause: StateChangeCause = {
        messageType: 'DeliveryOutcome',
        messageIdentification: outcome.messageIdentification,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      };
      // Its accepted half is being written in bulk: this half goes in after it. From here to the write's
      // start nothing yields, so no bulk takes the accepted half while this write is in flight.
      for (let bulk = writing.get(outcome.uetr); bulk !== undefined; bulk = writing.get(outcome.uetr)) {
        await bulk;
      }
      const waiting = pending.get(outcome.uetr);
      if (waiting !== undefined) {
        await join(waiting, outcome, cause, mayBeRepeated(record));
        return;
      }
      acknowledging.set(outcome.uetr, (acknowledging.get(outcome.uetr) ?? 0) + 1);
      let entry: DebitEntry;
      try {
        entry = await debitQueue.recordAcknowledged(outcome.uetr, outcome.messageIdentification, clock.now());
      } finally {
        const left = (acknowledging.get(outcome.uetr) ?? 1) - 1;
        if (left > 0) acknowledging.set(outcome.uetr, left);
        else acknowledging.delete(outcome.uetr);
      }
      if (entry.status !== 'awaiting') {
        metrics.ignored('outcomes', entry.status);
        return;
      }
      if (!isReadyToQueue(entry)) {
        // Its accepted half is not in MongoDB: it comes later, or came while this half was written and
        // waits in memory, in which case it is written now.
        const arrived = pending.get(outcome.uetr);
        if (arrived !== undefined) await writeAccepted([arrived]);
        else rememberAcknowledged(outcome.uetr);
        return;
      }
      await makeReady(entry, cause);
    },

    flush,
    flushReleases,

    heldFrom(topic, partition) {
      let oldest: bigint | undefined;
      const consider = (item: PendingAccepted) => {
        if (item.cause.topic !== topic || item.cause.partition !== partition) return;
        if (oldest === undefined || item.offset < oldest) oldest = item.offset;
      };
      for (const item of pending.values()) consider(item);
      for (const item of inBulks) consider(item);
      for (const { item } of joining.values()) consider(item);
      for (const { held } of releasing.values()) if (held !== undefined) consider(held);
      return oldest;
    },

    get pending() {
      return pending.size;
    },

    forget(uetrs) {
      for (const uetr of uetrs) {
        pending.delete(uetr);
        acknowledgedFirst.delete(uetr);
      }
      held();
    },
  };
}
