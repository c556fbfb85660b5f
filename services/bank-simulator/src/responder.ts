import { randomUUID } from 'node:crypto';
import {
  type DirectDebit,
  type PaymentStatusReport,
  parseJsonExact,
  servicePaths,
  toJson,
  validate,
} from '@rp/contracts';
import { AppError, type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { ExchangedMessage, SimulatorRecords } from './records.ts';

export interface ResponderRetry {
  /** First wait after a failed attempt. */
  initialDelayMs: number;
  /** Longest wait between attempts (a Retry-After above it is cut to it). */
  maxDelayMs: number;
  /** Attempts before giving up. */
  maxAttempts: number;
  /** How long one attempt may take. */
  requestTimeoutMs: number;
}

export const defaultResponderRetry: ResponderRetry = {
  initialDelayMs: 100,
  maxDelayMs: 5_000,
  maxAttempts: 100,
  requestTimeoutMs: 10_000,
};

export interface ResponderOptions {
  /** The engine's base URL; the report goes to `{engineUrl}/api/v1/inbound/direct-debit-response`. */
  engineUrl: string | undefined;
  /** How long the bank "takes" to debit the account before it reports. */
  responseDelayMs: number;
  /** Debtor account numbers the bank answers RJCT AM04 (insufficient funds) for. */
  insufficientFunds: ReadonlySet<string>;
  retry: ResponderRetry;
  records: SimulatorRecords;
  clock: Clock;
  logger: Logger;
}

/** The debtor's account number: the EFT shortened number when present, else the account identification. */
export function debtorAccountOf(debit: DirectDebit): string | undefined {
  return (
    debit.paymentScheme.schemeData?.shortenedDebtorAccountNumber ?? debit.debtorAccount.identification?.value
  );
}

/** A unique messageIdentification (35 characters, the ISO 20022 maximum). */
export function newMessageIdentification(): string {
  return `SIM${randomUUID().replace(/-/g, '')}`;
}

/**
 * The actioning bank's PaymentStatusReport for an inbound debit: ACSC (the debtor was debited), or RJCT
 * AM04 when the debtor's account is one the bank is told has insufficient funds. Validated like any
 * report the engine receives.
 */
export function buildInboundResponse(
  debit: DirectDebit,
  actioningBank: string,
  options: { insufficientFunds: ReadonlySet<string>; now: Date; messageIdentification?: string },
): PaymentStatusReport {
  const account = debtorAccountOf(debit);
  const unpaid = account !== undefined && options.insufficientFunds.has(account);
  const creditorBank = debit.creditorAgent.memberId;
  const report: PaymentStatusReport = {
    messageIdentifiers: {
      messageIdentification: options.messageIdentification ?? newMessageIdentification(),
      creationDateTime: options.now.toISOString(),
    },
    originalMessageIdentifiers: debit.messageIdentifiers,
    transactionIdentifiers: debit.transactionIdentifiers,
    instructingAgent: { memberId: actioningBank },
    ...(creditorBank === undefined ? {} : { instructedAgent: { memberId: creditorBank } }),
    originalTransactionData: {
      amounts: debit.amounts,
      debtorAccount: debit.debtorAccount,
      ...(debit.creditorAccount === undefined ? {} : { creditorAccount: debit.creditorAccount }),
      paymentMethod: 'DirectDebit',
      ...(debit.settlementDate === undefined ? {} : { settlementDate: debit.settlementDate }),
    },
    paymentScheme: debit.paymentScheme,
    status: unpaid
      ? { status: 'RJCT', reasonInfo: [{ reason: { code: 'AM04' }, additionalInfo: ['Insufficient funds'] }] }
      : { status: 'ACSC' },
    schema: 'PaymentStatusReport',
  };
  const checked = validate('PaymentStatusReport', parseJsonExact(toJson('PaymentStatusReport', report)));
  if (!checked.ok) {
    throw new AppError('INTERNAL', `the simulated report is invalid: ${JSON.stringify(checked.errors)}`);
  }
  return checked.value;
}

/**
 * Answers inbound debits the way an actioning bank does: after a delay, POSTs its report to the engine
 * and resends the same report (same messageIdentification) with backoff until the engine answers 202;
 * 409 means the engine has it already. Every other answer, and no answer, is retried up to
 * `maxAttempts` (a 422 can be the engine's snapshot lagging its Kafka log).
 */
export class InboundResponder {
  readonly #options: ResponderOptions;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: ResponderOptions) {
    this.#options = options;
  }

  /** Schedules the report for a stored inbound debit. */
  respond(memberId: string, debit: DirectDebit): void {
    const { engineUrl, records, logger } = this.#options;
    const log = transactionLogger(logger, {
      uetr: debit.transactionIdentifiers.uetr,
      messageIdentification: debit.messageIdentifiers.messageIdentification,
    });
    if (engineUrl === undefined) {
      log.warn({ memberId }, 'no engine URL configured: the inbound debit is not answered');
      return;
    }
    if (this.#stopping.signal.aborted) return;
    const task = this.#run(memberId, debit, log).catch((error: unknown) => {
      log.error({ err: error, memberId }, 'inbound debit response failed');
    });
    this.#inFlight.add(task);
    void task.finally(() => {
      this.#inFlight.delete(task);
      records.touched();
    });
  }

  async #run(memberId: string, debit: DirectDebit, log: Logger): Promise<void> {
    const { records, retry, clock } = this.#options;
    await this.#sleep(this.#options.responseDelayMs);
    if (this.#stopping.signal.aborted) return;
    const report = buildInboundResponse(debit, memberId, {
      insufficientFunds: this.#options.insufficientFunds,
      now: clock.now(),
    });
    const body = toJson('PaymentStatusReport', report);
    const delivery: NonNullable<ExchangedMessage['delivery']> = {
      attempts: 0,
      lastStatus: null,
      state: 'pending',
    };
    records.addMessage({
      kind: 'inboundDirectDebitResponse',
      memberId,
      uetr: report.transactionIdentifiers.uetr,
      messageIdentification: report.messageIdentifiers.messageIdentification,
      at: clock.now().toISOString(),
      body: report,
      delivery,
    });
    records.responseSent();
    const url = `${this.#options.engineUrl?.replace(/\/+$/, '')}${servicePaths.inboundDirectDebitResponse}`;
    const reportLog = log.child({
      reportId: report.messageIdentifiers.messageIdentification,
      status: report.status.status,
    });
    let delay = retry.initialDelayMs;
    for (let attempt = 1; attempt <= retry.maxAttempts; attempt += 1) {
      if (this.#stopping.signal.aborted) break;
      delivery.attempts = attempt;
      delivery.lastAttemptAt = clock.now().toISOString();
      records.responseAttempt();
      let retryAfterMs: number | undefined;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.any([this.#stopping.signal, AbortSignal.timeout(retry.requestTimeoutMs)]),
        });
        await response.arrayBuffer().catch(() => undefined);
        delivery.lastStatus = response.status;
        delete delivery.lastError;
        if (response.status === 202 || response.status === 409) {
          delivery.state = 'done';
          records.responseSettled('acknowledged');
          reportLog.info({ attempt, httpStatus: response.status }, 'inbound debit response acknowledged');
          return;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
        reportLog.warn(
          { attempt, httpStatus: response.status },
          'inbound debit response not acknowledged; retrying',
        );
      } catch (error) {
        delivery.lastStatus = null;
        delivery.lastError = error instanceof Error ? error.message : String(error);
        reportLog.warn(
          { attempt, error: delivery.lastError },
          'inbound debit response got no answer; retrying',
        );
      }
      records.touched();
      if (attempt < retry.maxAttempts) {
        const jittered = delay / 2 + Math.random() * (delay / 2);
        await this.#sleep(Math.min(retry.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0)));
        delay = Math.min(retry.maxDelayMs, delay * 2);
      }
    }
    delivery.state = 'failed';
    records.responseSettled('failed');
    reportLog.error({ attempts: delivery.attempts }, 'inbound debit response gave up');
  }

  #sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.#stopping.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Abandons pending reports (they are marked failed) and waits for attempts in flight to end. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.allSettled([...this.#inFlight]);
  }
}
