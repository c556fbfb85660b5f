import type { DirectDebit, EventPosting, PaymentStatusReport } from '@rp/contracts';

/** The messages the simulated banks exchange with the engine, named as the spec names the operations. */
export type MessageKind = 'outboundDirectDebitResponse' | 'inboundDirectDebit' | 'inboundDirectDebitResponse';
export const messageKinds: readonly MessageKind[] = [
  'outboundDirectDebitResponse',
  'inboundDirectDebit',
  'inboundDirectDebitResponse',
];

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
  /** When it arrived (received kinds) or was first sent (inboundDirectDebitResponse). */
  at: string;
  /** How many more times the same messageIdentification arrived. */
  duplicates: number;
  body: DirectDebit | PaymentStatusReport;
  /** inboundDirectDebitResponse only. */
  delivery?: ResponseDelivery;
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
  routes: Record<'events' | 'outbound' | 'inbound', RouteCounters>;
  banks: Record<string, Record<'events' | 'outbound' | 'inbound', RouteCounters>>;
  duplicates: number;
  signatureFailures: number;
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

const emptyRoutes = (): Record<'events' | 'outbound' | 'inbound', RouteCounters> => ({
  events: emptyCounters(),
  outbound: emptyCounters(),
  inbound: emptyCounters(),
});

type Counter = keyof RouteCounters;

/**
 * Everything the simulated banks received and sent, in memory, with waiters for tests. Postings are
 * deduplicated per bank by event id: a redelivered posting is counted, not stored twice.
 */
export class SimulatorRecords {
  #postings: ReceivedPosting[] = [];
  #postingIds = new Set<string>();
  #messages: ExchangedMessage[] = [];
  #messageIds = new Map<string, ExchangedMessage>();
  #stats = SimulatorRecords.#emptyStats();
  #postingSeq = 0;
  #messageSeq = 0;
  readonly #waiters = new Set<() => void>();

  static #emptyStats(): SimulatorStats {
    return {
      routes: emptyRoutes(),
      banks: {},
      duplicates: 0,
      signatureFailures: 0,
      responses: { sent: 0, attempts: 0, acknowledged: 0, failed: 0, pending: 0 },
    };
  }

  count(route: 'events' | 'outbound' | 'inbound', memberId: string, counter: Counter): void {
    this.#stats.routes[route][counter] += 1;
    const bank = this.#stats.banks[memberId] ?? emptyRoutes();
    this.#stats.banks[memberId] = bank;
    bank[route][counter] += 1;
    if (counter === 'duplicates') this.#stats.duplicates += 1;
    if (counter === 'signatureFailures') this.#stats.signatureFailures += 1;
  }

  /** Stores the posting unless this bank has it already; false for a duplicate. */
  addPosting(entry: Omit<ReceivedPosting, 'seq'>): boolean {
    const key = `${entry.memberId}\u0000${entry.eventId}`;
    if (this.#postingIds.has(key)) return false;
    this.#postingIds.add(key);
    this.#postingSeq += 1;
    this.#postings.push({ ...entry, seq: this.#postingSeq });
    this.#wake();
    return true;
  }

  postings(filter: { uetr?: string; memberId?: string } = {}): ReceivedPosting[] {
    return this.#postings.filter(
      (posting) =>
        (filter.uetr === undefined || posting.uetr === filter.uetr) &&
        (filter.memberId === undefined || posting.memberId === filter.memberId),
    );
  }

  /**
   * Stores a message unless the same bank has one with this kind and messageIdentification; returns
   * the stored message and whether it is new.
   */
  addMessage(entry: Omit<ExchangedMessage, 'seq' | 'duplicates'>): {
    message: ExchangedMessage;
    created: boolean;
  } {
    const key = `${entry.kind}\u0000${entry.memberId}\u0000${entry.messageIdentification}`;
    const existing = this.#messageIds.get(key);
    if (existing) {
      existing.duplicates += 1;
      return { message: existing, created: false };
    }
    this.#messageSeq += 1;
    const message: ExchangedMessage = { ...entry, seq: this.#messageSeq, duplicates: 0 };
    this.#messages.push(message);
    this.#messageIds.set(key, message);
    this.#wake();
    return { message, created: true };
  }

  messages(filter: { kind?: MessageKind; uetr?: string; memberId?: string } = {}): ExchangedMessage[] {
    return this.#messages.filter(
      (message) =>
        (filter.kind === undefined || message.kind === filter.kind) &&
        (filter.uetr === undefined || message.uetr === filter.uetr) &&
        (filter.memberId === undefined || message.memberId === filter.memberId),
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

  responseSettled(outcome: 'acknowledged' | 'failed'): void {
    this.#stats.responses[outcome] += 1;
    this.#wake();
  }

  stats(): SimulatorStats {
    const stats = structuredClone(this.#stats);
    stats.responses.pending = this.#messages.filter(
      (message) => message.delivery?.state === 'pending',
    ).length;
    return stats;
  }

  reset(): void {
    this.#postings = [];
    this.#postingIds = new Set();
    this.#messages = [];
    this.#messageIds = new Map();
    this.#stats = SimulatorRecords.#emptyStats();
    this.#postingSeq = 0;
    this.#messageSeq = 0;
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
