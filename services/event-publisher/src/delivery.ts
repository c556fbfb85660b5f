import { type Clock, type Logger, type Tracing, transactionLogger } from '@rp/runtime';
import type {
  DeliveryLogRepository,
  EventDeliveryOutcome,
  EventDeliveryRecord,
  EventPostingSource,
} from '@rp/store';
import type { AttemptResult, BankClient } from './bank-client.ts';
import type { BankGates, BankHealth, GateTicket } from './bank-gate.ts';
import type { AttemptPath, PublisherMetrics } from './metrics.ts';
import { deliveryId } from './postings.ts';
import { parseRetryAfter } from './retry-schedule.ts';
import { postingHeaders, type SigningSecrets, signerFor, traceparentFor } from './signing.ts';
import type { Subscriber } from './subscribers.ts';

/** A posting on its way to a bank, whichever path it takes (first attempt, retry, replay). */
export interface PostingToSend {
  readonly eventId: string;
  readonly uetr: string;
  readonly eventName: string;
  readonly body: string;
  /** When the tracker produced it (the delivery lag metric). */
  readonly producedAt?: Date;
  readonly traceparent?: string;
  /** Where it was read from: kept in the delivery log entry the attempt creates, for replays. */
  readonly source?: EventPostingSource;
}

export interface AttemptOutcome {
  readonly result: AttemptResult;
  /** The bank's Retry-After in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;
}

export interface DeliveryDeps {
  readonly client: BankClient;
  readonly gates: BankGates;
  readonly signers: SigningSecrets;
  readonly deliveryLog: Pick<
    DeliveryLogRepository,
    'recordAttempt' | 'recordAttempts' | 'recordFirstAttempts' | 'recordOutcome'
  >;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: PublisherMetrics;
  readonly userAgent: string;
  /** A client span per attempt; the bank gets it as the posting's traceparent. */
  readonly tracing?: Tracing;
}

/**
 * Where a caller collects the delivery log records of the final attempts it makes, to write them
 * together (`DeliveryLogRepository.recordFirstAttempts`) before it counts those postings as handled.
 */
export type DeliveryRecords = EventDeliveryRecord[];

/**
 * One attempt of one posting at one bank: signed headers, the POST over the bank's pool, the bank gate
 * told what it showed, the attempt written to the delivery log (with the outcome it led to) and counted.
 * A delivery log write that fails throws, so the caller handles the posting again: the bank may get it
 * twice (it deduplicates on webhook-id), the log never misses it.
 *
 * With `options.records`, an attempt that ends the posting's delivery (delivered, or refused for good) is
 * added there instead of written, and the caller writes the records before it treats the posting as done.
 * An attempt that leaves the posting pending is always written at once: a retry may follow it.
 */
export class Delivery {
  readonly #deps: DeliveryDeps;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
  }

  async attempt(
    target: Subscriber,
    posting: PostingToSend,
    ticket: GateTicket,
    path: AttemptPath,
    options: { retry?: boolean; signal?: AbortSignal; records?: DeliveryRecords } = {},
  ): Promise<AttemptOutcome> {
    const { client, gates, clock, metrics } = this.#deps;
    const gate = gates.of(target.memberId);
    const signer = signerFor(this.#deps.signers, target.memberId);
    const release = await gate.slot();
    const at = clock.now();
    let result: AttemptResult;
    try {
      if (!signer) {
        // Configuration is checked at start-up; this only guards a bank added without a secret.
        result = { kind: 'final', status: 0, error: 'no signing secret for this bank', latencyMs: 0 };
      } else {
        const span = this.#deps.tracing?.startSpan(`POST ${posting.eventName}`, {
          role: 'client',
          ...(posting.traceparent ? { parent: { traceparent: posting.traceparent } } : {}),
          uetr: posting.uetr,
          attributes: {
            'http.request.method': 'POST',
            'rp.bank': target.memberId,
            'rp.event.id': posting.eventId,
          },
        });
        const headers = postingHeaders({
          eventId: posting.eventId,
          body: posting.body,
          at,
          signer,
          traceparent: span?.headers.traceparent ?? traceparentFor(posting.uetr, posting.traceparent),
          userAgent: this.#deps.userAgent,
        });
        result = await client.post(target.endpoint, headers, posting.body, options.signal);
        if (span) {
          if (result.status) span.setAttribute('http.response.status_code', result.status);
          if (result.kind !== 'delivered') span.fail(new Error(result.error));
          span.end();
        }
      }
    } finally {
      release();
    }
    const retryAfterMs =
      result.kind === 'retryable' ? parseRetryAfter(result.retryAfter, clock.now()) : undefined;
    gate.report(ticket, healthOf(result, retryAfterMs));
    metrics.bankOpen(target.memberId, gate.isOpen);
    metrics.attempt(target.memberId, path, result, options.retry ?? false);

    const outcome: EventDeliveryOutcome =
      result.kind === 'delivered' ? 'delivered' : result.kind === 'final' ? 'failed' : 'pending';
    const record: EventDeliveryRecord = {
      posting: {
        eventId: deliveryId(posting.eventId, target.memberId),
        uetr: posting.uetr,
        memberId: target.memberId,
        eventType: posting.eventName,
        ...(posting.source ? { source: posting.source } : {}),
      },
      attempt: {
        at,
        httpStatus: result.status === null || result.status === 0 ? null : result.status,
        latencyMs: result.latencyMs,
        ...(result.kind === 'delivered' ? {} : { error: result.error }),
      },
      outcome,
    };
    if (options.records && outcome !== 'pending') options.records.push(record);
    else await this.#deps.deliveryLog.recordAttempt(record.posting, record.attempt, record.outcome);

    // Made only for a line that is written: a child logger per delivered posting is a measurable share of
    // the publisher's CPU, and the delivered line is at debug.
    const log = () =>
      transactionLogger(this.#deps.logger, { uetr: posting.uetr, messageIdentification: posting.eventId });
    const fields = {
      memberId: target.memberId,
      eventName: posting.eventName,
      path,
      status: result.status,
      latencyMs: result.latencyMs,
    };
    if (result.kind === 'delivered') {
      const lag = posting.producedAt
        ? (clock.now().getTime() - posting.producedAt.getTime()) / 1000
        : undefined;
      metrics.outcome(target.memberId, 'delivered', lag);
      if (this.#deps.logger.isLevelEnabled('debug')) log().debug(fields, 'posting delivered');
    } else if (result.kind === 'final') {
      metrics.outcome(target.memberId, 'failed', undefined);
      log().warn({ ...fields, error: result.error }, 'posting refused by the bank; recorded as failed');
    } else {
      log().info(
        { ...fields, error: result.error, retryAfterMs },
        'posting not delivered; it will be retried',
      );
    }
    return { result, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }

  /**
   * Writes the records a caller collected (`options.records` of `attempt`): `records` appended to their
   * postings' entries, side by side, and `firsts`, the first attempts of postings without an entry, as
   * new entries in one insert (an entry that exists after all is appended to instead).
   */
  async record(records: DeliveryRecords, firsts: DeliveryRecords = []): Promise<void> {
    if (firsts.length > 0) {
      await this.#deps.deliveryLog.recordFirstAttempts(firsts);
      this.#deps.metrics.firstAttemptsLogged(firsts.length);
    }
    if (records.length > 0) await this.#deps.deliveryLog.recordAttempts(records);
  }

  /** A posting that waited longer than the schedule allows, or that cannot be sent any more. */
  async giveUp(
    memberId: string,
    posting: Pick<PostingToSend, 'eventId' | 'uetr' | 'eventName'>,
    outcome: 'expired' | 'failed',
    reason: string,
  ): Promise<void> {
    const at = this.#deps.clock.now();
    const id = deliveryId(posting.eventId, memberId);
    const recorded = outcome === 'expired' && (await this.#deps.deliveryLog.recordOutcome(id, outcome, at));
    if (!recorded) {
      // Never attempted (or failed for good without an answer): one entry without an HTTP status says why.
      await this.#deps.deliveryLog.recordAttempt(
        { eventId: id, uetr: posting.uetr, memberId, eventType: posting.eventName },
        { at, httpStatus: null, latencyMs: 0, error: reason },
        outcome,
      );
    }
    this.#deps.metrics.outcome(memberId, outcome, undefined);
    transactionLogger(this.#deps.logger, { uetr: posting.uetr, messageIdentification: posting.eventId }).warn(
      { memberId, eventName: posting.eventName, outcome, reason },
      'posting given up',
    );
  }
}

function healthOf(result: AttemptResult, retryAfterMs: number | undefined): BankHealth {
  if (result.kind !== 'retryable') return { kind: 'answered' };
  if ((result.status === 429 || result.status === 503) && retryAfterMs !== undefined) {
    return { kind: 'paused', forMs: retryAfterMs };
  }
  return { kind: 'failed' };
}
