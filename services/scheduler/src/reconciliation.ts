import type {
  KnownReconciliationCode,
  ReconciliationItem,
  ReconciliationWindow,
  TransactionState,
} from '@rp/contracts';
import type { PipelineProducer, StateChangeInput, StateEmitter } from '@rp/pipeline';
import { type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { Store, TransactionSnapshot, TransactionSummary } from '@rp/store';
import { transactionOfSnapshot } from './messages.ts';
import type { SchedulerMetrics } from './metrics.ts';
import { reconciliationRowFor, unresolvedStates } from './reconciliation-rows.ts';
import type { WindowController } from './window-state.ts';

export interface ReconciliationDeps {
  readonly store: Pick<Store, 'transactions' | 'debitQueue' | 'reconciliation' | 'reconciliationCloses'>;
  readonly emitter: StateEmitter;
  readonly producer: PipelineProducer;
  readonly windows: WindowController;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: SchedulerMetrics;
  /** Transactions examined at the same time (each costs a few reads by _id). */
  readonly concurrency: number;
  /** How long the debit queue's tombstones and lone halves are kept (the input topics' retention). */
  readonly intakeRetentionMs: number;
  /**
   * Real time the close waits, once no debit of the day can be released any more, before it reads the
   * snapshots: the tracker writes them behind its postings (`TRACKER_SNAPSHOT_INTERVAL`), so a change
   * made just before the close reaches its snapshot within that time. 0 reads at once; a close that runs
   * later than its instant waits only what is left of it.
   */
  readonly settleMs?: number;
  /** The debits were withdrawn from the queue: whatever of them waits in memory is dropped. */
  readonly onWithdrawn?: (uetrs: readonly string[]) => void;
}

export interface ReconciliationSummary {
  windowId: string;
  window: ReconciliationWindow;
  /** Items raised by this run. */
  raised: number;
  /** Unresolved transactions already raised for this window by an earlier run. */
  alreadyRaised: number;
  /** Unresolved but waiting for a later window (a debit queued for a later date). */
  waiting: number;
  byRow: Record<string, number>;
}

interface Finding {
  uetr: string;
  /** The state at the close, and the sequence number of the change that made it. */
  state: TransactionState;
  sequence: number;
  row: number;
  code: KnownReconciliationCode;
  text: string;
  messageIdentification?: string;
  change?: StateChangeInput;
}

const pageSize = 200;

/**
 * Closes the reconciliation window of `businessDate` at `closesAt`: every transaction created before
 * the close, unresolved then and not final now, becomes a ReconciliationItem with the spec section 7 row
 * of its state at the close. For each page of them: RECONCILIATION_REQUIRED (acknowledged first), the
 * items on `rp.reconciliation.v1`, the items stored (idempotent per window and UETR), and their debits
 * withdrawn from the queue. Once every page is done, the close is kept in the store, so a scheduler that
 * starts again neither runs it again nor looks for it as missed.
 * Running it again for the same window raises nothing twice: a transaction already stored for the window
 * is skipped, and the state change repeats its stable event id.
 *
 * The state at the close is read from the transaction's history (its last change at or before
 * `closesAt`), so a close that runs late, on the next day's first tick (a close at `24:00`, or one
 * missed while no scheduler ran), judges each transaction as it stood at the close: a debit queued then
 * and released since was waiting for a later window, and one that has since become final has nothing
 * left to reconcile.
 */
export async function closeReconciliationWindow(
  deps: ReconciliationDeps,
  businessDate: string,
  closesAt: Date,
): Promise<ReconciliationSummary> {
  const { store, windows, logger, metrics } = deps;
  const started = performance.now();
  const calendar = windows.calendar;
  const closedBefore = windows.reconciliationClosedAt(businessDate) !== undefined;
  // Closed from the start: no debit of the day is released, and none made ready joins its window.
  windows.markReconciliationClosed(businessDate, closesAt);
  // A close run late (on the next day's first tick, or after a restart) has settled already.
  const settleMs = (deps.settleMs ?? 0) - (deps.clock.now().getTime() - closesAt.getTime());
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  const window: ReconciliationWindow = {
    businessDate,
    opensAt: calendar
      .windowsOf(calendar.previousBusinessDay(businessDate))
      .reconciliationClosesAt.toISOString(),
    closesAt: closesAt.toISOString(),
  };
  const summary: ReconciliationSummary = {
    windowId: businessDate,
    window,
    raised: 0,
    alreadyRaised: 0,
    waiting: 0,
    byRow: {},
  };
  const debitClosesAt = calendar.windowsOf(businessDate).debitClosesAt;

  async function assess(found: TransactionSummary): Promise<Finding | undefined> {
    if ((await store.reconciliation.get(businessDate, found.uetr)) !== null) {
      summary.alreadyRaised += 1;
      return undefined;
    }
    const snapshot = await store.transactions.get(found.uetr);
    const state = snapshot?.state;
    if (!snapshot || !state || !isUnresolved(state)) return undefined;
    const atClose = stateAt(snapshot, closesAt);
    if (!isUnresolved(atClose.state)) return undefined;
    if (await waitsForLaterWindow(snapshot, atClose.state)) {
      summary.waiting += 1;
      return undefined;
    }
    const transaction = transactionOfSnapshot(snapshot);
    const messageIdentification = transaction?.messageIdentifiers.messageIdentification;
    const answered = snapshot.deliveryAttempts.some(
      (attempt) =>
        attempt.httpStatus !== null &&
        attempt.at <= closesAt &&
        (messageIdentification === undefined || attempt.messageIdentification === messageIdentification),
    );
    const row = reconciliationRowFor(atClose.state, answered);
    if (row === undefined) return undefined;
    return {
      uetr: found.uetr,
      state: atClose.state as TransactionState,
      sequence: atClose.sequence,
      ...row,
      ...(messageIdentification === undefined ? {} : { messageIdentification }),
      ...(transaction === undefined
        ? {}
        : {
            change: {
              fromState: state as TransactionState,
              eventType: 'RECONCILIATION_REQUIRED',
              transaction,
              causedBy: { messageType: 'ReconciliationWindowClosed' },
              occurredAt: closesAt,
            },
          }),
    };
  }

  /**
   * A debit waiting for a later debit window at the close is not unresolved: queued for a later date,
   * acknowledged only after the day's debit window closed (the scheduler queues it for the next one), or
   * moved on since the close (no debit of the day leaves after its close: it left in a later window).
   */
  async function waitsForLaterWindow(snapshot: TransactionSnapshot, stateAtClose: string): Promise<boolean> {
    if (stateAtClose !== 'DEBIT_QUEUED' && stateAtClose !== 'DEBIT_ACCEPTANCE_DELIVERED') return false;
    if (snapshot.history.some((entry) => entry.at > closesAt)) return true;
    if (stateAtClose === 'DEBIT_QUEUED') {
      const queued = await store.debitQueue.get(snapshot.uetr);
      return queued !== null && queued.windowDate > businessDate;
    }
    const reached = [...snapshot.history].reverse().find((entry) => entry.to === stateAtClose)?.at;
    return reached !== undefined && reached >= debitClosesAt;
  }

  async function settle(findings: readonly Finding[]): Promise<void> {
    const now = deps.clock.now();
    const changes = findings.flatMap((finding) => (finding.change ? [finding.change] : []));
    if (changes.length > 0) await deps.emitter.emit(changes);
    await deps.producer.send(
      'rp.reconciliation.v1',
      findings.map((finding) => ({
        key: finding.uetr,
        value: {
          uetr: finding.uetr,
          row: finding.row,
          code: finding.code,
          text: finding.text,
          stateAtClose: finding.state,
          sequenceAtClose: finding.sequence,
          ...(finding.messageIdentification === undefined
            ? {}
            : { messageIdentification: finding.messageIdentification }),
          window,
          detectedAt: now.toISOString(),
        } satisfies ReconciliationItem,
      })),
    );
    await store.reconciliation.record(
      findings.map((finding) => ({
        windowId: businessDate,
        uetr: finding.uetr,
        row: finding.row,
        code: finding.code,
        text: finding.text,
        stateAtClose: finding.state,
        createdAt: now,
      })),
    );
    const uetrs = findings.map((finding) => finding.uetr);
    await store.debitQueue.withdraw(uetrs, now);
    deps.onWithdrawn?.(uetrs);
    for (const finding of findings) {
      summary.raised += 1;
      summary.byRow[String(finding.row)] = (summary.byRow[String(finding.row)] ?? 0) + 1;
      metrics.reconciliationItems(finding.row, 1);
      const log = transactionLogger(logger, {
        uetr: finding.uetr,
        ...(finding.messageIdentification ? { messageIdentification: finding.messageIdentification } : {}),
      });
      if (!finding.change)
        log.warn({ state: finding.state }, 'no payload in the snapshot: state not changed');
      log.info(
        { windowId: businessDate, row: finding.row, state: finding.state },
        'reconciliation item raised',
      );
    }
  }

  try {
    for (const state of unresolvedStates) {
      for await (const page of unresolvedPages(store.transactions, state, closesAt)) {
        const findings = (await mapBounded(page, deps.concurrency, assess)).filter(
          (finding): finding is Finding => finding !== undefined,
        );
        if (findings.length > 0) await settle(findings);
      }
    }
    await store.reconciliationCloses.record({
      businessDate,
      closedAt: windows.reconciliationClosedAt(businessDate) ?? closesAt,
      ranAt: deps.clock.now(),
      raised: summary.raised,
    });
  } catch (error) {
    // What was raised stays raised (stored per window and UETR); the next run raises the rest.
    if (!closedBefore) windows.forgetReconciliationClose(businessDate);
    metrics.reconciliationFailed();
    throw error;
  }
  const purged = await store.debitQueue.purge(new Date(closesAt.getTime() - deps.intakeRetentionMs));
  metrics.reconciliationRun((performance.now() - started) / 1000);
  logger.info({ ...summary, purged }, 'reconciliation window closed');
  return summary;
}

function isUnresolved(state: string): boolean {
  return (unresolvedStates as readonly string[]).includes(state);
}

/**
 * A transaction's state at an instant, and the sequence number of the change that made it: its last
 * change at or before it (its current state when the history has none so early).
 */
function stateAt(snapshot: TransactionSnapshot, instant: Date): { state: string; sequence: number } {
  for (let index = snapshot.history.length - 1; index >= 0; index -= 1) {
    const entry = snapshot.history[index];
    if (entry !== undefined && entry.at <= instant) return { state: entry.to, sequence: entry.seq };
  }
  return { state: snapshot.state ?? '', sequence: snapshot.lastSeq };
}

/**
 * Transactions in `state` created before `before`, newest first, a page at a time. The repository pages
 * by creation time only, so the cursor moves to the oldest time seen and the UETRs already seen at
 * exactly that time are skipped on the next page.
 */
async function* unresolvedPages(
  transactions: Store['transactions'],
  state: string,
  before: Date,
): AsyncGenerator<TransactionSummary[]> {
  let cursor = before.getTime();
  let seenAtCursor = new Set<string>();
  let inclusive = false;
  for (;;) {
    const page = await transactions.search({
      state,
      to: new Date(inclusive ? cursor + 1 : cursor),
      limit: pageSize,
    });
    const fresh = page.filter((found) => !seenAtCursor.has(found.uetr));
    if (fresh.length > 0) yield fresh;
    if (page.length < pageSize) return;
    const oldest = Math.min(...page.map((found) => found.createdAt.getTime()));
    const atOldest = page.filter((found) => found.createdAt.getTime() === oldest).map((found) => found.uetr);
    if (fresh.length === 0) {
      // A full page of one millisecond, all seen: step past that millisecond.
      cursor = oldest;
      inclusive = false;
      seenAtCursor = new Set();
      continue;
    }
    seenAtCursor =
      oldest === cursor && inclusive ? new Set([...seenAtCursor, ...atOldest]) : new Set(atOldest);
    cursor = oldest;
    inclusive = true;
  }
}

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
