import { randomUUID } from 'node:crypto';
import {
  type CreditTransfer,
  type DirectDebit,
  type PaymentStatusReport,
  parseJsonExact,
  servicePaths,
  toJson,
  validate,
} from '@rp/contracts';
import { AppError, type Clock, type Deadline, deadline, type Logger, transactionLogger } from '@rp/runtime';
import { request } from 'undici';
import type { ExchangedMessage, MessageKind, SimulatorRecords } from './records.ts';

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

/** A bank's `Authorization` header for its calls to the engine; `refused` drops one the engine refused. */
export interface BankAuthorization {
  (memberId: string): Promise<string | undefined>;
  refused(memberId: string, header: string): void;
}

export interface ResponderOptions {
  /**
   * The engine's base URL; a debit's report goes to `{engineUrl}/api/v1/inbound/direct-debit-response`,
   * a credit's to `{engineUrl}/api/v1/inbound/credit-transfer-authorization-response`.
   */
  engineUrl: string | undefined;
  /** The bank's `Authorization` header on its calls to the engine (an OAuth2 access token), if any. */
  authorization?: BankAuthorization;
  /** How long the bank "takes" to debit or credit the account before it reports. */
  responseDelayMs: number;
  /** Debtor account numbers the bank answers RJCT AM04 (insufficient funds) for. */
  insufficientFunds: ReadonlySet<string>;
  /** Creditor account numbers the bank answers RJCT AC04 (closed account) for. */
  closedAccounts: ReadonlySet<string>;
  retry: ResponderRetry;
  records: SimulatorRecords;
  clock: Clock;
  logger: Logger;
}

/** A message the bank answers with a PaymentStatusReport of its own. */
export type AnsweredMessage =
  /** The bank is the debtor's: it debits the account (ACSC) or finds it unpaid (RJCT). */
  | { kind: 'inboundDirectDebit'; message: DirectDebit }
  /** The bank is the creditor's: it credits the account (ACSC) or refuses it (RJCT). */
  | { kind: 'inboundCreditTransferAuthorization'; message: CreditTransfer };

/** Where the report on each kind of message goes, and how the records and the log name it. */
const answers = {
  inboundDirectDebit: {
    path: servicePaths.inboundDirectDebitResponse,
    kind: 'inboundDirectDebitResponse',
    subject: 'inbound debit',
    label: 'inbound debit response',
  },
  inboundCreditTransferAuthorization: {
    path: servicePaths.inboundCreditTransferAuthorizationResponse,
    kind: 'inboundCreditTransferAuthorizationResponse',
    subject: 'credit transfer authorisation',
    label: 'credit authorisation response',
  },
} as const satisfies Record<
  AnsweredMessage['kind'],
  { path: string; kind: MessageKind; subject: string; label: string }
>;

/** The debtor's account number: the EFT shortened number when present, else the account identification. */
export function debtorAccountOf(debit: DirectDebit): string | undefined {
  return (
    debit.paymentScheme.schemeData?.shortenedDebtorAccountNumber ?? debit.debtorAccount.identification?.value
  );
}

/** The creditor's account number: the EFT shortened number when present, else the account identification. */
export function creditorAccountOf(credit: CreditTransfer): string {
  return (
    credit.paymentScheme.schemeData?.shortenedCreditorAccountNumber ??
    credit.creditorAccount.identification.value
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
  return checkedReport(report);
}

/**
 * The creditor bank's PaymentStatusReport for a credit transfer authorisation: ACSC (the creditor was
 * credited), or RJCT AC04 when the creditor's account is one the bank is told is closed. The bank (the
 * credit's creditorAgent) instructs, the debtor's agent is instructed. Validated like any report the
 * engine receives.
 */
export function buildCreditAuthorizationResponse(
  credit: CreditTransfer,
  creditorBank: string,
  options: { closedAccounts: ReadonlySet<string>; now: Date; messageIdentification?: string },
): PaymentStatusReport {
  const closed = options.closedAccounts.has(creditorAccountOf(credit));
  const report: PaymentStatusReport = {
    messageIdentifiers: {
      messageIdentification: options.messageIdentification ?? newMessageIdentification(),
      creationDateTime: options.now.toISOString(),
    },
    originalMessageIdentifiers: credit.messageIdentifiers,
    transactionIdentifiers: credit.transactionIdentifiers,
    // The bank the engine delivered the credit to is the one answering it.
    instructingAgent: { ...credit.creditorAgent, memberId: creditorBank },
    instructedAgent: credit.debtorAgent,
    originalTransactionData: {
      amounts: credit.amounts,
      creditor: credit.creditor,
      creditorAccount: credit.creditorAccount,
      creditorAgent: credit.creditorAgent,
      debtor: credit.debtor,
      ...(credit.debtorAccount === undefined ? {} : { debtorAccount: credit.debtorAccount }),
      debtorAgent: credit.debtorAgent,
      paymentMethod: 'CreditTransfer',
      ...(credit.paymentTypeInformation === undefined
        ? {}
        : { paymentTypeInformation: credit.paymentTypeInformation }),
    },
    paymentScheme: credit.paymentScheme,
    status: closed
      ? { status: 'RJCT', reasonInfo: [{ reason: { code: 'AC04' }, additionalInfo: ['Account closed'] }] }
      : { status: 'ACSC' },
    schema: 'PaymentStatusReport',
  };
  return checkedReport(report);
}

/** The bank's report on a message it answers. */
export function buildResponse(
  answered: AnsweredMessage,
  bank: string,
  options: { insufficientFunds: ReadonlySet<string>; closedAccounts: ReadonlySet<string>; now: Date },
): PaymentStatusReport {
  return answered.kind === 'inboundDirectDebit'
    ? buildInboundResponse(answered.message, bank, options)
    : buildCreditAuthorizationResponse(answered.message, bank, options);
}

/** The report as the engine will read it (amounts through their JSON form), refused if it is invalid. */
function checkedReport(report: PaymentStatusReport): PaymentStatusReport {
  const checked = validate('PaymentStatusReport', parseJsonExact(toJson('PaymentStatusReport', report)));
  if (!checked.ok) {
    throw new AppError('INTERNAL', `the simulated report is invalid: ${JSON.stringify(checked.errors)}`);
  }
  return checked.value;
}

/**
 * Answers inbound debits the way an actioning bank does, and credit transfer authorisations the way a
 * creditor bank does: after a delay, POSTs its report to the engine and resends the same report (same
 * messageIdentification) with backoff until the engine answers 202; 409 means the engine has it already.
 * Every other answer, and no answer, is retried up to `maxAttempts` (a 422 can be the engine's snapshot
 * lagging its Kafka log).
 */
export class InboundResponder {
  readonly #options: ResponderOptions;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: ResponderOptions) {
    this.#options = options;
  }

  /** Schedules the report for a stored inbound debit or credit transfer authorisation. */
  respond(memberId: string, answered: AnsweredMessage): void {
    const { engineUrl, records, logger } = this.#options;
    const { subject, label } = answers[answered.kind];
    const log = transactionLogger(logger, {
      uetr: answered.message.transactionIdentifiers.uetr,
      messageIdentification: answered.message.messageIdentifiers.messageIdentification,
    });
    if (engineUrl === undefined) {
      log.warn({ memberId }, `no engine URL configured: the ${subject} is not answered`);
      return;
    }
    if (this.#stopping.signal.aborted) return;
    const task = this.#run(memberId, answered, log).catch((error: unknown) => {
      log.error({ err: error, memberId }, `${label} failed`);
    });
    this.#inFlight.add(task);
    void task.finally(() => {
      this.#inFlight.delete(task);
      records.touched();
    });
  }

  async #run(memberId: string, answered: AnsweredMessage, log: Logger): Promise<void> {
    const { records, retry, clock } = this.#options;
    const { path, kind, label } = answers[answered.kind];
    await this.#sleep(this.#options.responseDelayMs);
    if (this.#stopping.signal.aborted) return;
    const report = buildResponse(answered, memberId, {
      insufficientFunds: this.#options.insufficientFunds,
      closedAccounts: this.#options.closedAccounts,
      now: clock.now(),
    });
    const body = toJson('PaymentStatusReport', report);
    const delivery: NonNullable<ExchangedMessage['delivery']> = {
      attempts: 0,
      lastStatus: null,
      state: 'pending',
    };
    records.addMessage({
      kind,
      memberId,
      uetr: report.transactionIdentifiers.uetr,
      messageIdentification: report.messageIdentifiers.messageIdentification,
      at: clock.now().toISOString(),
      delivery,
      text: body,
    });
    records.responseSent();
    const url = `${this.#options.engineUrl?.replace(/\/+$/, '')}${path}`;
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
        const authorization = await this.#options.authorization?.(memberId);
        const { status, retryAfter } = await post(
          url,
          { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body,
          deadline(retry.requestTimeoutMs, this.#stopping.signal),
        );
        // A token the engine refuses (expired on the way) is not used again: the next attempt gets a new one.
        if (status === 401 && authorization) this.#options.authorization?.refused(memberId, authorization);
        delivery.lastStatus = status;
        delete delivery.lastError;
        if (status === 202 || status === 409) {
          records.responseSettled(delivery, 'acknowledged');
          reportLog.info({ attempt, httpStatus: status }, `${label} acknowledged`);
          return;
        }
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
        reportLog.warn({ attempt, httpStatus: status }, `${label} not acknowledged; retrying`);
      } catch (error) {
        delivery.lastStatus = null;
        delivery.lastError = error instanceof Error ? error.message : String(error);
        reportLog.warn({ attempt, error: delivery.lastError }, `${label} got no answer; retrying`);
      }
      records.touched();
      if (attempt < retry.maxAttempts) {
        const jittered = delay / 2 + Math.random() * (delay / 2);
        await this.#sleep(Math.min(retry.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0)));
        delay = Math.min(retry.maxDelayMs, delay * 2);
      }
    }
    records.responseSettled(delivery, 'failed');
    reportLog.error({ attempts: delivery.attempts }, `${label} gave up`);
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

/**
 * One POST over undici's keep-alive pool: its status and Retry-After seconds (NaN without one), the body
 * read and let go. The deadline is cleared once the call settles (a timeout signal's timer would fire
 * for every call, long after its answer).
 */
async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  limit: Deadline,
): Promise<{ status: number; retryAfter: number }> {
  try {
    const response = await request(url, { method: 'POST', headers, body, signal: limit.signal });
    await response.body.dump().catch(() => undefined);
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      retryAfter: Number(typeof retryAfter === 'string' ? retryAfter : Number.NaN),
    };
  } finally {
    limit.clear();
  }
}
