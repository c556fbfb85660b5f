import { type ProblemDetails, problem, problemContentType, readPaths, toJson } from '@rp/contracts';
import { type AppEnv, AppError, isRetriable, transactionLogger } from '@rp/runtime';
import {
  type IdempotencyRecord,
  type IdempotencyRepository,
  type TransactionRepository,
  type TransactionSnapshot,
  transactionKey,
} from '@rp/store';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AcceptedTransactions } from './accepted.ts';
import type { BankAuthenticator } from './bank-auth.ts';
import type { IngressMetrics, ReadOutcome } from './metrics.ts';
import type { SenderRateLimiter } from './rate-limit.ts';
import { partiesOf, startingMessage, transactionStatusOf } from './transaction-status.ts';

export interface TransactionReadOptions {
  readonly transactions: Pick<TransactionRepository, 'get'>;
  /** The transactions this instance acknowledged last: answered from here until their snapshots exist. */
  readonly accepted?: Pick<AcceptedTransactions, 'answer'>;
  /**
   * The UETR claims: a transaction acknowledged by another instance moments ago, whose snapshot is not
   * there yet, is answered 503 with Retry-After rather than as one that does not exist.
   */
  readonly idempotency?: Pick<IdempotencyRepository, 'get'>;
  now(): Date;
  /**
   * Bank authentication: the access token names the bank that reads. Absent (banks named by their
   * messages, development only) nothing says who reads, so every read is refused (403).
   */
  readonly authenticateBank?: BankAuthenticator;
  /** Each bank's rate of reads: beyond it 429 with Retry-After, before the store is asked. */
  readonly rateLimiter?: SenderRateLimiter;
  readonly metrics: IngressMetrics;
  readonly retryAfterSeconds: number;
  isAccepting(): boolean;
  hasCapacity(): boolean;
  track<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The `WWW-Authenticate` challenge of a refused bank token (RFC 6750 section 3): the description is a
 * quoted string without `"` or `\`, so the refusal's quotes become apostrophes.
 */
export function bearerChallenge(error: 'missing' | 'invalid_token', detail: string): string {
  if (error === 'missing') return 'Bearer';
  const description = detail.replaceAll('"', "'").replace(/[^\x20-\x7e]|\\/g, '');
  return `Bearer error="invalid_token", error_description="${description}"`;
}

/**
 * How long after its 202 a transaction without a snapshot is answered "not readable yet" (503) from its
 * claim. The tracker writes a snapshot within TRACKER_SNAPSHOT_INTERVAL of the first change, or once it
 * has caught up after a backlog or a restart; a claim older than this with no snapshot is one whose
 * message never became durable (its sender was answered 503, not 202), and reads as not found.
 */
export const claimedNotRecordedMs = 60_000;

/** How soon a read of a transaction acknowledged moments ago is to be made again. */
const notRecordedRetryAfterSeconds = 1;

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * `GET /transactions/{uetr}`: a bank reads the status of a transaction it is party to. A transaction it
 * is not party to answers exactly as one that does not exist (404, the same body), so a bank learns
 * nothing of other banks' transactions, not even which UETRs exist. One read of the snapshot by `_id`.
 */
export function registerTransactionReads(app: Hono<AppEnv>, options: TransactionReadOptions): void {
  const path = readPaths.transaction.replace('{uetr}', ':uetr');
  app.get(path, (c) => options.track(() => read(c)));
  // Any other method: 405 with the methods the route takes, as the message routes answer.
  app.all(path, (c) => {
    c.header('Allow', 'GET');
    throw new AppError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed here; send GET`);
  });

  async function read(c: Context<AppEnv>): Promise<Response> {
    // As the request line carried it (percent-encoded), so that it is a URI reference whatever was sent.
    const instance = new URL(c.req.url).pathname;
    const refuse = (outcome: ReadOutcome, body: ProblemDetails, headers: Record<string, string> = {}) => {
      options.metrics.read(outcome);
      const all: Record<string, string> = { ...headers, 'Content-Type': problemContentType };
      if (body.status === 503) all['Retry-After'] ??= String(options.retryAfterSeconds);
      return c.body(JSON.stringify(body), body.status as ContentfulStatusCode, all);
    };
    if (!options.isAccepting()) {
      return refuse('unavailable', problem('unavailable', 'The service is shutting down', instance));
    }
    if (!options.hasCapacity()) {
      return refuse('overloaded', problem('unavailable', 'Too many requests are in progress', instance));
    }
    const authenticate = options.authenticateBank;
    if (authenticate === undefined) {
      return refuse(
        'forbidden',
        problem(
          'forbidden',
          'Reading transactions needs bank authentication (BANK_AUTH=oauth2): this engine names banks by their messages, so it cannot tell which bank reads',
          instance,
        ),
      );
    }
    const verdict = await authenticate(c.req.header('authorization') ?? null);
    if (!verdict.ok) {
      c.var.logger.info({ status: verdict.status, detail: verdict.detail }, 'transaction read refused');
      if (verdict.status === 503)
        return refuse('unavailable', problem('unavailable', verdict.detail, instance));
      if (verdict.status === 403) return refuse('forbidden', problem('forbidden', verdict.detail, instance));
      return refuse('unauthorized', problem('unauthorized', verdict.detail, instance), {
        'WWW-Authenticate': bearerChallenge(verdict.error, verdict.detail),
      });
    }
    const { memberId } = verdict.participant;
    const rate = options.rateLimiter?.take(memberId, Date.now());
    if (rate && !rate.ok) {
      return refuse(
        'rate_limited',
        problem('rateLimited', `${memberId} is over its rate of reads`, instance),
        { 'Retry-After': String(Math.max(1, Math.ceil(rate.retryAfterMs / 1000))) },
      );
    }
    const uetr = c.req.param('uetr') ?? '';
    if (!uuidPattern.test(uetr)) {
      return refuse('invalid', {
        ...problem('validationFailed', '/uetr must be a UUID', instance),
        errors: [{ pointer: '/uetr', detail: 'must be a UUID' }],
      });
    }

    const log = transactionLogger(c.var.logger, { uetr });
    // Unknown and not a party answer alike: the detail names only what the bank asked for.
    const notFound = (outcome: ReadOutcome) =>
      refuse(
        outcome,
        problem('notFound', `No transaction ${uetr} that bank ${memberId} is party to`, instance),
      );
    /** A read the store could not answer: 503 when it may answer later, else the failure goes on. */
    const storeUnavailable = (error: unknown, what: string) => {
      if (!isRetriable(error)) throw error;
      log.warn({ err: error }, `${what} not read: the store is unavailable`);
      return refuse(
        'unavailable',
        problem('unavailable', 'The transaction could not be read; try again later', instance),
      );
    };
    let snapshot: TransactionSnapshot | null;
    try {
      // As the bank wrote it: the engine keeps a UETR as its first message carried it.
      snapshot = await options.transactions.get(uetr);
    } catch (error) {
      return storeUnavailable(error, 'transaction');
    }
    const started = snapshot === null ? undefined : startingMessage(snapshot);
    if (snapshot === null || started === undefined) return notRecorded();
    if (!partiesOf(started.message).has(memberId)) {
      log.info({ memberId }, 'transaction read by a bank that is no party to it refused as not found');
      return notFound('not_party');
    }
    options.metrics.read('found');
    return found(toJson('TransactionStatus', transactionStatusOf(snapshot, started)));

    function found(json: string): Response {
      return c.body(json, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    }

    /**
     * No snapshot yet. A transaction this instance acknowledged is answered with its first state; one
     * another instance acknowledged moments ago (its UETR claim says so) with 503 and Retry-After, to a
     * party only; anything else as a transaction that does not exist.
     */
    async function notRecorded(): Promise<Response> {
      const accepted = options.accepted?.answer(uetr, memberId);
      if (accepted?.found) {
        options.metrics.read('accepted');
        return found(accepted.json);
      }
      if (accepted?.party === false) return notFound('not_party');
      let claim: IdempotencyRecord | null;
      try {
        claim = (await options.idempotency?.get(transactionKey(uetr))) ?? null;
      } catch (error) {
        return storeUnavailable(error, 'transaction claim');
      }
      const parties = claim?.transaction;
      const recent =
        claim !== null && options.now().getTime() - claim.receivedAt.getTime() < claimedNotRecordedMs;
      if (parties === undefined || !recent) return notFound('not_found');
      if (parties.debtorAgentMemberId !== memberId && parties.creditorAgentMemberId !== memberId) {
        return notFound('not_party');
      }
      return refuse(
        'not_yet',
        problem(
          'unavailable',
          `Transaction ${uetr} was acknowledged moments ago and is not readable yet; read it again in a moment`,
          instance,
        ),
        { 'Retry-After': String(notRecordedRetryAfterSeconds) },
      );
    }
  }
}
