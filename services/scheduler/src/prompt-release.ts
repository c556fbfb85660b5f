import type { DirectDebit } from '@rp/contracts';
import type { PipelineProducer } from '@rp/pipeline';
import type { Clock } from '@rp/runtime';
import type { DebitIntake, DebitQueueItem, DebitQueueRepository } from '@rp/store';
import type { SchedulerMetrics } from './metrics.ts';
import { dueRecord } from './release.ts';
import type { WindowController } from './window-state.ts';

/** A debit made ready (DEBIT_QUEUED is out), about to be queued or released. */
export interface ReadyDebit {
  readonly item: DebitQueueItem;
  readonly debit: DirectDebit;
  readonly intake: DebitIntake;
  /** Nothing of it was written to the queue (its halves met in memory): its tombstone is an insert. */
  readonly unwritten?: boolean;
}

export interface PromptReleaseDeps {
  readonly debitQueue: Pick<DebitQueueRepository, 'recordReleased'>;
  readonly producer: PipelineProducer;
  readonly windows: Pick<WindowController, 'isDebitWindowOpen'>;
  readonly clock: Clock;
  readonly metrics: SchedulerMetrics;
  /** Asks for `release` to run soon (the service's release timer, which lets the debits of a moment meet). */
  readonly requestRelease: () => void;
  /** Debits produced and recorded together at most. */
  readonly batchSize: number;
}

interface Waiting {
  readonly ready: ReadyDebit;
  readonly resolve: (released: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Debits that become ready while their window is open do not join the queue: they wait in memory for the
 * next release (the service's release timer, within the release delay), which drains what the queue
 * holds for the window first, then produces them to `rp.directdebit.due.v1` together and writes their
 * tombstones, intake and all, in one command. The records that made them ready are committed only once
 * that is done (the scheduler's consumers wait for it before they commit). Queued and released, a debit
 * costs a write of its own, a share of a drain's read and a share of its bulk; released at once, a share
 * of one bulk.
 *
 * The queue's order holds for what the queue holds: every debit queued before a release goes before the
 * debits that release sends at once. While the last drain of the window went through the whole queue with
 * nothing written to the queue since (`drained`, `queueing`), the queue is known empty and a release does
 * not read it at all. That knowledge is this process's, which is why the scheduler runs as one instance.
 * The window is checked again when the debits go out, inside the window work that runs one piece at a
 * time: a window closed meanwhile (by an operator, by its schedule, by the reconciliation close, which
 * withdraws what is not final) sends its debits back to the queue (`submit` answers false), which is what
 * would have happened to them had they been queued.
 *
 * A debit is produced before its tombstone is written: a crash between the two leaves it to be made ready
 * again from its records, not committed until `submit` resolved, and released again (the dispatcher sends
 * it with the same messageIdentification).
 */
export class PromptRelease {
  readonly #deps: PromptReleaseDeps;
  /** The business date whose debit window was last seen open, until it is seen closed. */
  #open: string | undefined;
  /** The window whose queue the last drain left empty, while nothing was written to it since. */
  #clear: string | undefined;
  /** Debits written to the queue so far: a drain that saw a write start meanwhile proves nothing. */
  #queueWrites = 0;
  #waiting: Waiting[] = [];
  #stopped = false;

  constructor(deps: PromptReleaseDeps) {
    this.#deps = deps;
  }

  /** Whether a debit made ready now for `windowDate` is released at once rather than queued. */
  accepts(windowDate: string): boolean {
    return !this.#stopped && this.#open === windowDate;
  }

  /**
   * Hands a ready debit to the next release: resolves true once it was released (produced and its
   * tombstone written), false when it must join the queue instead (its window closed before the release,
   * or the scheduler is stopping). Rejects when the release failed.
   */
  submit(ready: ReadyDebit): Promise<boolean> {
    if (!this.accepts(ready.item.windowDate)) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      this.#waiting.push({ ready, resolve, reject });
      this.#deps.requestRelease();
    });
  }

  /** The debit window of `windowDate` was seen open. */
  opened(windowDate: string): void {
    this.#open = windowDate;
  }

  /** The window of `windowDate` was seen closed (or not yet open): its debits go to the queue. */
  closed(windowDate: string): void {
    if (this.#open === windowDate) this.#open = undefined;
    if (this.#clear === windowDate) this.#clear = undefined;
  }

  /** A debit is about to be written to the queue of `windowDate`: from now on its queue is not known empty. */
  queueing(windowDate: string): void {
    this.#queueWrites += 1;
    if (this.#clear === windowDate) this.#clear = undefined;
  }

  /** Before a drain starts: the token `drained` takes. */
  draining(): number {
    return this.#queueWrites;
  }

  /**
   * A drain of `windowDate` ended: if it went through the whole queue and nothing was written to the queue
   * since it started, the window's queue is empty and the next release need not read it.
   */
  drained(windowDate: string, token: number, complete: boolean): void {
    if (complete && token === this.#queueWrites) this.#clear = windowDate;
    else if (this.#clear === windowDate) this.#clear = undefined;
  }

  /** Whether the queue of `windowDate` is known empty (a drain of it would find nothing). */
  isClear(windowDate: string): boolean {
    return this.#clear === windowDate;
  }

  /** The debits waiting go to the queue (the drain before their release failed). */
  sendBack(): void {
    for (const entry of this.#waiting.splice(0)) entry.resolve(false);
  }

  /**
   * Releases the debits waiting, a batch at a time, after the caller drained the queue of their window
   * (or knows it empty), with the other window work, one piece at a time. A batch's records are produced
   * while the batch before writes its tombstones (each batch's records before its own tombstones, the
   * batches' records in their order). Never throws: a failure rejects the debits of its batch.
   */
  async release(): Promise<number> {
    const { producer, windows, clock } = this.#deps;
    let released = 0;
    /** The batch before's tombstones, being written: at most one behind the batch being produced. */
    let recording: Promise<number> | undefined;
    while (this.#waiting.length > 0) {
      const started = performance.now();
      const batch = this.#waiting.splice(0, Math.max(1, this.#deps.batchSize));
      const now = clock.now();
      const going: Waiting[] = [];
      const open = new Map<string, boolean>();
      for (const entry of batch) {
        const { windowDate } = entry.ready.item;
        let isOpen = open.get(windowDate);
        if (isOpen === undefined) {
          isOpen = this.#open === windowDate && (await windows.isDebitWindowOpen(windowDate, now));
          open.set(windowDate, isOpen);
        }
        if (isOpen) going.push(entry);
        else entry.resolve(false);
      }
      if (going.length === 0) continue;
      try {
        await producer.send(
          'rp.directdebit.due.v1',
          going.map(({ ready }) => dueRecord(ready.item.uetr, ready.debit, ready.item.windowDate, now)),
        );
      } catch (error) {
        for (const entry of going) entry.reject(error);
        continue;
      }
      const before = recording;
      recording = this.#recordReleased(going, now, started);
      if (before !== undefined) released += await before;
    }
    if (recording !== undefined) released += await recording;
    return released;
  }

  /** A produced batch's tombstones; resolves to how many were released (0 if the write failed). */
  async #recordReleased(going: readonly Waiting[], now: Date, started: number): Promise<number> {
    const { debitQueue, metrics } = this.#deps;
    try {
      await debitQueue.recordReleased(
        going.map(({ ready }) => ({
          uetr: ready.item.uetr,
          intake: ready.intake,
          ...(ready.unwritten === true ? { unwritten: true } : {}),
        })),
        now,
      );
    } catch (error) {
      for (const entry of going) entry.reject(error);
      return 0;
    }
    metrics.released(
      going.length,
      going.map(({ ready }) => Math.max(0, (now.getTime() - ready.item.enqueuedAt.getTime()) / 1000)),
      { atOnce: true },
    );
    metrics.drain((performance.now() - started) / 1000, 'ready');
    for (const entry of going) entry.resolve(true);
    return going.length;
  }

  /** Stopping: what waits goes to the queue, and so does whatever is offered from now on. */
  stop(): void {
    this.#stopped = true;
    this.sendBack();
  }
}
