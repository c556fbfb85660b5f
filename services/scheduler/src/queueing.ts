import { type DeliveryOutcome, type DirectDebit, type StateChangeCause, toJson } from '@rp/contracts';
import type { ConsumedRecord } from '@rp/kafka';
import { originHeader, type StateEmitter, schemeOrigin } from '@rp/pipeline';
import { AppError, type Clock, type Logger, transactionLogger } from '@rp/runtime';
import { type DebitEntry, type DebitQueueRepository, isReadyToQueue } from '@rp/store';
import { readDirectDebit, stateHeader } from './messages.ts';
import type { SchedulerMetrics } from './metrics.ts';
import type { WindowController } from './window-state.ts';

export interface QueueingDeps {
  readonly debitQueue: Pick<DebitQueueRepository, 'recordAccepted' | 'recordAcknowledged' | 'enqueue'>;
  readonly emitter: StateEmitter;
  readonly windows: WindowController;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: SchedulerMetrics;
  /** Told when a debit joined the queue for `windowDate`: if that window is open it goes out promptly. */
  readonly onQueued: (windowDate: string) => void;
}

export interface QueueingHandlers {
  /**
   * rp.directdebit.accepted.v1: the debit waits for its ACCP report's acknowledgement; one from a clearing
   * house (`rp-origin: scheme`) has no report to wait for and is queued at once.
   */
  accepted(record: ConsumedRecord<DirectDebit>): Promise<void>;
  /** rp.delivery.outcome.v1: the initiating bank's 202 to an ACCP report makes its debit ready. */
  outcome(record: ConsumedRecord<DeliveryOutcome>): Promise<void>;
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

  /**
   * Both halves are in (or the debit came from a clearing house): DEBIT_QUEUED first (acknowledged
   * before anything can release the debit, so the dispatcher's DEBIT_DELIVERY_PENDING always follows
   * it), then the entry becomes queued for its window, in one write. A failure half way is repeated
   * whole on the retried record: each step is idempotent.
   */
  async function makeReady(
    entry: DebitEntry & { messageJson: string; acceptedAt: Date },
    cause: StateChangeCause,
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
    const { outcome, orderKey } = await debitQueue.enqueue(
      {
        uetr: entry.uetr,
        windowDate,
        requestedCollectionDate: debit.requestedCollectionDate ?? windowDate,
        creditorAgentMemberId: creditorAgentKey(debit),
        origin: fromScheme ? 'inbound' : 'on-us',
        enqueuedAt: entry.acceptedAt,
        messageJson: entry.messageJson,
      },
      now,
    );
    metrics.queued();
    log.info({ windowDate, orderKey, outcome, fromScheme }, 'debit queued for its window');
    deps.onQueued(windowDate);
  }

  return {
    async accepted(record) {
      metrics.received('accepted');
      if (record.attempt > 1) metrics.retried('accepted');
      const debit = record.value;
      const uetr = debit.transactionIdentifiers.uetr;
      const entry = await debitQueue.recordAccepted(uetr, toJson('DirectDebit', debit), clock.now(), {
        fromScheme: record.headers[originHeader] === schemeOrigin,
      });
      if (entry.status !== 'awaiting') {
        metrics.ignored('accepted', entry.status);
        return;
      }
      if (!isReadyToQueue(entry)) return;
      await makeReady(entry, {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      });
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
      const entry = await debitQueue.recordAcknowledged(
        outcome.uetr,
        outcome.messageIdentification,
        clock.now(),
      );
      if (entry.status !== 'awaiting') {
        metrics.ignored('outcomes', entry.status);
        return;
      }
      if (!isReadyToQueue(entry)) return;
      await makeReady(entry, {
        messageType: 'DeliveryOutcome',
        messageIdentification: outcome.messageIdentification,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      });
    },
  };
}
