import type { Participant, Participants } from '@rp/pipeline';
import type { EventClassName } from './postings.ts';

/** A bank that receives a posting: it takes the posting's class and has an events URL. */
export interface Subscriber {
  readonly memberId: string;
  /** `{eventsUrl}/events`. */
  readonly endpoint: string;
}

/**
 * Which of a transaction's banks receive a posting. A bank without an events URL, or one that does not
 * take the class, is dropped here, before anything is stored or sent: it costs nothing.
 */
export class Subscriptions {
  readonly #participants: Participants;

  constructor(participants: Participants) {
    this.#participants = participants;
  }

  subscribersOf(involvedBanks: readonly string[], eventClass: EventClassName): Subscriber[] {
    const subscribers: Subscriber[] = [];
    for (const memberId of new Set(involvedBanks)) {
      const subscriber = this.subscriber(memberId, eventClass);
      if (subscriber) subscribers.push(subscriber);
    }
    return subscribers;
  }

  subscriber(memberId: string, eventClass?: EventClassName): Subscriber | undefined {
    const participant = this.#participants.get(memberId);
    if (!participant?.eventsUrl) return undefined;
    if (eventClass !== undefined && !participant.eventClasses.includes(eventClass)) return undefined;
    return { memberId, endpoint: eventsEndpoint(participant.eventsUrl) };
  }

  /** Every bank that receives events of some class. */
  receivers(): Participant[] {
    return [...this.#participants.values()].filter(
      (participant) => participant.eventsUrl !== undefined && participant.eventClasses.length > 0,
    );
  }
}

export function eventsEndpoint(eventsUrl: string): string {
  return `${eventsUrl.replace(/\/+$/, '')}/events`;
}

/**
 * The banks of recently seen transactions (UETR -> the agents' member ids), learnt from TRANSACTION_STATE
 * postings, for the ESM_STATE posting that follows each of them. Bounded: the least recently used is
 * forgotten first; a miss is answered from the transaction snapshot.
 */
export class TransactionBanks {
  readonly #max: number;
  readonly #banks = new Map<string, readonly string[]>();

  constructor(max: number) {
    this.#max = max;
  }

  get(uetr: string): readonly string[] | undefined {
    const banks = this.#banks.get(uetr);
    if (banks !== undefined) {
      this.#banks.delete(uetr);
      this.#banks.set(uetr, banks);
    }
    return banks;
  }

  set(uetr: string, banks: readonly string[]): void {
    this.#banks.delete(uetr);
    this.#banks.set(uetr, banks);
    if (this.#banks.size > this.#max) {
      const oldest = this.#banks.keys().next();
      if (!oldest.done) this.#banks.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#banks.size;
  }
}
