import { createHash } from 'node:crypto';
import { type EsmStatePosting, type EventPosting, encodeAvro, toJson } from '@rp/contracts';
import { postingIdHeader } from '@rp/pipeline';

export type EventClassName = EventPosting['class'];

/** What the publisher needs of one posting read from rp.events.v1. */
export interface OutgoingPosting {
  /** webhook-id: stable across attempts, redeliveries of the record and replays. */
  readonly eventId: string;
  readonly uetr: string;
  readonly eventClass: EventClassName;
  /** `TRANSACTION_STATE_<type>` or `ESM_STATE_<transactionState>`: for logs, metrics and the delivery log. */
  readonly eventName: string;
  /** TRANSACTION_STATE only: the transaction's sequence number. */
  readonly stageVersion?: number;
  /** The JSON body, exact amounts: the bytes that are signed, stored and resent unchanged. */
  readonly body: string;
  /**
   * TRANSACTION_STATE only: the member ids of the debtor's and the creditor's agents, once each (an on-us
   * debit has one bank). An ESM_STATE posting does not name the agents; its transaction's banks are
   * known from the TRANSACTION_STATE posting that precedes it, or from the snapshot.
   */
  readonly involvedBanks?: readonly string[];
}

const esmPostingId = /^ESM[0-9a-f]{32}$/;

/**
 * The event id of an ESM_STATE posting without an `rp-posting-id` header (the tracker always writes
 * one: `ESM` and the hex digits of the state change's id). The class carries no message identification,
 * so the id is derived from the posting itself: `ESM` and 32 hex digits of the SHA-256 of its Avro
 * encoding, in the schema's field order, so the same posting always gets the same id. Two such postings
 * of one transaction identical in every member share the id.
 */
export function esmEventId(posting: EsmStatePosting): string {
  return `ESM${createHash('sha256').update(encodeAvro('EsmStatePosting', posting)).digest('hex').slice(0, 32)}`;
}

/**
 * What the publisher needs of a record of rp.events.v1. `headers` are the record's: an ESM_STATE
 * posting's id is its `rp-posting-id` header when the header holds one.
 */
export function describePosting(
  posting: EventPosting,
  key: string,
  headers: Readonly<Record<string, string>> = {},
): OutgoingPosting {
  if (posting.class === 'TRANSACTION_STATE') {
    const body = toJson('TransactionStatePosting', posting);
    const payload = posting.payload;
    const involved = [payload.debtorAgent.memberId, payload.creditorAgent.memberId].filter(
      (memberId): memberId is string => typeof memberId === 'string' && memberId.length > 0,
    );
    return {
      eventId: posting.messageInfo.messageIdentification,
      uetr: key || posting.tranInfo.tranUetr,
      eventClass: 'TRANSACTION_STATE',
      eventName: posting.name,
      stageVersion: posting.stageVersion,
      body,
      involvedBanks: [...new Set(involved)],
    };
  }
  const body = toJson('EsmStatePosting', posting);
  return {
    eventId: esmPostingId.test(headers[postingIdHeader] ?? '')
      ? (headers[postingIdHeader] as string)
      : esmEventId(posting),
    uetr: key || posting.identifiers.uetr,
    eventClass: 'ESM_STATE',
    eventName: `ESM_STATE_${posting.state.transactionState}`,
    body,
  };
}

/** The delivery log entry of one posting to one bank (the store's log is keyed by one string). */
export function deliveryId(eventId: string, memberId: string): string {
  return `${eventId}:${memberId}`;
}

/** The parking lane of one transaction at one bank. */
export function laneId(memberId: string, uetr: string): string {
  return `${memberId}:${uetr}`;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An event id as an operator may type it: the posting's id (`EVT…`, `ESM…`), or the state change's UUID,
 * which the tracker writes as `EVT` and its 32 hex digits.
 */
export function normaliseEventId(text: string): string {
  return uuidPattern.test(text) ? `EVT${text.replace(/-/g, '').toLowerCase()}` : text;
}
