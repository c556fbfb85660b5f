import {
  type CreditTransfer,
  type DirectDebit,
  type EventPosting,
  type MessageName,
  type Messages,
  type PaymentStatusReport,
  parseJsonExact,
  validate,
} from '@rp/contracts';
import type { FaultRoute } from './faults.ts';

/** The messages the simulated banks exchange with the engine, named as the spec names the operations. */
export type MessageKind =
  | 'outboundDirectDebitResponse'
  | 'inboundDirectDebit'
  | 'inboundDirectDebitResponse'
  | 'inboundCreditTransferAuthorization'
  | 'inboundCreditTransferAuthorizationResponse';
export const messageKinds: readonly MessageKind[] = [
  'outboundDirectDebitResponse',
  'inboundDirectDebit',
  'inboundDirectDebitResponse',
  'inboundCreditTransferAuthorization',
  'inboundCreditTransferAuthorizationResponse',
];

/** The message each kind carries. */
const messageNameOf = {
  outboundDirectDebitResponse: 'PaymentStatusReport',
  inboundDirectDebit: 'DirectDebit',
  inboundDirectDebitResponse: 'PaymentStatusReport',
  inboundCreditTransferAuthorization: 'CreditTransfer',
  inboundCreditTransferAuthorizationResponse: 'PaymentStatusReport',
} as const satisfies Record<MessageKind, MessageName>;

/** One event posting a bank received, in arrival order. */
export interface ReceivedPosting {
  /** Position in the arrival order of every posting (1 for the first). */
  seq: number;
  memberId: string;
  uetr: string;
  /** The `webhook-id` header, or the posting's own identification when the header is absent. */
  eventId: string;
  receivedAt: string;
  /** Whether the signature was checked (a secret is configured for the bank) and matched. */
  signatureVerified: boolean;
  headers: Record<string, string>;
  posting: EventPosting;
}

/** Where the simulator's own report to the engine stands. */
export interface ResponseDelivery {
  attempts: number;
  lastStatus: number | null;
  lastError?: string;
  /** done: the engine answered 202 (or 409: it had it already); failed: retries exhausted or stopped. */
  state: 'pending' | 'done' | 'failed';
  lastAttemptAt?: string;
}

/** One message exchanged with the engine. */
export interface ExchangedMessage {
  seq: number;
  kind: MessageKind;
  memberId: string;
  uetr: string;
  messageIdentification: string;
  /** When it arrived (received kinds) or was first sent (the bank's own reports). */
  at: string;
  /** How many more times the same messageIdentification arrived. */
  duplicates: number;
  /**
   * Received credit transfer authorisations only: whether the engine's signature was checked (the bank
   * has secrets) and matched.
   */
  signatureVerified?: boolean;
  body: DirectDebit | CreditTransfer | PaymentStatusReport;
  /** The bank's own reports only (inboundDirectDebitResponse, inboundCreditTransferAuthorizationResponse). */
  delivery?: ResponseDelivery;
}

/**
 * A posting as the log keeps it: its JSON text as it arrived instead of the decoded posting. A decoded
 * posting is a tree of some hundred objects, the text one string the collector does not look into: a
 * full log of them is marked and moved in less than half the time, and `postings()` decodes the few
 * that are read.
 */
type KeptPosting = Omit<ReceivedPosting, 'posting'> & { readonly text: string };

/** A message as the log keeps it: its JSON text instead of its body (the same reasons as a posting's). */
export type KeptMessage = Omit<ExchangedMessage, 'body'> & { readonly text: string };

/**
 * A kept text decoded as it was when it was stored: parsed and validated again, so that its amounts
 * are the same canonical decimal strings. It passed the same check when it came in.
 */
function decodeKept<N extends MessageName>(name: N, text: string): Messages[N] {
  const checked = validate(name, parseJsonExact(text));
  if (!checked.ok) throw new Error(`a kept ${name} no longer decodes: ${JSON.stringify(checked.errors)}`);
  return checked.value;
}

/** The message routes, whose every request (faulted or not) is kept in the request log. */
export type MessageRoute = Exclude<FaultRoute, 'events'>;
export const messageRoutes: readonly MessageRoute[] = ['outbound', 'inbound', 'credit'];

/** What a request to a message route got: an HTTP status, a destroyed connection, or nothing at all. */
export type RequestAnswer = number | 'dropped' | 'no-response';

/**
 * One request that reached a bank's message route, in arrival order, faulted or not: what a bank sees at
 * its door (a resend of the same message shows up once per attempt here, once in the messages).
 */
export interface BankRequest {
  /** Position in the arrival order of every logged request (1 for the first). */
  seq: number;
  route: MessageRoute;
  memberId: string;
  at: string;
  /** From the body, when it is JSON that carries them. */
  uetr?: string;
  messageIdentification?: string;
  /** The `webhook-id` header, when sent. */
  webhookId?: string;
  /** The fault applied to it, if any. */
  fault?: string;
  /** null while the request is in progress. */
  answer: RequestAnswer | null;
}

export interface RouteCounters {
  received: number;
  accepted: number;
  duplicates: number;
  invalid: number;
  signatureFailures: number;
  faultsInjected: number;
}

export interface SimulatorStats {
  routes: Record<FaultRoute, RouteCounters>;
  banks: Record<string, Record<FaultRoute, RouteCounters>>;
  duplicates: number;
  signatureFailures: number;
  /**
   * Transaction state postings that reached a bank after one of the same transaction with a later or
   * equal `stageVersion` (duplicates left out): each bank's postings of a transaction are checked in
   * arrival order, every one of them, whether or not it is still kept.
   */
  outOfOrder: number;
  /** Postings kept for inspection (`/sim/postings`): the latest `postingLogSize`. */
  postingsKept: number;
  /** Messages kept for inspection (`/sim/messages`): the latest `messageLogSize`. */
  messagesKept: number;
  /**
   * Postings stored (duplicates left out) by name: `TRANSACTION_STATE_<type>` (the posting's name), or
   * `ESM_STATE_<transactionState>`. Counting a type is cheaper than listing the postings.
   */
  postingsByName: Record<string, number>;
  responses: { sent: number; attempts: number; acknowledged: number; failed: number; pending: number };
}

const emptyCounters = (): RouteCounters => ({
  received: 0,
  accepted: 0,
  duplicates: 0,
  invalid: 0,
  signatureFailures: 0,
  faultsInjected: 0,
});

const emptyRoutes = (): Record<FaultRoute, RouteCounters> => ({
  events: emptyCounters(),
  outbound: emptyCounters(),
  inbound: emptyCounters(),
  credit: emptyCounters(),
});

type Counter = keyof RouteCounters;

/** Postings kept by default: a kept posting takes about 4.2 kB of heap with its ids, so about 0.42 GB. */
export const defaultPostingLogSize = 100_000;
/** Messages kept by default (about three a debit, each with its body). */
export const defaultMessageLogSize = 100_000;

/**
 * The latest `size` entries in arrival order, with each transaction's found by UETR without a scan of
 * all: `push` hands back the entry it forgot to make room, if any, for the caller's own indexes.
 */
class KeptLog<T extends { readonly uetr: string }> {
  /** Arrival order; the kept ones start at `#head` (the oldest are forgotten from the front). */
  #entries: (T | undefined)[] = [];
  #head = 0;
  #byUetr = new Map<string, T[]>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  get length(): number {
    return this.#entries.length - this.#head;
  }

  push(entry: T): T | undefined {
    this.#entries.push(entry);
    const ofUetr = this.#byUetr.get(entry.uetr);
    if (ofUetr) ofUetr.push(entry);
    else this.#byUetr.set(entry.uetr, [entry]);
    return this.length > this.#size ? this.#forgetOldest() : undefined;
  }

  /** The entries kept, in arrival order (a copy). */
  all(): T[] {
    return this.#entries.slice(this.#head) as T[];
  }

  /** One transaction's entries kept, in arrival order (the log's own list: not to be changed). */
  ofUetr(uetr: string): readonly T[] {
    return this.#byUetr.get(uetr) ?? [];
  }

  clear(): void {
    this.#entries = [];
    this.#head = 0;
    this.#byUetr = new Map();
  }

  #forgetOldest(): T | undefined {
    const oldest = this.#entries[this.#head];
    this.#entries[this.#head] = undefined;
    this.#head += 1;
    if (this.#head >= 1024 && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
    if (!oldest) return undefined;
    const ofUetr = this.#byUetr.get(oldest.uetr);
    // A transaction's entries arrive in the same order as all of them: its oldest is first.
    if (ofUetr?.[0] === oldest) ofUetr.shift();
    if (ofUetr?.length === 0) this.#byUetr.delete(oldest.uetr);
    return oldest;
  }
}

/** A key of one bank's: `<memberId>\u0000<value>` (a posting's event id, a transaction's UETR). */
const bankKey = (memberId: string, value: string) => `${memberId}\u0000${value}`;

/** What makes a message the same one again: its kind, its bank and its messageIdentification. */
const messageKey = (message: Pick<ExchangedMessage, 'kind' | 'memberId' | 'messageIdentification'>) =>
  `${message.kind}\u0000${bankKey(message.memberId, message.messageIdentification)}`;

/**
 * Everything the simulated banks received and sent, in memory, with waiters for tests. Postings are
 * deduplicated per bank by event id: a redelivered posting is counted, not stored twice. The latest
 * `postingLogSize` postings and `messageLogSize` messages are kept, so that a long run does not grow
 * without bound; the counters, the order check and the pending reports cover every one. A posting or a
 * message that arrives again after it was forgotten is taken for a new one.
 */
export class SimulatorRecords {
  readonly #postings: KeptLog<KeptPosting>;
  #postingIds = new Set<string>();
  /** Per bank and transaction, the highest `stageVersion` received: as many as postings are kept. */
  #stages = new Map<string, number>();
  readonly #messages: KeptLog<KeptMessage>;
  #messageIds = new Map<string, KeptMessage>();
  /** The bank's own reports not yet acknowledged nor given up, kept or not. */
  #pendingDeliveries = new Set<ResponseDelivery>();
  #stats = SimulatorRecords.#emptyStats();
  #postingSeq = 0;
  #messageSeq = 0;
  #requests: BankRequest[] = [];
  #requestSeq = 0;
  readonly #requestLogSize: number;
  readonly #postingLogSize: number;
  readonly #waiters = new Set<() => void>();

  /**
   * `requestLogSize`: how many requests the request log keeps; `postingLogSize`: how many postings are
   * kept; `messageLogSize`: how many messages (in each, the oldest are forgotten first).
   */
  constructor(options: { requestLogSize?: number; postingLogSize?: number; messageLogSize?: number } = {}) {
    this.#requestLogSize = options.requestLogSize ?? 10_000;
    this.#postingLogSize = options.postingLogSize ?? defaultPostingLogSize;
    this.#postings = new KeptLog(this.#postingLogSize);
    this.#messages = new KeptLog(options.messageLogSize ?? defaultMessageLogSize);
  }

  static #emptyStats(): SimulatorStats {
    return {
      routes: emptyRoutes(),
      banks: {},
      duplicates: 0,
      signatureFailures: 0,
      outOfOrder: 0,
      postingsKept: 0,
      messagesKept: 0,
      postingsByName: {},
      responses: { sent: 0, attempts: 0, acknowledged: 0, failed: 0, pending: 0 },
    };
  }

  count(route: FaultRoute, memberId: string, counter: Counter): void {
    this.#stats.routes[route][counter] += 1;
    const bank = this.#stats.banks[memberId] ?? emptyRoutes();
    this.#stats.banks[memberId] = bank;
    bank[route][counter] += 1;
    if (counter === 'duplicates') this.#stats.duplicates += 1;
    if (counter === 'signatureFailures') this.#stats.signatureFailures += 1;
  }

  /**
   * Stores the posting unless this bank has it already: `duplicate` when it does, `out-of-order` when
   * it is stored but the bank had the same or a later stage of the transaction already. `text` is the
   * JSON it came in as, which `posting` was decoded and checked from: the log keeps the text.
   */
  addPosting(
    entry: Omit<ReceivedPosting, 'seq'> & { readonly text: string },
  ): 'stored' | 'duplicate' | 'out-of-order' {
    const key = bankKey(entry.memberId, entry.eventId);
    if (this.#postingIds.has(key)) return 'duplicate';
    this.#postingIds.add(key);
    this.#postingSeq += 1;
    const { posting: _decoded, ...kept } = entry;
    const forgotten = this.#postings.push({ ...kept, seq: this.#postingSeq });
    if (forgotten) this.#postingIds.delete(bankKey(forgotten.memberId, forgotten.eventId));
    const inOrder =
      entry.posting.class !== 'TRANSACTION_STATE' ||
      this.#checkOrder(entry.memberId, entry.uetr, entry.posting.stageVersion);
    const name =
      entry.posting.class === 'TRANSACTION_STATE'
        ? entry.posting.name
        : `ESM_STATE_${entry.posting.state.transactionState}`;
    this.#stats.postingsByName[name] = (this.#stats.postingsByName[name] ?? 0) + 1;
    this.#wake();
    return inOrder ? 'stored' : 'out-of-order';
  }

  /** False (and counted) for a posting below or at the stage its bank already had of the transaction. */
  #checkOrder(memberId: string, uetr: string, stage: number): boolean {
    const key = bankKey(memberId, uetr);
    const last = this.#stages.get(key);
    if (last !== undefined && stage <= last) {
      this.#stats.outOfOrder += 1;
      return false;
    }
    // Deleted first, so that the map's order is by the latest posting and the oldest go first.
    this.#stages.delete(key);
    this.#stages.set(key, stage);
    if (this.#stages.size > this.#postingLogSize) {
      const oldest = this.#stages.keys().next();
      if (!oldest.done) this.#stages.delete(oldest.value);
    }
    return true;
  }

  /** The postings kept, in arrival order, decoded. */
  postings(filter: { uetr?: string; memberId?: string } = {}): ReceivedPosting[] {
    return this.#keptPostings(filter).map(({ text, ...kept }) => ({
      ...kept,
      posting: decodeKept('EventPosting', text),
    }));
  }

  /** How many postings `postings(filter)` would give, without decoding them. */
  postingCount(filter: { uetr?: string; memberId?: string } = {}): number {
    if (filter.uetr === undefined && filter.memberId === undefined) return this.#postings.length;
    return this.#keptPostings(filter).length;
  }

  #keptPostings(filter: { uetr?: string; memberId?: string }): readonly KeptPosting[] {
    // `all()` is a copy already; a transaction's list is the log's own, never handed out.
    const candidates = filter.uetr === undefined ? this.#postings.all() : this.#postings.ofUetr(filter.uetr);
    return filter.memberId === undefined
      ? candidates
      : candidates.filter((posting) => posting.memberId === filter.memberId);
  }

  /**
   * Stores a message unless the same bank has one with this kind and messageIdentification; returns
   * the stored message (its text kept instead of its body) and whether it is new. `text` is the body's
   * JSON: as it came in, or as the bank sends its own report.
   */
  addMessage(entry: Omit<KeptMessage, 'seq' | 'duplicates'>): { message: KeptMessage; created: boolean } {
    const key = messageKey(entry);
    const existing = this.#messageIds.get(key);
    if (existing) {
      existing.duplicates += 1;
      return { message: existing, created: false };
    }
    this.#messageSeq += 1;
    const message: KeptMessage = { ...entry, seq: this.#messageSeq, duplicates: 0 };
    this.#messageIds.set(key, message);
    if (message.delivery?.state === 'pending') this.#pendingDeliveries.add(message.delivery);
    const forgotten = this.#messages.push(message);
    if (forgotten) this.#messageIds.delete(messageKey(forgotten));
    this.#wake();
    return { message, created: true };
  }

  /** The messages kept, in arrival order, their bodies decoded. */
  messages(filter: { kind?: MessageKind; uetr?: string; memberId?: string } = {}): ExchangedMessage[] {
    const candidates = filter.uetr === undefined ? this.#messages.all() : this.#messages.ofUetr(filter.uetr);
    const kept = candidates.filter(
      (message) =>
        (filter.kind === undefined || message.kind === filter.kind) &&
        (filter.memberId === undefined || message.memberId === filter.memberId),
    );
    return kept.map(({ text, ...message }) => ({
      ...message,
      body: decodeKept(messageNameOf[message.kind], text),
    }));
  }

  /**
   * Logs a request to a message route; the caller sets `answer` on the returned entry once it is known.
   * The log keeps the latest `requestLogSize` requests.
   */
  addRequest(entry: Omit<BankRequest, 'seq' | 'answer'>): BankRequest {
    this.#requestSeq += 1;
    const request: BankRequest = { ...entry, seq: this.#requestSeq, answer: null };
    this.#requests.push(request);
    if (this.#requests.length > this.#requestLogSize) this.#requests.shift();
    return request;
  }

  requests(filter: { route?: MessageRoute; uetr?: string; memberId?: string } = {}): BankRequest[] {
    return this.#requests.filter(
      (request) =>
        (filter.route === undefined || request.route === filter.route) &&
        (filter.uetr === undefined || request.uetr === filter.uetr) &&
        (filter.memberId === undefined || request.memberId === filter.memberId),
    );
  }

  /** Call after changing a message's delivery in place, so waiters look again. */
  touched(): void {
    this.#wake();
  }

  responseSent(): void {
    this.#stats.responses.sent += 1;
  }

  responseAttempt(): void {
    this.#stats.responses.attempts += 1;
  }

  /** A report of the bank's own ends: acknowledged (`done`) or given up (`failed`). */
  responseSettled(delivery: ResponseDelivery, outcome: 'acknowledged' | 'failed'): void {
    delivery.state = outcome === 'acknowledged' ? 'done' : 'failed';
    this.#pendingDeliveries.delete(delivery);
    this.#stats.responses[outcome] += 1;
    this.#wake();
  }

  stats(): SimulatorStats {
    const stats = structuredClone(this.#stats);
    stats.postingsKept = this.#postings.length;
    stats.messagesKept = this.#messages.length;
    stats.responses.pending = this.#pendingDeliveries.size;
    return stats;
  }

  reset(): void {
    this.#postings.clear();
    this.#postingIds = new Set();
    this.#stages = new Map();
    this.#messages.clear();
    this.#messageIds = new Map();
    this.#pendingDeliveries = new Set();
    this.#stats = SimulatorRecords.#emptyStats();
    this.#postingSeq = 0;
    this.#messageSeq = 0;
    this.#requests = [];
    this.#requestSeq = 0;
    this.#wake();
  }

  /**
   * Resolves with the value of `probe` once it is defined, re-checked on every change; undefined after
   * `timeoutMs` or once `signal` aborts.
   */
  waitFor<T>(probe: () => T | undefined, timeoutMs: number, signal?: AbortSignal): Promise<T | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return;
        finish(value);
      };
      const finish = (value: T | undefined) => {
        this.#waiters.delete(check);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => finish(undefined);
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(check);
      check();
    });
  }

  /** Wakes every waiter (at stop, so long polls answer at once). */
  wakeAll(): void {
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
