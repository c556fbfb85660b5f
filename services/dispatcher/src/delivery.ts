import {
  type CreditTransfer,
  type DeliveryOperation,
  type DeliveryOutcome,
  type DirectDebit,
  type KnownEventType,
  type MessageName,
  nextState,
  type PaymentStatusReport,
  type StateChangeCause,
  type TransactionState,
} from '@rp/contracts';
import type { ConsumedRecord } from '@rp/kafka';
import type { Participant, PipelineProducer, StateEmitter } from '@rp/pipeline';
import {
  AppError,
  type Clock,
  type Logger,
  realDuration,
  type Tracing,
  transactionLogger,
} from '@rp/runtime';
import type { WindowCalendar } from '@rp/scheduler/windows';
import type { BankClient } from './bank-client.ts';
import type { BankGates, CallHealth } from './bank-gate.ts';
import type { DeferReason, DispatcherMetrics } from './metrics.ts';
import { type BackoffPolicy, classifyStatus, nextAttemptAt, parseRetryAfter } from './retry.ts';
import type { RetrySchedule } from './schedule.ts';
import { keysFor, requestHeaders, type SigningKeys } from './signing.ts';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';

/** The calls the dispatcher makes on banks (event postings are the event-publisher's). */
export type DispatchOperation = Extract<
  DeliveryOperation,
  'outboundDirectDebitResponse' | 'inboundDirectDebit' | 'inboundCreditTransferAuthorization'
>;

/** The messages the dispatcher delivers: what a state change's causedBy names before the bank answers. */
export type DispatchMessageType = Extract<
  MessageName,
  'PaymentStatusReport' | 'DirectDebit' | 'CreditTransfer'
>;

/** One message to deliver to one bank, as a topic handler made it from a record. */
export interface DeliveryJob {
  readonly operation: DispatchOperation;
  readonly uetr: string;
  readonly messageIdentification: string;
  readonly bank: Participant;
  /** The bank's path (bankPaths), appended to its base URL. */
  readonly path: string;
  /** The message as JSON text: the same bytes on every attempt. */
  readonly body: string;
  /** The transaction's state before the first attempt (the record's rp-state header). */
  readonly fromState: TransactionState;
  readonly events: {
    readonly pending: KnownEventType;
    readonly delivered: KnownEventType;
    readonly failure: KnownEventType;
  };
  /** When the message came into being in the engine: its reconciliation window, so its retry deadline. */
  readonly origin: Date;
  readonly messageType: DispatchMessageType;
  readonly statusReport?: PaymentStatusReport;
  /**
   * The transaction's payload the state changes carry: its DirectDebit or its CreditTransfer. Absent for
   * the engine's status report, which does not carry it: the tracker fills it in from what it recorded.
   */
  readonly transaction?: DirectDebit | CreditTransfer;
  readonly record: ConsumedRecord<unknown>;
}

/**
 * A record goes back to the consumer's retry tiers: a failed attempt, or no attempt now (the bank is
 * paused or busy, the next attempt is not due). The consumer parks the transaction's later records
 * behind it; other transactions flow.
 */
export class DeliveryDeferred extends AppError {
  readonly reason: DeferReason | 'retry';
  /**
   * When the record can be attempted again (its backoff, its bank's pause): the consumer puts it on the
   * retry tier that brings it back then, not on one chosen by how often it was deferred.
   */
  readonly retryInMs: number;

  constructor(reason: DeferReason | 'retry', message: string, retryInMs: number) {
    super(reason === 'retry' ? 'DOWNSTREAM_REJECTED' : 'DOWNSTREAM_TIMEOUT', message, { retriable: true });
    this.reason = reason;
    this.retryInMs = Math.max(0, retryInMs);
  }
}

export interface DelivererDeps {
  readonly client: BankClient;
  readonly gates: BankGates;
  readonly schedule: RetrySchedule;
  readonly emitter: StateEmitter;
  readonly producer: PipelineProducer;
  readonly calendar: WindowCalendar;
  readonly clock: Clock;
  readonly backoff: BackoffPolicy;
  /** Longest Retry-After honoured. */
  readonly maxRetryAfterMs: number;
  readonly signingKeys: ReadonlyMap<string, SigningKeys>;
  readonly metrics: DispatcherMetrics;
  /** A client span per call to a bank; the bank gets it as the call's traceparent. */
  readonly tracing?: Tracing;
  readonly logger: Logger;
  readonly userAgent: string;
  readonly random?: () => number;
}

export type Deliverer = (job: DeliveryJob, signal: AbortSignal) => Promise<void>;

/**
 * Makes one attempt at delivering a message, store-and-forward:
 * 1. past the deadline (the close of the message's reconciliation window) nothing more is tried;
 * 2. before the first attempt, …_DELIVERY_PENDING is emitted (acknowledged before the call);
 * 3. the call, admitted by the bank's gate (concurrency cap, pause after timeouts);
 * 4. 202: …_DELIVERED; a final answer: …_DELIVERY_FAILURE; either acknowledged before the outcome;
 * 5. every attempt: a DeliveryOutcome on rp.delivery.outcome.v1, its rp-state header the state after it;
 * 6. a retryable failure throws DeliveryDeferred so the record waits on the retry tiers, unless the next
 *    attempt would fall after the deadline: then the outcome is final and the transaction is left for
 *    reconciliation.
 * A failure to emit or produce throws too (retried: the bank sees the same message again, same id).
 */
export function createDeliverer(deps: DelivererDeps): Deliverer {
  const { client, gates, schedule, emitter, producer, calendar, clock, metrics, logger } = deps;

  async function produceOutcome(outcome: DeliveryOutcome, state: TransactionState): Promise<void> {
    await producer.send('rp.delivery.outcome.v1', [
      { key: outcome.uetr, value: outcome, headers: { [stateHeader]: state } },
    ]);
  }

  return async function deliver(job, signal) {
    const { operation } = job;
    const log = transactionLogger(logger, {
      uetr: job.uetr,
      messageIdentification: job.messageIdentification,
    });
    const key = `${operation}:${job.uetr}:${job.messageIdentification}`;
    const now = clock.now();
    const deadline = calendar.deliveryDeadline(job.origin);
    if (now >= deadline) {
      schedule.delete(key);
      metrics.expired(operation);
      log.warn(
        { operation, bank: job.bank.memberId, deadline: deadline.toISOString() },
        'reconciliation window closed: no further attempt, the transaction is left for reconciliation',
      );
      return;
    }
    const state = schedule.get(key) ?? {
      attempts: Math.max(0, job.record.attempt - 1),
      pendingEmitted: false,
    };
    if (state.nextAttemptAt !== undefined && now < state.nextAttemptAt) {
      metrics.deferred(operation, 'not-yet-due');
      throw new DeliveryDeferred(
        'not-yet-due',
        `next attempt due at ${state.nextAttemptAt.toISOString()}`,
        // The business clock may run faster than real time (a demo's): the hint is in real time.
        realDuration(clock, state.nextAttemptAt.getTime() - now.getTime()),
      );
    }
    // Refuses an rp-state the transition table does not allow, before anything happens (dead-lettered).
    const pendingState = nextState(job.fromState, job.events.pending);
    const payload = job.transaction === undefined ? { uetr: job.uetr } : { transaction: job.transaction };
    const statusReport = job.statusReport ? { statusReport: job.statusReport } : {};
    if (!state.pendingEmitted) {
      await emitter.emit([
        {
          fromState: job.fromState,
          eventType: job.events.pending,
          ...payload,
          ...statusReport,
          causedBy: {
            messageType: job.messageType,
            messageIdentification: job.messageIdentification,
            topic: job.record.topic,
            partition: job.record.partition,
            offset: job.record.offset,
          },
          occurredAt: now,
        },
      ]);
      state.pendingEmitted = true;
      schedule.set(key, state);
    }

    const gate = gates.of(job.bank.memberId);
    const admission = await gate.admit();
    if (!admission.admitted) {
      metrics.deferred(operation, admission.reason);
      throw new DeliveryDeferred(
        admission.reason,
        `bank ${job.bank.memberId}: ${admission.reason}`,
        admission.retryInMs,
      );
    }
    metrics.inFlight(job.bank.memberId, gate.inFlight);
    const attemptedAt = clock.now();
    const headers = requestHeaders({
      messageIdentification: job.messageIdentification,
      body: job.body,
      // Real time, not the business clock: banks check the signature's freshness against their own clocks.
      at: new Date(),
      keys: keysFor(deps.signingKeys, job.bank.memberId),
      uetr: job.uetr,
      userAgent: deps.userAgent,
      ...(job.record.headers.traceparent ? { traceparent: job.record.headers.traceparent } : {}),
      ...(job.record.headers.tracestate ? { tracestate: job.record.headers.tracestate } : {}),
    });
    const span = deps.tracing?.startSpan(`POST ${job.path}`, {
      role: 'client',
      parent: job.record.headers,
      uetr: job.uetr,
      attributes: {
        'http.request.method': 'POST',
        'rp.bank': job.bank.memberId,
        'rp.operation': operation,
        'rp.attempt': state.attempts + 1,
      },
    });
    if (span?.headers.traceparent) headers.traceparent = span.headers.traceparent;
    const result = await client.post(`${job.bank.baseUrl}${job.path}`, headers, job.body, signal);
    const status = 'status' in result ? result.status : undefined;
    if (span) {
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if (status === undefined || status >= 500) {
        span.fail('error' in result ? result.error : new Error(`HTTP ${status}`));
      }
      span.end();
    }
    const retryAfterMs =
      'status' in result && (result.status === 429 || result.status === 503)
        ? parseRetryAfter(result.retryAfter, attemptedAt, deps.maxRetryAfterMs)
        : undefined;
    const health: CallHealth =
      'error' in result
        ? { kind: 'unresponsive' }
        : retryAfterMs !== undefined && retryAfterMs > 0
          ? { kind: 'paused', forMs: retryAfterMs }
          : classifyStatus(result.status) === 'RETRYABLE_FAILURE'
            ? { kind: 'failing' }
            : { kind: 'answered' };
    admission.release(health);
    metrics.inFlight(job.bank.memberId, gate.inFlight);
    if ('error' in result && result.error.code === 'ABORTED') {
      throw new AppError('SHUTTING_DOWN', 'delivery abandoned: the consumer is stopping');
    }

    const attempt = state.attempts + 1;
    state.attempts = attempt;
    schedule.set(key, state);
    const outcomeResult = status === undefined ? 'RETRYABLE_FAILURE' : classifyStatus(status);
    metrics.attempt(operation, job.bank.memberId, outcomeResult, result.latencyMs / 1000);
    const base = {
      uetr: job.uetr,
      messageIdentification: job.messageIdentification,
      targetBank: job.bank.memberId,
      operation,
      attempt,
      attemptedAt: attemptedAt.toISOString(),
      ...('status' in result ? { httpStatus: result.status } : { error: result.error }),
      latencyMs: result.latencyMs,
    } as const;
    const fields = {
      operation,
      bank: job.bank.memberId,
      attempt,
      httpStatus: status,
      latencyMs: result.latencyMs,
    };

    if (outcomeResult !== 'RETRYABLE_FAILURE') {
      const acknowledged = outcomeResult === 'ACKNOWLEDGED';
      const cause: StateChangeCause = {
        messageType: 'DeliveryOutcome',
        messageIdentification: job.messageIdentification,
      };
      const [change] = await emitter.emit([
        {
          fromState: pendingState,
          eventType: acknowledged ? job.events.delivered : job.events.failure,
          ...payload,
          ...statusReport,
          causedBy: cause,
          occurredAt: clock.now(),
        },
      ]);
      await produceOutcome({ ...base, result: outcomeResult, final: true }, change?.toState ?? pendingState);
      schedule.delete(key);
      if (acknowledged) {
        metrics.delivered(operation, Math.max(0, Date.now() - Date.parse(job.record.timestamp)) / 1000);
        log.info(fields, 'delivered: the bank acknowledged with 202');
      } else {
        metrics.finalFailure(operation);
        log.warn(fields, 'delivery failed: the bank refused the message with a final answer');
      }
      return;
    }

    const next = nextAttemptAt(deps.backoff, attempt, attemptedAt, deadline, retryAfterMs, deps.random);
    await produceOutcome(
      {
        ...base,
        result: 'RETRYABLE_FAILURE',
        final: next === undefined,
        ...(next === undefined ? {} : { nextAttemptAt: next.toISOString() }),
      },
      pendingState,
    );
    const error = 'error' in result ? result.error : undefined;
    if (next === undefined) {
      schedule.delete(key);
      metrics.expired(operation);
      log.warn(
        { ...fields, error, deadline: deadline.toISOString() },
        'no attempt fits before the reconciliation window closes: left for reconciliation',
      );
      return;
    }
    state.nextAttemptAt = next;
    schedule.set(key, state);
    metrics.retryScheduled(operation);
    log.info({ ...fields, error, nextAttemptAt: next.toISOString() }, 'attempt failed; retrying later');
    throw new DeliveryDeferred(
      'retry',
      `attempt ${attempt} failed (${status ?? error?.code}); next at ${next.toISOString()}`,
      next.getTime() - clock.now().getTime(),
    );
  };
}
