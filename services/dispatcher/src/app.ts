import {
  bankPaths,
  type CreditTransfer,
  type DirectDebit,
  type PaymentStatusReport,
  type TransactionState,
  toJson,
} from '@rp/contracts';
import type { ConsumedRecord, HandlerContext } from '@rp/kafka';
import type { Participant, Participants } from '@rp/pipeline';
import { AppError } from '@rp/runtime';
import { type Deliverer, type DeliveryJob, type DispatchOperation, stateHeader } from './delivery.ts';
import type { DispatcherMetrics } from './metrics.ts';

/** Header on due debits: when the scheduler released them, the start of their delivery. */
export const releasedAtHeader = 'rp-released-at';

export interface DispatchHandlerDeps {
  readonly deliver: Deliverer;
  readonly participants: Participants;
  readonly metrics: DispatcherMetrics;
}

export interface DispatchHandlers {
  /** rp.statusreport.outbound.v1: POST {initiating bank}/outbound/direct-debit-response until 202. */
  statusReport(record: ConsumedRecord<PaymentStatusReport>, context: HandlerContext): Promise<void>;
  /** rp.directdebit.due.v1: POST {actioning bank}/inbound/direct-debit until 202. */
  dueDebit(record: ConsumedRecord<DirectDebit>, context: HandlerContext): Promise<void>;
  /**
   * rp.credittransfer.accepted.v1: POST {creditor's bank}/inbound/credit-transfer-authorization until 202.
   */
  creditTransfer(record: ConsumedRecord<CreditTransfer>, context: HandlerContext): Promise<void>;
}

/**
 * The initiating bank of an outbound debit, which the engine's status report goes back to: the report's
 * instructedAgent (the validator addresses the report to the debit's instructing agent), else the
 * original transaction's creditor agent (on an on-us debit the creditor's bank initiates the collection).
 */
export function initiatingBankOf(report: PaymentStatusReport): string | undefined {
  return report.instructedAgent?.memberId ?? report.originalTransactionData?.creditorAgent?.memberId;
}

/** The actioning bank of a debit, which debits the account: the debtor agent. */
export function actioningBankOf(debit: DirectDebit): string | undefined {
  return debit.debtorAgent.memberId;
}

/** The bank a credit transfer authorisation goes to, which credits the creditor: the creditor agent. */
export function creditorBankOf(credit: CreditTransfer): string | undefined {
  return credit.creditorAgent.memberId;
}

function participant(
  participants: Participants,
  memberId: string | undefined,
  role: string,
  uetr: string,
): Participant {
  const bank = memberId === undefined ? undefined : participants.get(memberId);
  if (bank === undefined) {
    // Not retriable: no attempt can succeed until an operator adds the bank; the record is dead-lettered.
    throw new AppError(
      'CONFIG_INVALID',
      `transaction ${uetr}: the ${role} ${memberId ?? '(none named)'} is not a participant`,
      {
        retriable: false,
      },
    );
  }
  return bank;
}

function originOf(text: string | undefined, fallback: string): Date {
  const at = text === undefined ? Number.NaN : Date.parse(text);
  return new Date(Number.isNaN(at) ? Date.parse(fallback) : at);
}

/** The transaction's state as the record's producer left it (rp-state), else the state its topic implies. */
function fromStateOf(record: ConsumedRecord<unknown>, otherwise: TransactionState): TransactionState {
  const header = record.headers[stateHeader];
  return header !== undefined && header !== '' ? (header as TransactionState) : otherwise;
}

export function createDispatchHandlers(deps: DispatchHandlerDeps): DispatchHandlers {
  const { deliver, participants, metrics } = deps;

  /**
   * One record's delivery. The job is made inside, so that a record that cannot be delivered at all (its
   * bank is not a participant) counts as failed like any other; a record that only waits for its next
   * attempt does not.
   */
  async function run(
    operation: DispatchOperation,
    signal: AbortSignal,
    job: () => Omit<DeliveryJob, 'operation'>,
  ): Promise<void> {
    metrics.received(operation);
    try {
      await deliver({ operation, ...job() }, signal);
    } catch (error) {
      if (!(error instanceof AppError && error.retriable && error.code.startsWith('DOWNSTREAM'))) {
        metrics.failed(operation);
      }
      throw error;
    }
  }

  return {
    async statusReport(record, context) {
      const report = record.value;
      const uetr = report.transactionIdentifiers.uetr;
      return run('outboundDirectDebitResponse', context.signal, () => ({
        uetr,
        messageIdentification: report.messageIdentifiers.messageIdentification,
        bank: participant(participants, initiatingBankOf(report), 'initiating bank', uetr),
        path: bankPaths.outboundDirectDebitResponse,
        body: toJson('PaymentStatusReport', report),
        fromState: fromStateOf(record, report.status.status === 'RJCT' ? 'DEBIT_REJECTED' : 'DEBIT_ACCEPTED'),
        events: {
          pending: 'DEBIT_STATUS_DELIVERY_PENDING',
          delivered: 'DEBIT_STATUS_DELIVERED',
          failure: 'DEBIT_STATUS_DELIVERY_FAILURE',
        },
        origin: originOf(report.messageIdentifiers.creationDateTime, record.timestamp),
        messageType: 'PaymentStatusReport',
        statusReport: report,
        record,
      }));
    },

    async dueDebit(record, context) {
      const debit = record.value;
      const uetr = debit.transactionIdentifiers.uetr;
      return run('inboundDirectDebit', context.signal, () => ({
        uetr,
        messageIdentification: debit.messageIdentifiers.messageIdentification,
        bank: participant(participants, actioningBankOf(debit), 'actioning bank', uetr),
        path: bankPaths.inboundDirectDebit,
        body: toJson('DirectDebit', debit),
        fromState: fromStateOf(record, 'DEBIT_QUEUED'),
        events: {
          pending: 'DEBIT_DELIVERY_PENDING',
          delivered: 'DEBIT_DELIVERED',
          failure: 'DEBIT_DELIVERY_FAILURE',
        },
        origin: originOf(record.headers[releasedAtHeader], record.timestamp),
        messageType: 'DirectDebit',
        transaction: debit,
        record,
      }));
    },

    async creditTransfer(record, context) {
      const credit = record.value;
      const uetr = credit.transactionIdentifiers.uetr;
      return run('inboundCreditTransferAuthorization', context.signal, () => ({
        uetr,
        messageIdentification: credit.messageIdentifiers.messageIdentification,
        bank: participant(participants, creditorBankOf(credit), "creditor's bank", uetr),
        path: bankPaths.inboundCreditTransferAuthorization,
        body: toJson('CreditTransfer', credit),
        fromState: fromStateOf(record, 'CREDIT_AUTH_ACCEPTED'),
        events: {
          pending: 'CREDIT_AUTH_DELIVERY_PENDING',
          delivered: 'CREDIT_AUTH_DELIVERED',
          failure: 'CREDIT_AUTH_DELIVERY_FAILURE',
        },
        // Accepted when the validator wrote the record (a retried record keeps that time): the credit is
        // tried until the reconciliation window of that moment closes.
        origin: new Date(record.timestamp),
        messageType: 'CreditTransfer',
        transaction: credit,
        record,
      }));
    },
  };
}
