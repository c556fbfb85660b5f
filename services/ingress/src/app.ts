import {
  type Acknowledgement,
  apiPrefix,
  asyncApiDocument,
  type DirectDebit,
  type FieldError,
  openApiDocument,
  type PaymentStatusReport,
  type ProblemDetails,
  problem,
  problemContentType,
  servicePaths,
  type TransactionState,
  type ValidationResult,
  validateDirectDebit,
  validatePaymentStatusReport,
  validationProblem,
} from '@rp/contracts';
import type { Participant, PipelineProducer, StateEmitter } from '@rp/pipeline';
import { type AppEnv, type Clock, isRetriable, type Logger, transactionLogger } from '@rp/runtime';
import type { IdempotencyRepository, TransactionRepository } from '@rp/store';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { readJsonBody } from './body.ts';
import type { CallerResolver } from './caller.ts';
import { idempotencyKey, payloadHash, producedMarkerKey, transactionKey } from './idempotency.ts';
import type { IngressMetrics, IngressOperation, IngressOutcome } from './metrics.ts';
import { directDebitOfSnapshot } from './snapshot.ts';

/** Kafka header carrying the transaction's state on flow records, so the next service knows fromState. */
export const stateHeader = 'rp-state';

/**
 * The states from which the actioning bank's report is expected (the transition table allows
 * DEBIT_RESPONSE_ACCEPTED from both: the report can overtake the record of the bank's 202).
 */
const reportableStates: ReadonlySet<string> = new Set<TransactionState>([
  'DEBIT_DELIVERY_PENDING',
  'DEBIT_DELIVERED',
]);

export interface IngressRoutesOptions {
  readonly producer: PipelineProducer;
  readonly emitter: StateEmitter;
  readonly idempotency: IdempotencyRepository;
  readonly transactions: TransactionRepository;
  readonly resolveCaller: CallerResolver;
  readonly clock: Clock;
  readonly metrics: IngressMetrics;
  readonly retryAfterSeconds: number;
  readonly maxBodyBytes: number;
  /** False once the service is stopping: new messages get 503 so banks resend them elsewhere. */
  isAccepting(): boolean;
  /** Keeps the service's stop() waiting until the request's work is done. */
  track<T>(work: () => Promise<T>): Promise<T>;
}

/** Admission checks that need the store; they run before the idempotency claim, so a refusal leaves none. */
type Admission = { ok: true; produce(): Promise<void> } | { ok: false; errors: FieldError[] };

interface Receiver<M extends DirectDebit | PaymentStatusReport> {
  operation: IngressOperation;
  /**
   * The message starts a transaction: its UETR is claimed for it, so another message naming the same
   * UETR (a corrected debit that kept the rejected one's UETR) is refused rather than acknowledged and
   * never processed.
   */
  startsTransaction: boolean;
  validate(json: unknown): ValidationResult<M>;
  admit(message: M, caller: Participant, log: Logger): Promise<Admission>;
}

/** The bank-facing routes: outboundDirectDebit, inboundDirectDebitResponse and the API documents. */
export function registerIngressRoutes(app: Hono<AppEnv>, options: IngressRoutesOptions): void {
  const { producer, emitter, idempotency, transactions, clock, metrics } = options;
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

  const outboundDirectDebit: Receiver<DirectDebit> = {
    operation: 'outboundDirectDebit',
    startsTransaction: true,
    validate: validateDirectDebit,
    admit: async (debit) => ({
      ok: true,
      async produce() {
        const [change] = await emitter.emit([
          {
            eventType: 'DEBIT_REQUEST_RECEIVED',
            transaction: debit,
            causedBy: {
              messageType: 'DirectDebit',
              messageIdentification: debit.messageIdentifiers.messageIdentification,
            },
          },
        ]);
        await producer.send('rp.directdebit.received.v1', [
          {
            key: debit.transactionIdentifiers.uetr,
            value: debit,
            headers: { [stateHeader]: change?.toState ?? 'DEBIT_RECEIVED' },
          },
        ]);
      },
    }),
  };

  const inboundDirectDebitResponse: Receiver<PaymentStatusReport> = {
    operation: 'inboundDirectDebitResponse',
    startsTransaction: false,
    validate: validatePaymentStatusReport,
    async admit(report, caller, log) {
      const uetr = report.transactionIdentifiers.uetr;
      // One read by _id: the state change needs the transaction's DirectDebit, which the report does not carry.
      const snapshot = await transactions.get(uetr);
      const debit = snapshot === null ? undefined : directDebitOfSnapshot(snapshot);
      if (snapshot === null || debit === undefined) {
        return {
          ok: false,
          errors: [
            {
              pointer: '/transactionIdentifiers/uetr',
              detail: `${uetr} does not name a direct debit this engine delivered`,
            },
          ],
        };
      }
      const actioningBank = debit.debtorAgent.memberId;
      if (actioningBank !== undefined && actioningBank !== caller.memberId) {
        return {
          ok: false,
          errors: [
            {
              pointer: '/instructingAgent/memberId',
              detail: `${caller.memberId} is not the actioning bank of transaction ${uetr}`,
            },
          ],
        };
      }
      // The tracker holds the authoritative state; the snapshot may lag it. When the snapshot shows a
      // state the report may follow, say so; otherwise assume the debit was delivered and let the
      // tracker refuse the change if the transaction is elsewhere.
      const fromState: TransactionState =
        snapshot.state !== null && reportableStates.has(snapshot.state)
          ? (snapshot.state as TransactionState)
          : 'DEBIT_DELIVERED';
      if (snapshot.state !== fromState) {
        log.info(
          { snapshotState: snapshot.state, fromState },
          'status report for a transaction not yet recorded as delivered',
        );
      }
      return {
        ok: true,
        async produce() {
          const [change] = await emitter.emit([
            {
              fromState,
              eventType: 'DEBIT_RESPONSE_ACCEPTED',
              transaction: debit,
              statusReport: report,
              causedBy: {
                messageType: 'PaymentStatusReport',
                messageIdentification: report.messageIdentifiers.messageIdentification,
              },
            },
          ]);
          await producer.send('rp.statusreport.received.v1', [
            {
              key: uetr,
              value: report,
              headers: { [stateHeader]: change?.toState ?? 'DEBIT_RESPONSE_ACCEPTED' },
            },
          ]);
        },
      };
    },
  };

  app.post(servicePaths.outboundDirectDebit, (c) => options.track(() => receive(c, outboundDirectDebit)));
  app.post(servicePaths.inboundDirectDebitResponse, (c) =>
    options.track(() => receive(c, inboundDirectDebitResponse)),
  );

  async function receive<M extends DirectDebit | PaymentStatusReport>(
    c: Context<AppEnv>,
    receiver: Receiver<M>,
  ): Promise<Response> {
    const { operation } = receiver;
    const instance = c.req.path;
    metrics.received(operation);
    const refuse = (outcome: IngressOutcome, body: ProblemDetails): Response => {
      metrics.finished(operation, outcome);
      return problemResponse(c, body);
    };
    if (!options.isAccepting()) {
      return refuse('unavailable', unavailableProblem('The service is shutting down', instance));
    }

    const body = await readJsonBody(c.req.raw, options.maxBodyBytes, instance);
    if (!body.ok) {
      const outcome = { 415: 'unsupported_media_type', 413: 'too_large', 400: 'malformed' } as const;
      return refuse(outcome[body.refusal.status], body.refusal.problem);
    }
    const validation = receiver.validate(body.json);
    if (!validation.ok) return refuse('invalid', validationProblem(validation.errors, instance));
    const message = validation.value;
    const caller = await options.resolveCaller({ headers: c.req.raw.headers, message });
    if (!caller.ok) return refuse('invalid', validationProblem(caller.errors, instance));

    const { messageIdentification } = message.messageIdentifiers;
    const uetr = message.transactionIdentifiers.uetr;
    const log = transactionLogger(c.var.logger, { uetr, messageIdentification });
    try {
      const admission = await receiver.admit(message, caller.participant, log);
      if (!admission.ok) return refuse('invalid', validationProblem(admission.errors, instance));

      const key = idempotencyKey(caller.participant.memberId, messageIdentification);
      const hash = payloadHash(message);
      const started = performance.now();
      const receivedAt = clock.now();
      const claim = await idempotency.claim({ key, payloadHash: hash, uetr, receivedAt });
      if (claim.outcome === 'conflict') {
        log.info(
          { firstReceivedAt: claim.record.receivedAt },
          'message identification reused with another body',
        );
        return refuse(
          'conflict',
          problem(
            'duplicateMessage',
            `messageIdentification ${messageIdentification} was already received from ${caller.participant.memberId} with a different body`,
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
        if ((await idempotency.get(producedMarkerKey(key))) !== null) {
          metrics.finished(operation, 'replayed');
          log.info('resent message acknowledged again');
          return c.json(acknowledgement, 202);
        }
        outcome = 'reproduced';
      }
      if (receiver.startsTransaction) {
        // After the message's own claim, so a refused message answers its resends the same way and a
        // UETR is only ever held by a message that was claimed.
        const held = await idempotency.claim({
          key: transactionKey(uetr),
          payloadHash: hash,
          uetr,
          receivedAt,
        });
        if (held.outcome === 'conflict') {
          log.info(
            { firstReceivedAt: held.record.receivedAt },
            'UETR already names a transaction started by another message',
          );
          return refuse('conflict', {
            ...problem(
              'duplicateTransaction',
              `UETR ${uetr} already names a transaction started by another message; a corrected or new debit needs a new UETR`,
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
      await admission.produce();
      metrics.produced(operation, (performance.now() - started) / 1000);
      await markProduced(key, hash, uetr, log);
      metrics.finished(operation, outcome);
      log.info({ outcome }, `${operation} accepted`);
      return c.json(acknowledgement, 202);
    } catch (error) {
      if (!isRetriable(error)) throw error;
      log.warn({ err: error }, `${operation} not accepted: a dependency is unavailable`);
      return refuse(
        'unavailable',
        unavailableProblem('The message could not be stored durably; send it again later', instance),
      );
    }
  }

  /**
   * The marker is an optimisation of resends, not a condition of the 202: the records are durable
   * already, so a failure here only means a resend produces them again (harmlessly).
   */
  async function markProduced(key: string, hash: string, uetr: string, log: Logger): Promise<void> {
    try {
      await idempotency.claim({
        key: producedMarkerKey(key),
        payloadHash: hash,
        uetr,
        receivedAt: clock.now(),
      });
    } catch (error) {
      log.warn({ err: error }, 'produced marker not written; a resend will produce the message again');
    }
  }

  function unavailableProblem(detail: string, instance: string): ProblemDetails {
    return problem('unavailable', detail, instance);
  }

  function problemResponse(c: Context<AppEnv>, body: ProblemDetails): Response {
    const headers: Record<string, string> = { 'Content-Type': problemContentType };
    if (body.status === 503) headers['Retry-After'] = String(options.retryAfterSeconds);
    return c.body(JSON.stringify(body), body.status as ContentfulStatusCode, headers);
  }
}
