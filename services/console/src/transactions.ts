import { AppError, wholeNumberQuery } from '@rp/runtime';
import { problemText, type UpstreamFailure, type Upstreams } from './upstream.ts';

export const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** ISO 20022 Max35Text: what an endToEndIdentification can be. */
export const maxEndToEndIdLength = 35;
export const maxSearchLimit = 100;

/** One bank's side of the event posting a state change produced (from the event publisher's log). */
export interface PostingDelivery {
  readonly memberId: string;
  /** `delivered`, `failed`, `expired`, `pending`, `queued` or `unknown`. */
  readonly outcome: string;
  readonly attemptCount: number;
  readonly lastStatus: number | null;
  readonly lastLatencyMs: number | null;
}

export interface JourneyMessage {
  readonly at: string;
  readonly kind: string;
  readonly messageIdentification: string;
  /** The message as the snapshot keeps it (parsed); a string when it is not JSON or too large. */
  readonly body: unknown;
}

export interface JourneyAttempt {
  readonly at: string;
  readonly memberId: string;
  readonly endpoint: string;
  readonly messageIdentification: string;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly outcome: string;
  readonly error?: string;
}

/** A state of the journey, with what happened while the transaction was in it. */
export interface JourneyState {
  readonly seq: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly from: string | null;
  readonly to: string;
  readonly at: string;
  /** The service that emitted the change. */
  readonly service: string;
  readonly messages: readonly JourneyMessage[];
  readonly attempts: readonly JourneyAttempt[];
  /** The event posting of this change per bank; null when the event publisher could not be asked. */
  readonly postings: readonly PostingDelivery[] | null;
}

export interface Journey {
  readonly uetr: string;
  readonly state: string | null;
  readonly endToEndIdentification: string | null;
  readonly debtorAgentMemberId: string | null;
  readonly creditorAgentMemberId: string | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
  /** In sequence order; messages and attempts sit under the state they happened in. */
  readonly states: readonly JourneyState[];
  /** Every delivery attempt ever recorded (the snapshot keeps only the newest). */
  readonly deliveryAttemptCount: number;
  /** `degraded` when the event publisher did not answer: the journey is there, the postings are not. */
  readonly status: 'ok' | 'degraded';
  readonly problems: readonly string[];
}

export interface TransactionSummary {
  readonly uetr: string;
  readonly state: string | null;
  readonly endToEndIdentification: string | null;
  readonly debtorAgentMemberId: string | null;
  readonly creditorAgentMemberId: string | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
}

interface SnapshotJson {
  uetr?: unknown;
  state?: unknown;
  endToEndIdentification?: unknown;
  debtorAgentMemberId?: unknown;
  creditorAgentMemberId?: unknown;
  createdAt?: unknown;
  updatedAt?: unknown;
  history?: unknown;
  messages?: unknown;
  deliveryAttempts?: unknown;
  deliveryAttemptCount?: unknown;
}

type Json = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const list = (value: unknown): Json[] =>
  Array.isArray(value)
    ? value.filter((entry): entry is Json => typeof entry === 'object' && entry !== null)
    : [];
const time = (value: unknown): number => {
  const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
};

const maxBodyChars = 64 * 1024;

function parseBody(bodyJson: unknown): unknown {
  if (typeof bodyJson !== 'string') return null;
  if (bodyJson.length > maxBodyChars) return `${bodyJson.slice(0, maxBodyChars)}… (truncated)`;
  try {
    return JSON.parse(bodyJson);
  } catch {
    return bodyJson;
  }
}

/**
 * The journey of a snapshot: its states in sequence order, each with the messages and delivery attempts
 * from its time until the next state's (anything before the first state goes with the first).
 */
export function journeyOf(
  snapshot: SnapshotJson,
  postings: ReadonlyMap<string, readonly PostingDelivery[]> | null,
  problems: readonly string[] = [],
): Journey {
  const history = list(snapshot.history)
    .map((entry) => ({
      seq: num(entry.seq) ?? 0,
      eventId: str(entry.eventId) ?? '',
      eventType: str(entry.eventType) ?? 'UNKNOWN',
      from: str(entry.from),
      to: str(entry.to) ?? 'UNKNOWN',
      at: str(entry.at) ?? '',
      service: str(entry.service) ?? 'unknown',
    }))
    .sort((a, b) => a.seq - b.seq);
  const messages: JourneyMessage[] = list(snapshot.messages).map((message) => ({
    at: str(message.at) ?? '',
    kind: str(message.kind) ?? 'unknown',
    messageIdentification: str(message.messageIdentification) ?? '',
    body: parseBody(message.bodyJson),
  }));
  const attempts: JourneyAttempt[] = list(snapshot.deliveryAttempts).map((attempt) => {
    const error = str(attempt.error);
    return {
      at: str(attempt.at) ?? '',
      memberId: str(attempt.memberId) ?? '',
      endpoint: str(attempt.endpoint) ?? '',
      messageIdentification: str(attempt.messageIdentification) ?? '',
      httpStatus: num(attempt.httpStatus),
      latencyMs: num(attempt.latencyMs) ?? 0,
      outcome: str(attempt.outcome) ?? 'unknown',
      ...(error ? { error } : {}),
    };
  });
  // Which state each message and attempt happened in: the last state that began at or before it.
  const starts = history.map((entry) => time(entry.at));
  const stateIndex = (at: string) => {
    const moment = time(at);
    let index = 0;
    for (let candidate = 0; candidate < starts.length; candidate += 1) {
      if ((starts[candidate] as number) <= moment) index = candidate;
    }
    return index;
  };
  const byTime = <T extends { at: string }>(items: T[]) => items.sort((a, b) => time(a.at) - time(b.at));
  const placedMessages = history.map((): JourneyMessage[] => []);
  const placedAttempts = history.map((): JourneyAttempt[] => []);
  for (const message of byTime(messages)) placedMessages[stateIndex(message.at)]?.push(message);
  for (const attempt of byTime(attempts)) placedAttempts[stateIndex(attempt.at)]?.push(attempt);

  return {
    uetr: str(snapshot.uetr) ?? '',
    state: str(snapshot.state),
    endToEndIdentification: str(snapshot.endToEndIdentification),
    debtorAgentMemberId: str(snapshot.debtorAgentMemberId),
    creditorAgentMemberId: str(snapshot.creditorAgentMemberId),
    createdAt: str(snapshot.createdAt),
    updatedAt: str(snapshot.updatedAt),
    states: history.map((entry, index) => ({
      ...entry,
      messages: placedMessages[index] ?? [],
      attempts: placedAttempts[index] ?? [],
      postings: postings ? (postings.get(entry.eventId) ?? []) : null,
    })),
    deliveryAttemptCount: num(snapshot.deliveryAttemptCount) ?? attempts.length,
    status: problems.length === 0 ? 'ok' : 'degraded',
    problems,
  };
}

/** The event publisher's GET /admin/events/:eventId/deliveries, per bank. */
export function postingDeliveriesOf(value: Json): PostingDelivery[] {
  return list(value.deliveries).map((delivery) => {
    const attempts = list(delivery.attempts);
    const last = attempts.at(-1);
    return {
      memberId: str(delivery.memberId) ?? '',
      outcome: str(delivery.outcome) ?? 'unknown',
      attemptCount: num(delivery.attemptCount) ?? attempts.length,
      lastStatus: last ? num(last.httpStatus) : null,
      lastLatencyMs: last ? num(last.latencyMs) : null,
    };
  });
}

export function summaryOf(snapshot: SnapshotJson): TransactionSummary {
  return {
    uetr: str(snapshot.uetr) ?? '',
    state: str(snapshot.state),
    endToEndIdentification: str(snapshot.endToEndIdentification),
    debtorAgentMemberId: str(snapshot.debtorAgentMemberId),
    creditorAgentMemberId: str(snapshot.creditorAgentMemberId),
    createdAt: str(snapshot.createdAt),
    updatedAt: str(snapshot.updatedAt),
  };
}

/** The failed call to the tracker as the console's own answer (problem+json through the error handler). */
function trackerFailure(result: UpstreamFailure, what: string): AppError {
  if (result.status === 404) {
    // The tracker's own words when it has them: a UETR received and not yet recorded says so, and when.
    const detail = problemText(result.body);
    return new AppError(
      'NOT_FOUND',
      detail?.startsWith('no transaction') ? detail : `no transaction ${what}`,
    );
  }
  if (result.status === 422 || result.status === 400) {
    return new AppError('VALIDATION_FAILED', `the tracker refused the request: ${result.error}`);
  }
  if (result.timedOut)
    return new AppError('DOWNSTREAM_TIMEOUT', `the tracker did not answer: ${result.error}`);
  return new AppError('DOWNSTREAM_REJECTED', `the tracker failed: ${result.error}`, {
    status: result.status === undefined ? 503 : 502,
    retriable: true,
  });
}

export interface TransactionReaderOptions {
  readonly upstreams: Upstreams;
  /** Event publisher calls in flight at once for one journey. */
  readonly concurrency?: number;
  /** Most states whose postings are looked up (the newest history is rarely longer). */
  readonly maxPostingLookups?: number;
}

export class TransactionReader {
  readonly #upstreams: Upstreams;
  readonly #concurrency: number;
  readonly #maxPostingLookups: number;

  constructor(options: TransactionReaderOptions) {
    this.#upstreams = options.upstreams;
    this.#concurrency = options.concurrency ?? 4;
    this.#maxPostingLookups = options.maxPostingLookups ?? 64;
  }

  /** The journey of one transaction; AppErrors for a bad UETR, an unknown one or a tracker that fails. */
  async journey(uetr: string, requestId?: string): Promise<Journey> {
    if (!uuidPattern.test(uetr)) {
      throw new AppError('VALIDATION_FAILED', 'uetr must be a UUID', {
        details: [
          { pointer: '/uetr', detail: 'must be a UUID such as 0b8c6a4e-2f4d-4c1b-9d7e-3a5f6b7c8d9e' },
        ],
      });
    }
    const id = uetr.toLowerCase();
    const snapshot = await this.#upstreams.json<SnapshotJson>(
      'tracker',
      `/admin/transactions/${id}`,
      requestId,
    );
    if (!snapshot.ok) throw trackerFailure(snapshot, id);
    const eventIds = list(snapshot.value.history)
      .map((entry) => str(entry.eventId))
      .filter((eventId): eventId is string => eventId !== null && uuidPattern.test(eventId))
      .slice(-this.#maxPostingLookups);
    const { postings, problem } = await this.#postings(eventIds, requestId);
    return journeyOf(snapshot.value, postings, problem ? [problem] : []);
  }

  /** Summaries of the transactions with this endToEndIdentification, newest first. */
  async byEndToEndId(
    endToEndId: string | undefined,
    limitText: string | undefined,
    requestId?: string,
  ): Promise<TransactionSummary[]> {
    const wanted = endToEndId?.trim() ?? '';
    if (wanted.length === 0 || wanted.length > maxEndToEndIdLength) {
      throw new AppError('VALIDATION_FAILED', `endToEndId must be 1 to ${maxEndToEndIdLength} characters`, {
        details: [{ pointer: '/endToEndId', detail: `required, 1 to ${maxEndToEndIdLength} characters` }],
      });
    }
    const limit = wholeNumberQuery(limitText, {
      name: 'limit',
      fallback: 20,
      max: maxSearchLimit,
      emptyIsAbsent: true,
    });
    const query = new URLSearchParams({ endToEndId: wanted, limit: String(limit) });
    const found = await this.#upstreams.json<{ transactions?: unknown }>(
      'tracker',
      `/admin/transactions?${query}`,
      requestId,
    );
    if (!found.ok) throw trackerFailure(found, `with endToEndId ${wanted}`);
    return list(found.value.transactions).map(summaryOf);
  }

  /**
   * The postings of the given state changes, per bank. A posting no bank receives is a 404 (no deliveries);
   * the first call that fails otherwise stops the lookups: the journey is shown without postings.
   */
  async #postings(
    eventIds: readonly string[],
    requestId: string | undefined,
  ): Promise<{ postings: Map<string, PostingDelivery[]> | null; problem?: string }> {
    const postings = new Map<string, PostingDelivery[]>();
    let problem: string | undefined;
    let next = 0;
    const worker = async () => {
      while (problem === undefined && next < eventIds.length) {
        const eventId = eventIds[next] as string;
        next += 1;
        const answer = await this.#upstreams.json<Json>(
          'event-publisher',
          `/admin/events/${eventId}/deliveries`,
          requestId,
        );
        if (answer.ok) postings.set(eventId, postingDeliveriesOf(answer.value));
        else if (answer.status === 404) postings.set(eventId, []);
        else problem ??= `event-publisher: /admin/events/:eventId/deliveries ${answer.error}`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, eventIds.length) }, worker));
    return problem === undefined ? { postings } : { postings: null, problem };
  }
}
