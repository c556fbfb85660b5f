import {
  type Acknowledgement,
  apiPrefix,
  asyncApiDocument,
  type CreditTransfer,
  type DirectDebit,
  type FieldError,
  openApiDocument,
  type PaymentStatusReport,
  type ProblemDetails,
  problem,
  problemContentType,
  servicePaths,
  type TransactionEventType,
  type TransactionState,
  type TransactionStateChanged,
  type ValidationResult,
  validateCreditTransfer,
  validateDirectDebit,
  validatePaymentStatusReport,
  validationProblem,
} from '@rp/contracts';
import {
  originHeader,
  type Participant,
  type Participants,
  type PipelineProducer,
  resentHeader,
  type StateEmitter,
  schemeOrigin,
} from '@rp/pipeline';
import {
  type AppEnv,
  AppError,
  type Clock,
  isRetriable,
  type Logger,
  RecentMap,
  transactionLogger,
} from '@rp/runtime';
import {
  type ClaimedTransaction,
  type ClaimOutcome,
  type IdempotencyRepository,
  type TransactionRepository,
  transactionKey,
} from '@rp/store';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AcceptedTransactions } from './accepted.ts';
import type { BankAuthenticator } from './bank-auth.ts';
import { readJsonBody } from './body.ts';
import type { CallerResolver } from './caller.ts';
import { claimedTransactionOf } from './claimed.ts';
import { idempotencyKey, payloadHash, producedMarkerKey, schemeIdempotencyKey } from './idempotency.ts';
import type { IngressMetrics, IngressOperation, IngressOutcome } from './metrics.ts';
import type { ProducedMarkers } from './produced-markers.ts';
import type { SenderRateLimiter } from './rate-limit.ts';
import { bearerChallenge, registerTransactionReads } from './reads.ts';
import { authenticateScheme, type SchemeClient, type SchemeClients } from './schemes.ts';
import type { TransactionKind } from './snapshot.ts';
import { startingMessage } from './transaction-status.ts';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';

export interface IngressRoutesOptions {
  readonly producer: PipelineProducer;
  readonly emitter: StateEmitter;
  readonly idempotency: IdempotencyRepository;
  /** The "produced" markers, written behind. */
  readonly markers: ProducedMarkers;
  readonly transactions: TransactionRepository;
  /** The banks: a clearing house's credit transfer or direct debit is only taken for one of them. */
  readonly participants: Participants;
  /**
   * The payment schemes allowed to submit credit transfer authorisations and inbound off-us debits, by
   * their token's digest.
   */
  readonly schemes: SchemeClients;
  readonly resolveCaller: CallerResolver;
  /**
   * Bank authentication (OAuth2 access tokens): the token names the bank, and a message naming another
   * bank is refused (403). Absent: the bank is the message's instructing agent (`resolveCaller`).
   */
  readonly authenticateBank?: BankAuthenticator;
  readonly clock: Clock;
  readonly metrics: IngressMetrics;
  readonly retryAfterSeconds: number;
  readonly maxBodyBytes: number;
  /** False once the service is stopping: new messages get 503 so banks resend them elsewhere. */
  isAccepting(): boolean;
  /** False while more messages are in progress than the service takes: new ones get 503 with Retry-After. */
  hasCapacity(): boolean;
  /** Each sender's rate: a message beyond it gets 429 with Retry-After, before anything is recorded. */
  readonly rateLimiter?: SenderRateLimiter;
  /** Each bank's rate of reads (`GET /transactions/{uetr}`), apart from its messages'. */
  readonly readRateLimiter?: SenderRateLimiter;
  /** Keeps the service's stop() waiting until the request's work is done. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /**
   * How many claimed transactions this instance remembers (those it claimed last), so that the bank's
   * report on one is admitted without reading its claim back. 0 remembers none.
   */
  readonly claimCacheSize: number;
  /**
   * How many transactions this instance remembers having acknowledged, with their first states, so that a
   * party reading one before the tracker wrote its snapshot is answered. 0 remembers none.
   */
  readonly acceptedCacheSize: number;
}

/**
 * A bank's report on a transaction whose UETR was claimed before claims recorded their transactions, and
 * whose snapshot the tracker has not written yet (it writes behind, and can lag its topic: a backlog, a
 * restart). Answered 503 with a short Retry-After, never 422: the report is right, only early.
 */
class TransactionNotYetRecorded extends AppError {
  constructor(uetr: string) {
    super('NOT_FOUND', `transaction ${uetr} is not recorded yet`, { retriable: true });
  }
}

/** How soon a report that came before its transaction's snapshot is to be sent again. */
const notYetRecordedRetryAfterSeconds = 1;

/** The header that marks a record produced again for a resend (`resentHeader`), when it is one. */
function resentHeaders(again: boolean): Record<string, string> {
  return again ? { [resentHeader]: 'true' } : {};
}

/**
 * Admission checks that need the store; they run before the idempotency claim, so a refusal leaves none.
 * `produce`'s `again`: a resend whose first attempt's records may be out already (they carry
 * `resentHeader`).
 */
type Admission =
  | { ok: true; produce(options: { again: boolean }): Promise<TransactionStateChanged | undefined> }
  | { ok: false; errors: FieldError[] };

type IngressMessage = DirectDebit | CreditTransfer | PaymentStatusReport;

/** Who sent a message, once known: the key its idempotency claims are held under, and how answers name it. */
interface Sender {
  /** Names the sender in problem details. */
  readonly name: string;
  /** The idempotency key of one of its messages: message identifications are unique per sender. */
  claimKey(messageIdentification: string): string;
}

interface BankSender extends Sender {
  readonly participant: Participant;
}

interface SchemeSender extends Sender {
  readonly scheme: SchemeClient;
}

/**
 * How a route learns who sent a message, in two steps. `authenticate` runs on the headers before the body
 * is read; its refusal is a 401 and nothing of the body is parsed. A payment scheme proves who it is there,
 * with its own bearer token. `identify` then names the sender of the validated message; its refusal is a
 * 422 at the member at fault. A bank is named by the message itself (through resolveCaller, the seam for
 * bank authentication), so for banks the first step lets every request through, as before.
 */
interface Identification<M, S extends Sender> {
  authenticate(headers: Headers): Authentication<M, S> | Promise<Authentication<M, S>>;
}

type Authentication<M, S> =
  | { ok: true; identify(message: M): Identified<S> | Promise<Identified<S>> }
  /**
   * 401: no credentials or ones that do not verify (`challenge` is the WWW-Authenticate value); 403:
   * credentials of no sender of this route; 503: they cannot be checked right now.
   */
  | { ok: false; status: 401 | 403 | 503; detail: string; challenge?: string };

/** `errors`: the message is at fault (422); `forbidden`: the sender may not send it (403). */
type Identified<S> =
  | { ok: true; sender: S }
  | { ok: false; errors: FieldError[] }
  | { ok: false; forbidden: string };

interface Receiver<M extends IngressMessage, S extends Sender> {
  operation: IngressOperation;
  /**
   * Present when the message starts a transaction: its UETR is claimed for it, so another message naming
   * the same UETR (a corrected message that kept the rejected one's UETR) is refused rather than
   * acknowledged and never processed. The claim records what this returns, for the banks' answers.
   */
  startsTransaction?(message: M): ClaimedTransaction;
  sender: Identification<M, S>;
  validate(json: unknown): ValidationResult<M>;
  admit(message: M, sender: S, log: Logger): Promise<Admission>;
}

/** How the report answering a delivered transaction is admitted: the debit's and the credit's differ only here. */
interface ReportFlow {
  /** The kind of message the transaction started with, as its claim and its snapshot record it. */
  kind: TransactionKind;
  /** Names the transaction in a refusal ("a direct debit"). */
  described: string;
  /** Names the bank that must send the report ("the actioning bank"). */
  answeringRole: string;
  /** Whether `memberId` is the bank that must answer the transaction, whose agents are `parties`. */
  answeredBy(parties: ClaimedTransaction, memberId: string): boolean;
  eventType: TransactionEventType;
  /**
   * The states the report may follow (the transition table allows both: the report can overtake the
   * record of the bank's own 202). The first is assumed when the snapshot shows neither.
   */
  fromStates: readonly [TransactionState, TransactionState];
  /** What goes out after the state change, for the next service; absent when the report is final. */
  forward?(report: PaymentStatusReport, toState: string): Promise<void>;
}

/** A message being produced: its payload hash, and its acknowledgement once made durable (undefined if not). */
interface InProgress {
  payloadHash: string;
  settled: Promise<Acknowledgement | undefined>;
}

/**
 * The routes: outboundDirectDebit and inboundDirectDebitResponse (banks), inboundCreditTransferAuthorization
 * and inboundDirectDebitFromScheme (payment schemes), inboundCreditTransferAuthorizationResponse (banks),
 * getTransaction (a bank reads a transaction it is party to, see reads.ts), and the API documents.
 */
export function registerIngressRoutes(app: Hono<AppEnv>, options: IngressRoutesOptions): void {
  const { producer, emitter, idempotency, markers, transactions, clock, metrics } = options;
  /**
   * Messages this instance is producing now, by claim key. A resend that arrives while its first attempt
   * is still in progress here (the bank gave up waiting) waits for that attempt instead of producing the
   * message a second time beside it: under load, resends would otherwise multiply the work.
   */
  const producing = new Map<string, InProgress>();
  /** The transactions this instance claimed last, by UETR: what their claims record (see claimedTransactionOf). */
  const claims = new RecentMap<string, ClaimedTransaction>(options.claimCacheSize);
  /** The transactions this instance acknowledged last: a bank reads them before their snapshots exist. */
  const accepted = new AcceptedTransactions(options.acceptedCacheSize);
  const documents = {
    openapi: JSON.stringify(openApiDocument()),
    asyncapi: JSON.stringify(asyncApiDocument()),
  };

  app.get(`${apiPrefix}/openapi.json`, (c) =>
    c.body(documents.openapi, 200, { 'Content-Type': 'application/json' }),
  );
  app.get(`${apiPrefix}/asyncapi.json`, (c) =>
    c.body(documents.asyncapi, 200, { 'Content-Type': 'application/json' }),
  );

  const bankSender = (participant: Participant): BankSender => ({
    name: participant.memberId,
    participant,
    claimKey: (messageIdentification) => idempotencyKey(participant.memberId, messageIdentification),
  });
  const authenticateBank = options.authenticateBank;
  const bank: Identification<DirectDebit | PaymentStatusReport, BankSender> = authenticateBank
    ? {
        // OAuth2: the access token names the bank; the message must be the bank's own.
        async authenticate(headers) {
          const verdict = await authenticateBank(headers.get('authorization'));
          if (!verdict.ok) {
            return {
              ok: false,
              status: verdict.status,
              detail: verdict.detail,
              ...(verdict.status === 401
                ? { challenge: bearerChallenge(verdict.error, verdict.detail) }
                : {}),
            };
          }
          const { participant } = verdict;
          return {
            ok: true,
            identify(message) {
              const named = message.instructingAgent?.memberId;
              if (named !== participant.memberId) {
                return {
                  ok: false,
                  forbidden: `The access token is bank ${participant.memberId}'s; the message's instructingAgent is ${named ?? 'missing'}: a bank sends only as itself`,
                };
              }
              return { ok: true, sender: bankSender(participant) };
            },
          };
        },
      }
    : {
        authenticate: (headers) => ({
          ok: true,
          async identify(message) {
            const caller = await options.resolveCaller({ headers, message });
            return caller.ok ? { ok: true, sender: bankSender(caller.participant) } : caller;
          },
        }),
      };

  const scheme: Identification<CreditTransfer | DirectDebit, SchemeSender> = {
    authenticate(headers) {
      const authentication = authenticateScheme(options.schemes, headers.get('authorization'));
      if (!authentication.ok) {
        const given = authentication.reason === 'invalid';
        return {
          ok: false,
          status: 401,
          detail: given
            ? "The bearer token is not a payment scheme's"
            : "This route takes a payment scheme's bearer token (Authorization: Bearer)",
          challenge: given ? 'Bearer error="invalid_token"' : 'Bearer',
        };
      }
      const sender: SchemeSender = {
        name: `scheme ${authentication.scheme.id}`,
        scheme: authentication.scheme,
        claimKey: (messageIdentification) =>
          schemeIdempotencyKey(authentication.scheme.id, messageIdentification),
      };
      return { ok: true, identify: () => ({ ok: true, sender }) };
    },
  };

  /**
   * A debit's first state change, then the debit for the validator. `extraHeaders` tells the services
   * after it where the debit came from when that changes its journey.
   */
  async function produceReceivedDebit(
    debit: DirectDebit,
    again: boolean,
    extraHeaders: Record<string, string> = {},
  ): Promise<TransactionStateChanged | undefined> {
    const [change] = await emitter.emit(
      [
        {
          eventType: 'DEBIT_REQUEST_RECEIVED',
          transaction: debit,
          causedBy: {
            messageType: 'DirectDebit',
            messageIdentification: debit.messageIdentifiers.messageIdentification,
          },
        },
      ],
      { headers: resentHeaders(again) },
    );
    await producer.send('rp.directdebit.received.v1', [
      {
        key: debit.transactionIdentifiers.uetr,
        value: debit,
        headers: {
          ...extraHeaders,
          ...resentHeaders(again),
          [stateHeader]: change?.toState ?? 'DEBIT_RECEIVED',
        },
      },
    ]);
    return change;
  }

  const outboundDirectDebit: Receiver<DirectDebit, BankSender> = {
    operation: 'outboundDirectDebit',
    startsTransaction: (debit) => claimedTransactionOf('DirectDebit', debit),
    sender: bank,
    validate: validateDirectDebit,
    admit: async (debit) => ({ ok: true, produce: ({ again }) => produceReceivedDebit(debit, again) }),
  };

  const inboundDirectDebitFromScheme: Receiver<DirectDebit, SchemeSender> = {
    operation: 'inboundDirectDebitFromScheme',
    startsTransaction: (debit) => claimedTransactionOf('DirectDebit', debit),
    sender: scheme,
    validate: validateDirectDebit,
    async admit(debit) {
      // The engine holds the debit until the debit window and then delivers it to the debtor's bank (the
      // actioning bank): a bank it does not serve cannot action it.
      const actioningBank = debit.debtorAgent.memberId;
      if (actioningBank === undefined || !options.participants.has(actioningBank)) {
        return {
          ok: false,
          errors: [
            {
              pointer: '/debtorAgent/memberId',
              detail:
                actioningBank === undefined
                  ? "is required: it names the debtor's bank, which actions the debit"
                  : `${actioningBank} is not a participant of this engine`,
            },
          ],
        };
      }
      return {
        ok: true,
        // The initiating bank is the clearing house's, not a participant: the origin tells the services
        // after the ingress that no status report goes back and the debit is queued once accepted.
        produce: ({ again }) => produceReceivedDebit(debit, again, { [originHeader]: schemeOrigin }),
      };
    },
  };

  const inboundDirectDebitResponse: Receiver<PaymentStatusReport, BankSender> = {
    operation: 'inboundDirectDebitResponse',
    sender: bank,
    validate: validatePaymentStatusReport,
    admit: (report, sender) =>
      admitReport(report, sender, {
        kind: 'DirectDebit',
        described: 'a direct debit',
        answeringRole: 'the actioning bank',
        // A debit that does not name its actioning bank by member id cannot be matched to the caller.
        answeredBy: ({ debtorAgentMemberId }, memberId) =>
          debtorAgentMemberId === undefined || debtorAgentMemberId === memberId,
        eventType: 'DEBIT_RESPONSE_ACCEPTED',
        fromStates: ['DEBIT_DELIVERED', 'DEBIT_DELIVERY_PENDING'],
        async forward(report, toState) {
          await producer.send('rp.statusreport.received.v1', [
            { key: report.transactionIdentifiers.uetr, value: report, headers: { [stateHeader]: toState } },
          ]);
        },
      }),
  };

  const inboundCreditTransferAuthorization: Receiver<CreditTransfer, SchemeSender> = {
    operation: 'inboundCreditTransferAuthorization',
    startsTransaction: (credit) => claimedTransactionOf('CreditTransfer', credit),
    sender: scheme,
    validate: validateCreditTransfer,
    async admit(credit) {
      // The engine delivers the credit to the creditor's bank: a bank it does not serve cannot receive it.
      const creditorBank = credit.creditorAgent.memberId;
      if (creditorBank === undefined || !options.participants.has(creditorBank)) {
        return {
          ok: false,
          errors: [
            {
              pointer: '/creditorAgent/memberId',
              detail:
                creditorBank === undefined
                  ? "is required: it names the creditor's bank, to which the credit is delivered"
                  : `${creditorBank} is not a participant of this engine`,
            },
          ],
        };
      }
      return {
        ok: true,
        async produce({ again }) {
          const [change] = await emitter.emit(
            [
              {
                eventType: 'CREDIT_AUTH_RECEIVED',
                transaction: credit,
                causedBy: {
                  messageType: 'CreditTransfer',
                  messageIdentification: credit.messageIdentifiers.messageIdentification,
                },
              },
            ],
            { headers: resentHeaders(again) },
          );
          await producer.send('rp.credittransfer.received.v1', [
            {
              key: credit.transactionIdentifiers.uetr,
              value: credit,
              headers: {
                ...resentHeaders(again),
                [stateHeader]: change?.toState ?? 'CREDIT_AUTH_RECEIVED',
              },
            },
          ]);
          return change;
        },
      };
    },
  };

  const inboundCreditTransferAuthorizationResponse: Receiver<PaymentStatusReport, BankSender> = {
    operation: 'inboundCreditTransferAuthorizationResponse',
    sender: bank,
    validate: validatePaymentStatusReport,
    admit: (report, sender) =>
      admitReport(report, sender, {
        kind: 'CreditTransfer',
        described: 'a credit transfer authorisation',
        answeringRole: "the creditor's bank",
        // Always named: the scheme route takes a credit only for a participant's member id.
        answeredBy: ({ creditorAgentMemberId }, memberId) => creditorAgentMemberId === memberId,
        eventType: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
        fromStates: ['CREDIT_AUTH_DELIVERED', 'CREDIT_AUTH_DELIVERY_PENDING'],
        // The creditor's bank's answer completes the transaction: the state change is all there is.
      }),
  };

  app.post(servicePaths.outboundDirectDebit, (c) => options.track(() => receive(c, outboundDirectDebit)));
  app.post(servicePaths.inboundDirectDebitResponse, (c) =>
    options.track(() => receive(c, inboundDirectDebitResponse)),
  );
  app.post(servicePaths.inboundCreditTransferAuthorization, (c) =>
    options.track(() => receive(c, inboundCreditTransferAuthorization)),
  );
  app.post(servicePaths.inboundCreditTransferAuthorizationResponse, (c) =>
    options.track(() => receive(c, inboundCreditTransferAuthorizationResponse)),
  );
  app.post(servicePaths.schemeInboundDirectDebit, (c) =>
    options.track(() => receive(c, inboundDirectDebitFromScheme)),
  );
  registerTransactionReads(app, {
    transactions,
    accepted,
    idempotency,
    now: () => clock.now(),
    ...(authenticateBank ? { authenticateBank } : {}),
    ...(options.readRateLimiter ? { rateLimiter: options.readRateLimiter } : {}),
    metrics,
    retryAfterSeconds: options.retryAfterSeconds,
    isAccepting: options.isAccepting,
    hasCapacity: options.hasCapacity,
    track: options.track,
  });
  // Any other method on a message route: 405 with the methods it takes (RFC 9110 section 15.5.6), not 404.
  for (const path of Object.values(servicePaths)) {
    app.all(path, (c) => {
      c.header('Allow', 'POST');
      throw new AppError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed here; send POST`);
    });
  }

  /**
   * A bank's report on a transaction the engine delivered to it, admitted against what the transaction's
   * claim records (remembered, or one read by _id): its kind and the bank that answers it. The state
   * change names the transaction by its UETR; the tracker fills in the payload the report does not carry.
   * A UETR claimed before claims recorded their transactions is admitted against its snapshot instead.
   */
  async function admitReport(
    report: PaymentStatusReport,
    sender: BankSender,
    flow: ReportFlow,
  ): Promise<Admission> {
    const uetr = report.transactionIdentifiers.uetr;
    const recorded = await recordedTransaction(uetr);
    if (recorded === undefined || recorded.parties.kind !== flow.kind) {
      return {
        ok: false,
        errors: [
          {
            pointer: '/transactionIdentifiers/uetr',
            detail: `${uetr} does not name ${flow.described} this engine delivered`,
          },
        ],
      };
    }
    const { memberId } = sender.participant;
    if (!flow.answeredBy(recorded.parties, memberId)) {
      return {
        ok: false,
        errors: [
          {
            pointer: '/instructingAgent/memberId',
            detail: `${memberId} is not ${flow.answeringRole} of transaction ${uetr}`,
          },
        ],
      };
    }
    // The tracker holds the authoritative state. The report is taken to follow the delivery, or the
    // pending delivery when a snapshot read says so; the tracker applies its own state, and refuses the
    // change if the transaction is elsewhere.
    const [delivered] = flow.fromStates;
    const fromState: TransactionState =
      flow.fromStates.find((state) => state === recorded.snapshotState) ?? delivered;
    return {
      ok: true,
      async produce() {
        const [change] = await emitter.emit([
          {
            fromState,
            eventType: flow.eventType,
            uetr,
            statusReport: report,
            causedBy: {
              messageType: 'PaymentStatusReport',
              messageIdentification: report.messageIdentifiers.messageIdentification,
            },
          },
        ]);
        await flow.forward?.(report, change?.toState ?? flow.eventType);
        return change;
      },
    };
  }

  /**
   * What is recorded of the transaction `uetr` names: its claim's record, from memory or one read; for a
   * claim that records none (made before claims did), its snapshot's starting message, and its state.
   * Undefined when the engine holds no such transaction. Throws TransactionNotYetRecorded for a claimed
   * UETR whose snapshot does not hold its message yet.
   */
  async function recordedTransaction(
    uetr: string,
  ): Promise<{ parties: ClaimedTransaction; snapshotState?: string | null } | undefined> {
    const remembered = claims.get(uetr);
    if (remembered !== undefined) {
      metrics.reportChecked('remembered');
      return { parties: remembered };
    }
    const claim = await idempotency.get(transactionKey(uetr));
    if (claim?.transaction !== undefined) {
      metrics.reportChecked('claim');
      claims.set(uetr, claim.transaction);
      return { parties: claim.transaction };
    }
    const snapshot = await transactions.get(uetr);
    const started = snapshot === null ? undefined : startingMessage(snapshot);
    if (started === undefined && claim !== null) {
      metrics.reportChecked('early');
      throw new TransactionNotYetRecorded(uetr);
    }
    metrics.reportChecked('snapshot');
    if (started === undefined) return undefined;
    return {
      parties: claimedTransactionOf(started.kind, started.message),
      snapshotState: snapshot?.state ?? null,
    };
  }

  async function receive<M extends IngressMessage, S extends Sender>(
    c: Context<AppEnv>,
    receiver: Receiver<M, S>,
  ): Promise<Response> {
    const { operation } = receiver;
    const instance = c.req.path;
    const { headers } = c.req.raw;
    metrics.received(operation);
    const refuse = (
      outcome: IngressOutcome,
      body: ProblemDetails,
      extraHeaders?: Record<string, string>,
    ): Response => {
      metrics.finished(operation, outcome);
      return problemResponse(c, body, extraHeaders);
    };
    if (!options.isAccepting()) {
      return refuse('unavailable', unavailableProblem('The service is shutting down', instance));
    }
    if (!options.hasCapacity()) {
      return refuse(
        'overloaded',
        unavailableProblem('Too many messages are in progress; nothing of this one was recorded', instance),
      );
    }
    const authentication = await receiver.sender.authenticate(headers);
    if (!authentication.ok) {
      c.var.logger.info(
        { operation, status: authentication.status, detail: authentication.detail },
        'request without valid credentials refused',
      );
      if (authentication.status === 503) {
        return refuse('unavailable', unavailableProblem(authentication.detail, instance));
      }
      return refuse(
        authentication.status === 403 ? 'forbidden' : 'unauthorized',
        problem(
          authentication.status === 403 ? 'forbidden' : 'unauthorized',
          authentication.detail,
          instance,
        ),
        authentication.challenge ? { 'WWW-Authenticate': authentication.challenge } : {},
      );
    }

    const body = await readJsonBody(c.req.raw, options.maxBodyBytes, instance);
    if (!body.ok) {
      const outcome = { 415: 'unsupported_media_type', 413: 'too_large', 400: 'malformed' } as const;
      return refuse(outcome[body.refusal.status], body.refusal.problem);
    }
    const validation = receiver.validate(body.json);
    if (!validation.ok) return refuse('invalid', validationProblem(validation.errors, instance));
    const message = validation.value;
    const identified = await authentication.identify(message);
    if (!identified.ok) {
      if ('forbidden' in identified) {
        c.var.logger.info(
          { operation, detail: identified.forbidden },
          'message sent as another bank refused',
        );
        return refuse('forbidden', problem('forbidden', identified.forbidden, instance));
      }
      return refuse('invalid', validationProblem(identified.errors, instance));
    }
    const { sender } = identified;
    const rate = options.rateLimiter?.take(sender.name, Date.now());
    if (rate && !rate.ok) {
      return refuse(
        'rate_limited',
        problem('rateLimited', `${sender.name} is over its rate of messages; nothing was recorded`, instance),
        { 'Retry-After': String(Math.max(1, Math.ceil(rate.retryAfterMs / 1000))) },
      );
    }

    const { messageIdentification } = message.messageIdentifiers;
    const uetr = message.transactionIdentifiers.uetr;
    const log = transactionLogger(c.var.logger, { uetr, messageIdentification });
    const key = sender.claimKey(messageIdentification);
    const hash = payloadHash(message);
    const running = producing.get(key);
    if (running?.payloadHash === hash) {
      metrics.resendWaiting(operation, 1);
      const acknowledgement = await running.settled;
      metrics.resendWaiting(operation, -1);
      if (acknowledgement !== undefined) {
        metrics.finished(operation, 'joined');
        log.info('resend of a message in progress acknowledged with it');
        return c.json(acknowledgement, 202);
      }
      // The first attempt was not acknowledged: this one goes the whole way itself.
    }
    let settle: ((acknowledgement: Acknowledgement | undefined) => void) | undefined;
    try {
      const admission = await receiver.admit(message, sender, log);
      if (!admission.ok) return refuse('invalid', validationProblem(admission.errors, instance));

      // From here this attempt claims and produces the message: a resend arriving meanwhile waits for
      // its answer (and goes the whole way itself if there is none).
      if (!producing.has(key)) {
        const inProgress: InProgress = {
          payloadHash: hash,
          settled: new Promise((resolve) => {
            settle = resolve;
          }),
        };
        producing.set(key, inProgress);
        void inProgress.settled.then(() => {
          if (producing.get(key) === inProgress) producing.delete(key);
        });
      }
      const started = performance.now();
      const receivedAt = clock.now();
      const messageClaim = { key, payloadHash: hash, uetr, receivedAt };
      // A message that starts a transaction claims its UETR too, after its own claim (so a refused
      // message answers its resends the same way and a UETR is only ever held by a message that was
      // claimed): both in one command when the message is new.
      const claimed = receiver.startsTransaction?.(message);
      const transactionClaim = {
        key: transactionKey(uetr),
        payloadHash: hash,
        uetr,
        receivedAt,
        ...(claimed ? { transaction: claimed } : {}),
      };
      let held: ClaimOutcome | undefined;
      let claim: ClaimOutcome;
      if (claimed) {
        const both = await idempotency.claimBoth(messageClaim, transactionClaim);
        claim = both.first;
        held = both.second;
      } else {
        claim = await idempotency.claim(messageClaim);
      }
      if (claim.outcome === 'new' && held?.outcome === 'duplicate') {
        // The same message again, after its claim went past the idempotency retention: its UETR's key,
        // claimed with the same payload hash, still knows it. A resend, answered as the first time.
        claim = held;
      }
      if (claim.outcome === 'conflict') {
        log.info(
          { firstReceivedAt: claim.record.receivedAt },
          'message identification reused with another body',
        );
        return refuse(
          'conflict',
          problem(
            'duplicateMessage',
            `messageIdentification ${messageIdentification} was already received from ${sender.name} with a different body`,
            instance,
          ),
        );
      }
      // A resend gets the first answer: the UETR and the instant of the first receipt.
      const first = claim.outcome === 'new' ? { uetr, receivedAt } : claim.record;
      const acknowledgement: Acknowledgement = {
        messageIdentification,
        uetr: first.uetr,
        receivedAt: first.receivedAt.toISOString(),
      };
      let outcome: IngressOutcome = 'accepted';
      if (claim.outcome === 'duplicate') {
        // Produced already: answer as the first time. Without the marker the first attempt may have
        // failed before the broker acknowledged, so the records go out again; downstream drops repeats
        // (stable state event ids, report ids derived from the UETR).
        const marker = producedMarkerKey(key);
        if (markers.has(marker) || (await idempotency.get(marker)) !== null) {
          metrics.finished(operation, 'replayed');
          log.info('resent message acknowledged again');
          settle?.(acknowledgement);
          return c.json(acknowledgement, 202);
        }
        outcome = 'reproduced';
      }
      if (claimed) {
        // A resend's UETR claim was not attempted with its message's: the first attempt may have stopped
        // between the two.
        held ??= await idempotency.claim(transactionClaim);
        if (held.outcome === 'conflict') {
          log.info(
            { firstReceivedAt: held.record.receivedAt },
            'UETR already names a transaction started by another message',
          );
          return refuse('conflict', {
            ...problem(
              'duplicateTransaction',
              `UETR ${uetr} already names a transaction started by another message; a corrected or new message needs a new UETR`,
              instance,
            ),
            errors: [
              {
                pointer: '/transactionIdentifiers/uetr',
                detail: 'already names a transaction started by another message',
              },
            ],
          });
        }
      }
      const change = await admission.produce({ again: outcome === 'reproduced' });
      if (claimed) {
        claims.set(uetr, claimed);
        // A message that starts a transaction is a DirectDebit or a CreditTransfer (its claim's kind).
        // Remembering it only serves reads: it never stands between the durable message and its 202.
        if (change !== undefined) {
          try {
            accepted.remember(message as DirectDebit | CreditTransfer, change);
          } catch (error) {
            log.warn({ err: error }, 'acknowledged transaction not remembered for reads');
          }
        }
      }
      metrics.produced(operation, (performance.now() - started) / 1000);
      markers.add({ key: producedMarkerKey(key), payloadHash: hash, uetr, receivedAt: clock.now() });
      metrics.finished(operation, outcome);
      log.info({ outcome }, `${operation} accepted`);
      settle?.(acknowledgement);
      return c.json(acknowledgement, 202);
    } catch (error) {
      if (error instanceof TransactionNotYetRecorded) {
        log.info("status report ahead of its transaction's snapshot: to be sent again");
        return refuse(
          'unavailable',
          unavailableProblem(
            'The transaction this report answers is not recorded yet; send it again in a moment',
            instance,
          ),
          { 'Retry-After': String(notYetRecordedRetryAfterSeconds) },
        );
      }
      if (!isRetriable(error)) throw error;
      log.warn({ err: error }, `${operation} not accepted: a dependency is unavailable`);
      return refuse(
        'unavailable',
        unavailableProblem('The message could not be stored durably; send it again later', instance),
      );
    } finally {
      // A failed attempt lets a resend waiting on it go the whole way itself.
      settle?.(undefined);
    }
  }

  function unavailableProblem(detail: string, instance: string): ProblemDetails {
    return problem('unavailable', detail, instance);
  }

  function problemResponse(
    c: Context<AppEnv>,
    body: ProblemDetails,
    extraHeaders: Record<string, string> = {},
  ): Response {
    const headers: Record<string, string> = { ...extraHeaders, 'Content-Type': problemContentType };
    if (body.status === 503) headers['Retry-After'] ??= String(options.retryAfterSeconds);
    return c.body(JSON.stringify(body), body.status as ContentfulStatusCode, headers);
  }
}
