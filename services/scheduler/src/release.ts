import type { DirectDebit } from '@rp/contracts';
import type { ProducerRecord } from '@rp/kafka';
import type { PipelineProducer } from '@rp/pipeline';
import { type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { DebitQueueRepository } from '@rp/store';
import { readDirectDebit, releasedAtHeader, stateHeader, windowDateHeader } from './messages.ts';
import type { SchedulerMetrics } from './metrics.ts';
import type { WindowController } from './window-state.ts';

export interface ReleaseDeps {
  readonly debitQueue: Pick<DebitQueueRepository, 'drain' | 'markDispatched'>;
  readonly producer: PipelineProducer;
  readonly windows: WindowController;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: SchedulerMetrics;
  /** Debits read, produced and taken off the queue together. */
  readonly batchSize: number;
}

/** A debit's record on `rp.directdebit.due.v1`, released to `windowDate`'s window at `now`. */
export function dueRecord(
  uetr: string,
  debit: DirectDebit,
  windowDate: string,
  now: Date,
): ProducerRecord<DirectDebit> {
  return {
    key: uetr,
    value: debit,
    headers: {
      [stateHeader]: 'DEBIT_QUEUED',
      [windowDateHeader]: windowDate,
      [releasedAtHeader]: now.toISOString(),
    },
  };
}

/**
 * Releases a window's debits to `rp.directdebit.due.v1` in the queue's order (see the store's
 * debitOrderKey: requested collection date, creditor agent, time queued, UETR). One cursor streams the
 * queue a batch at a time; each batch is produced (one send, so its records keep their order) and only
 * then taken off the queue, so memory holds one batch and a crash releases a batch twice at worst
 * (the dispatcher resends with the same messageIdentification). The window is checked before every
 * batch: closing it stops the release between two batches. `complete`: the drain went through the whole
 * queue of the window (debits it could not read stay behind, for reconciliation).
 */
export async function releaseWindow(
  deps: ReleaseDeps,
  windowDate: string,
): Promise<{ released: number; complete: boolean }> {
  const { debitQueue, producer, windows, clock, logger, metrics } = deps;
  const started = performance.now();
  let released = 0;
  let complete = true;
  for await (const batch of debitQueue.drain(windowDate, { batchSize: deps.batchSize })) {
    const now = clock.now();
    if (!(await windows.isDebitWindowOpen(windowDate, now))) {
      complete = false;
      break;
    }
    const records: ProducerRecord<DirectDebit>[] = [];
    const waits: number[] = [];
    for (const item of batch) {
      const debit = readDirectDebit(item.messageJson);
      if (debit === undefined) {
        // Left in the queue: it cannot be delivered, and reconciliation raises it at the window's close.
        transactionLogger(logger, { uetr: item.uetr }).error(
          { windowDate },
          'queued debit is not a readable DirectDebit; not released',
        );
        continue;
      }
      records.push(dueRecord(item.uetr, debit, windowDate, now));
      waits.push(Math.max(0, (now.getTime() - item.enqueuedAt.getTime()) / 1000));
    }
    if (records.length > 0) {
      await producer.send('rp.directdebit.due.v1', records);
      await debitQueue.markDispatched(
        records.map((record) => record.key),
        now,
      );
      released += records.length;
      metrics.released(records.length, waits);
    }
  }
  metrics.drain((performance.now() - started) / 1000, 'queue');
  if (released > 0) logger.info({ windowDate, released }, 'debits released');
  return { released, complete };
}
