import {
  type CreditTransfer,
  type DirectDebit,
  nextState,
  type PaymentStatusReport,
  type TransactionEventType,
  type TransactionState,
  type TransactionStateChanged,
} from '@rp/contracts';
import type { BatchContext, BatchHandler, ConsumedRecord } from '@rp/kafka';
import {
  originHeader,
  type Participants,
  type PipelineProducer,
  resentHeader,
  type StateChangeInput,
  type StateEmitter,
  schemeOrigin,
} from '@rp/pipeline';
import { AppError, type Clock, type Logger, type RecentKeys, transactionLogger } from '@rp/runtime';
import type { TransactionRepository } from '@rp/store';
import type { AccountVerifier } from './accounts.ts';
import { businessDate } from './dates.ts';
import type { Flow, SkipReason, ValidatorMetrics } from './metrics.ts';
import { buildStatusReport, statusReportId } from './report.ts';
import {
  type Decision,
  type RuleContext,
  validateCredit,
  validateDebit,
  validateSchemeDebit,
} from './rules.ts';
import { statusReportOfSnapshot } from './snapshot.ts';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';

export interface ValidatorHandlerDeps {
  readonly emitter: StateEmitter;
  readonly producer: PipelineProducer;
  readonly transactions: Pick<TransactionRepository, 'get'>;
  readonly participants: Participants;
  readonly accounts: AccountVerifier;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: ValidatorMetrics;
  /** How far ahead a collection or settlement date may lie. */
  readonly maxDaysAhead: number;
  /** Keys (transactions) of one batch planned at the same time; each key's records stay in order. */
  readonly keyConcurrency: number;
  /** Transactions this process answered (outputs acknowledged), remembered up to a bound. */
  readonly answered: RecentKeys;
}

/** A transaction the validator answers: its state change is planned, its outputs follow it. */
interface Answer<M> {
  readonly record: ConsumedRecord<M>;
  readonly message: M;
  readonly report: PaymentStatusReport;
  readonly change: StateChangeInput;
  readonly log: Logger;
  /** An inbound off-us debit, sent by a clearing house: no participant initiated it. */
  readonly fromScheme: boolean;
}

type AnswerPlan<M> = { kind: 'skip' } | ({ kind: 'answer' } & Answer<M>);

type ReportPlan =
  | { kind: 'skip' }
  | { kind: 'apply'; record: ConsumedRecord<PaymentStatusReport>; change: StateChangeInput; log: Logger };

/** What differs between answering a debit and answering a credit transfer authorisation. */
interface AnswerFlow<M extends DirectDebit | CreditTransfer> {
  readonly flow: Flow;
  readonly consumer: 'debits' | 'credits';
  /** For log lines. */
  readonly noun: string;
  readonly messageType: M['schema'];
  /** fromState when the record carries no rp-state header: the state the ingress left it in. */
  readonly receivedState: TransactionState;
  readonly accepted: { readonly eventType: TransactionEventType; readonly state: TransactionState };
  readonly rejected: { readonly eventType: TransactionEventType; readonly state: TransactionState };
  /**
   * Whether the record came from a clearing house rather than a participant (always false for credits);
   * throws on an origin this version does not know, which dead-letters that record alone.
   */
  fromScheme(record: ConsumedRecord<M>): boolean;
  /**
   * States in which the transaction is (re)answered: none yet or the received state (the snapshot may
   * lag the state topic), and the answered states whose outputs may not all have been produced (a
   * failure between the state change's acknowledgement and theirs). Any other state means the outputs
   * exist: the record is skipped.
   */
  answerable(fromScheme: boolean): ReadonlySet<string>;
  validate(message: M, context: RuleContext, fromScheme: boolean): Decision;
  /**
   * The outputs after the acknowledged state changes, in order (`changes[i]` is `answers[i]`'s change). A
   * failure fails the batch's answers: retry tiers, then the dead-letter topic.
   */
  produce(answers: readonly Answer<M>[], changes: readonly TransactionStateChanged[]): Promise<void>;
}

export interface ValidatorHandlers {
  /** rp.directdebit.received.v1: validate, answer with ACCP or RJCT, pass accepted debits on. */
  readonly debits: BatchHandler<DirectDebit>;
  /** rp.credittransfer.received.v1: validate, accept or reject, pass accepted credits on. */
  readonly credits: BatchHandler<CreditTransfer>;
  /** rp.statusreport.received.v1: the actioning bank's ACSC or RJCT ends the transaction. */
  readonly reports: BatchHandler<PaymentStatusReport>;
}

export function createValidatorHandlers(deps: ValidatorHandlerDeps): ValidatorHandlers {
  const { emitter, producer, transactions, metrics, logger, clock, answered } = deps;

  const debitFlow: AnswerFlow<DirectDebit> = {
    flow: 'debit',
    consumer: 'debits',
    noun: 'debit',
    messageType: 'DirectDebit',
    receivedState: 'DEBIT_RECEIVED',
    accepted: { eventType: 'DEBIT_REQUEST_ACCEPTED', state: 'DEBIT_ACCEPTED' },
    rejected: { eventType: 'DEBIT_REQUEST_REJECTED', state: 'DEBIT_REJECTED' },
    fromScheme: isFromScheme,
    answerable: (fromScheme) => (fromScheme ? schemeDebitAnswerable : debitAnswerable),
    validate: (debit, context, fromScheme) =>
      fromScheme ? validateSchemeDebit(debit, context) : validateDebit(debit, context),
    async produce(answers, changes) {
      // The accepted debits first, then the reports: a report downstream means its accepted debit is on
      // its topic (see answerable). An off-us debit keeps its origin, so that the scheduler queues it at
      // once (no initiating bank awaits an acceptance).
      const accepted = answers.flatMap((answer, index) =>
        answer.report.status.status === 'ACCP' ? [{ answer, state: changes[index]?.toState }] : [],
      );
      if (accepted.length > 0) {
        await producer.send(
          'rp.directdebit.accepted.v1',
          accepted.map(({ answer, state }) => ({
            key: answer.message.transactionIdentifiers.uetr,
            value: answer.message,
            headers: {
              [stateHeader]: state ?? 'DEBIT_ACCEPTED',
              ...(answer.fromScheme ? { [originHeader]: schemeOrigin } : {}),
            },
          })),
        );
      }
      // Only a participant's debit is answered with a report: there is no way back to a clearing house
      // yet, so an off-us debit's report is only recorded with its state change.
      const reported = answers.flatMap((answer, index) =>
        answer.fromScheme ? [] : [{ answer, state: changes[index]?.toState }],
      );
      if (reported.length === 0) return;
      await producer.send(
        'rp.statusreport.outbound.v1',
        reported.map(({ answer, state }) => ({
          key: answer.message.transactionIdentifiers.uetr,
          value: answer.report,
          headers: { [stateHeader]: state ?? '' },
        })),
      );
    },
  };

  const creditFlow: AnswerFlow<CreditTransfer> = {
    flow: 'credit',
    consumer: 'credits',
    noun: 'credit transfer',
    messageType: 'CreditTransfer',
    receivedState: 'CREDIT_AUTH_RECEIVED',
    accepted: { eventType: 'CREDIT_AUTH_ACCEPTED', state: 'CREDIT_AUTH_ACCEPTED' },
    rejected: { eventType: 'CREDIT_AUTH_REJECTED', state: 'CREDIT_AUTH_REJECTED' },
    fromScheme: () => false,
    answerable: () => creditAnswerable,
    validate: validateCredit,
    async produce(answers, changes) {
      // Only accepted credits go on, to their delivery to the creditor's bank. A rejected credit has no
      // way back to the sending bank yet: its state change is all there is.
      const accepted = answers.flatMap((answer, index) =>
        answer.report.status.status === 'ACCP' ? [{ answer, state: changes[index]?.toState }] : [],
      );
      if (accepted.length === 0) return;
      await producer.send(
        'rp.credittransfer.accepted.v1',
        accepted.map(({ answer, state }) => ({
          key: answer.message.transactionIdentifiers.uetr,
          value: answer.message,
          headers: { [stateHeader]: state ?? 'CREDIT_AUTH_ACCEPTED' },
        })),
      );
    },
  };

  function answerHandler<M extends DirectDebit | CreditTransfer>(spec: AnswerFlow<M>): BatchHandler<M> {
    async function plan(record: ConsumedRecord<M>, firstOfKey: boolean): Promise<AnswerPlan<M>> {
      const message = record.value;
      const uetr = message.transactionIdentifiers.uetr;
      const messageIdentification = message.messageIdentifiers.messageIdentification;
      const log = transactionLogger(logger, { uetr, messageIdentification });
      const skip = (reason: SkipReason, fields: Record<string, unknown> = {}): AnswerPlan<M> => {
        metrics.skipped(spec.flow, reason);
        log.info({ reason, ...fields }, `${spec.noun} not validated again`);
        return { kind: 'skip' };
      };
      if (record.attempt > 1) metrics.retried(spec.consumer);
      // The same transaction twice in one batch: a resend the ingress produced again. One answer is enough.
      if (!firstOfKey) return skip('repeated-in-batch');
      if (answered.has(uetr)) return skip('already-answered');
      const fromState = stateOf(record, spec.receivedState);
      const fromScheme = spec.fromScheme(record);

      // The duplicate check, one read by _id: the UETR names one transaction, and a record of it arriving
      // again must not be answered differently. Only a record that may be such a repeat is checked: a
      // retry, one the group may have handled before (redelivered after a crash or a rebalance), or one
      // the ingress produced again for a resend. Any other is the transaction's first record here (the
      // ingress's claim on its UETR refuses a second message that names it).
      const checked = mayRepeat(record);
      metrics.duplicateCheck(spec.flow, checked ? 'read' : 'skipped');
      const snapshot = checked ? await transactions.get(uetr) : null;
      const recorded = snapshot?.state ?? null;
      if (recorded !== null && !spec.answerable(fromScheme).has(recorded))
        return skip('past-validation', { state: recorded });

      const now = clock.now();
      let decision: Decision = spec.validate(
        message,
        {
          participants: deps.participants,
          accounts: deps.accounts,
          today: businessDate(now),
          maxDaysAhead: deps.maxDaysAhead,
          onCdv: (role, status) => metrics.cdv(spec.flow, role, status),
        },
        fromScheme,
      );
      let report: PaymentStatusReport | undefined;
      if (snapshot !== null && (recorded === spec.accepted.state || recorded === spec.rejected.state)) {
        // Answered before: repeat the recorded answer, never contradict it (a date may have rolled over,
        // the CDV tables or the participants may have changed since).
        report = statusReportOfSnapshot(snapshot, statusReportId(uetr));
        const recordedAccepted = recorded === spec.accepted.state;
        if (report === undefined && decision.accepted !== recordedAccepted) {
          decision = recordedAccepted
            ? { accepted: true }
            : {
                accepted: false,
                reasons: [
                  {
                    code: 'MS03',
                    text: 'Rejected when first validated; the original reasons were not recorded',
                  },
                ],
              };
        }
        log.info({ state: recorded }, `${spec.noun} answered before; repeating the answer`);
      }
      report ??= buildStatusReport(message, decision, now);
      const eventType = report.status.status === 'ACCP' ? spec.accepted.eventType : spec.rejected.eventType;
      // Refuses an unexpected rp-state here, for this record alone (non-retriable: dead-lettered).
      nextState(fromState, eventType);
      return {
        kind: 'answer',
        record,
        message,
        report,
        log,
        fromScheme,
        change: {
          fromState,
          eventType,
          transaction: message,
          statusReport: report,
          occurredAt: now,
          causedBy: {
            messageType: spec.messageType,
            messageIdentification,
            topic: record.topic,
            partition: record.partition,
            offset: record.offset,
          },
        },
      };
    }

    return async (records, context) => {
      const started = performance.now();
      metrics.received(spec.flow, records.length);
      const plans = await planByKey(records, context, deps.keyConcurrency, plan, (count) =>
        metrics.failed(spec.consumer, count),
      );
      const answers = plans.filter((entry) => entry.kind === 'answer');
      if (answers.length > 0) {
        try {
          // The state changes first (the tracker sequences them), then the outputs that let the next
          // service act on the transaction.
          const changes = await emitter.emit(answers.map((answer) => answer.change));
          await spec.produce(answers, changes);
        } catch (error) {
          for (const answer of answers) context.fail(answer.record, error);
          metrics.failed(spec.consumer, answers.length);
          logger.warn(
            { err: error, [spec.consumer]: answers.length },
            `answers not produced; the ${spec.consumer} go to retry`,
          );
          return;
        }
        const finished = Date.now();
        for (const answer of answers) {
          answered.add(answer.message.transactionIdentifiers.uetr);
          const reasonInfo = answer.report.status.reasonInfo ?? [];
          const accepted = answer.report.status.status === 'ACCP';
          metrics.validated(
            spec.flow,
            accepted ? 'accepted' : 'rejected',
            reasonInfo.map((info) => info.reason.code),
          );
          metrics.latency(spec.flow, (finished - Date.parse(answer.record.timestamp)) / 1000);
          answer.log.info(
            {
              status: answer.report.status.status,
              reasons: reasonInfo.map((info) => info.reason.code),
              reportId: answer.report.messageIdentifiers.messageIdentification,
            },
            `${spec.noun} ${accepted ? 'accepted' : 'rejected'}`,
          );
        }
      }
      metrics.batch(spec.consumer, (performance.now() - started) / 1000, records.length);
    };
  }

  async function planReport(
    record: ConsumedRecord<PaymentStatusReport>,
    firstOfKey: boolean,
  ): Promise<ReportPlan> {
    const report = record.value;
    const uetr = report.transactionIdentifiers.uetr;
    const status = report.status.status;
    const log = transactionLogger(logger, {
      uetr,
      messageIdentification: report.messageIdentifiers.messageIdentification,
    });
    if (record.attempt > 1) metrics.retried('reports');
    const eventType: TransactionEventType | undefined =
      status === 'ACSC' ? 'DEBIT_COMPLETED' : status === 'RJCT' ? 'DEBIT_UNPAID' : undefined;
    if (eventType === undefined) {
      // An interim status (ACSP, PDNG, ...) ends nothing: the final report follows.
      metrics.statusReport(status, 'ignored');
      log.info({ status }, 'interim status report; no state change');
      return { kind: 'skip' };
    }
    const fromState = stateOf(record, 'DEBIT_RESPONSE_ACCEPTED');
    nextState(fromState, eventType);
    // No read: the report carries only originalTransactionData, so the change names the transaction by
    // its UETR and the tracker, which holds the transaction, fills the payload in; a report on a
    // transaction already final (reconciled meanwhile, or reported on before) the tracker leaves alone.
    if (!firstOfKey) log.info('another report of the same transaction in this batch');
    return {
      kind: 'apply',
      record,
      log,
      change: {
        fromState,
        eventType,
        uetr,
        statusReport: report,
        occurredAt: clock.now(),
        causedBy: {
          messageType: 'PaymentStatusReport',
          messageIdentification: report.messageIdentifiers.messageIdentification,
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
        },
      },
    };
  }

  const reports: BatchHandler<PaymentStatusReport> = async (records, context) => {
    const started = performance.now();
    const plans = await planByKey(records, context, deps.keyConcurrency, planReport, (count) =>
      metrics.failed('reports', count),
    );
    const applies = plans.filter((plan) => plan.kind === 'apply');
    if (applies.length > 0) {
      try {
        await emitter.emit(applies.map((apply) => apply.change));
      } catch (error) {
        for (const apply of applies) context.fail(apply.record, error);
        metrics.failed('reports', applies.length);
        logger.warn(
          { err: error, reports: applies.length },
          'state changes not produced; the reports go to retry',
        );
        return;
      }
      for (const apply of applies) {
        const status = apply.record.value.status.status;
        metrics.statusReport(status, 'applied');
        apply.log.info({ status, eventType: apply.change.eventType }, 'status report applied');
      }
    }
    metrics.batch('reports', (performance.now() - started) / 1000, records.length);
  };

  return { debits: answerHandler(debitFlow), credits: answerHandler(creditFlow), reports };
}

/**
 * Debit states in which a participant's debit is (re)answered. Past DEBIT_ACCEPTED / DEBIT_REJECTED, the
 * dispatcher has consumed the report, which is produced after the accepted debit: both exist.
 */
const debitAnswerable: ReadonlySet<string> = new Set<TransactionState>([
  'DEBIT_RECEIVED',
  'DEBIT_ACCEPTED',
  'DEBIT_REJECTED',
]);

/**
 * An off-us debit's rejection is complete once its state change is acknowledged: no report goes back to
 * the clearing house yet, so nothing else is produced for it. An accepted one's accepted record may be
 * missing until the scheduler has queued it.
 */
const schemeDebitAnswerable: ReadonlySet<string> = new Set<TransactionState>([
  'DEBIT_RECEIVED',
  'DEBIT_ACCEPTED',
]);

/**
 * A rejected credit is final and its state change is its only output, so CREDIT_AUTH_REJECTED is
 * complete. An accepted one's forwarded credit may be missing until the dispatcher has taken it.
 */
const creditAnswerable: ReadonlySet<string> = new Set<TransactionState>([
  'CREDIT_AUTH_RECEIVED',
  'CREDIT_AUTH_ACCEPTED',
]);

/**
 * Whether a debit came from a clearing house (the ingress marks it with rp-origin: scheme) rather than
 * from a participating bank. An origin this version does not know is refused rather than guessed: an
 * off-us debit answered as a participant's would send a report to a bank that never asked.
 */
function isFromScheme(record: ConsumedRecord<unknown>): boolean {
  const origin = record.headers[originHeader];
  if (origin === undefined || origin === '') return false;
  if (origin === schemeOrigin) return true;
  throw new AppError('VALIDATION_FAILED', `unknown ${originHeader} header ${JSON.stringify(origin)}`, {
    retriable: false,
  });
}

/**
 * Whether a record may repeat one handled before: a retry, a redelivery the consumer group may have
 * handled already, or a record the ingress produced again for a resend.
 */
function mayRepeat(record: ConsumedRecord<unknown>): boolean {
  return record.attempt > 1 || record.possiblyHandled === true || record.headers[resentHeader] !== undefined;
}

/** The state the previous service left the transaction in, from the record's rp-state header. */
function stateOf(record: ConsumedRecord<unknown>, expected: TransactionState): TransactionState {
  const header = record.headers[stateHeader];
  return header === undefined || header === '' ? expected : (header as TransactionState);
}

/**
 * Plans a batch: each key's records in offset order, keys `concurrency` at a time. A record whose plan
 * fails is reported to the consumer (retry or dead letter) and its key's later records are left alone:
 * the consumer parks the key and hands them over again after the failed one.
 */
async function planByKey<T, P>(
  records: readonly ConsumedRecord<T>[],
  context: BatchContext<T>,
  concurrency: number,
  plan: (record: ConsumedRecord<T>, firstOfKey: boolean) => Promise<P>,
  onFailures: (count: number) => void,
): Promise<P[]> {
  const groups = new Map<string, ConsumedRecord<T>[]>();
  records.forEach((record, index) => {
    const key = record.key === '' ? `\u0000${index}` : record.key;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  });
  const queue = [...groups.values()];
  const plans: P[] = [];
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const group = queue[next] as ConsumedRecord<T>[];
      next += 1;
      for (const [index, record] of group.entries()) {
        try {
          plans.push(await plan(record, index === 0));
        } catch (error) {
          context.fail(record, error);
          failures += 1;
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), queue.length) }, worker));
  if (failures > 0) onFailures(failures);
  return plans;
}
