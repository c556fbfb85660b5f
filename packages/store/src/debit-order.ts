import { StoreError } from './errors.ts';

/** What decides a queued debit's place in its window. */
export interface DebitOrder {
  /** ISO date `YYYY-MM-DD`. */
  requestedCollectionDate: string;
  creditorAgentMemberId: string;
  enqueuedAt: Date;
  uetr: string;
}

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const memberIdBytes = 16;
const timeDigits = 15;

/**
 * The debit queue's order as one string whose plain byte order is the dispatch order:
 * requested collection date, then creditor agent (member id by its UTF-8 bytes), then the time the debit
 * was queued (to the millisecond), then UETR as the final tie-break. Every part has a fixed width and
 * uses only `[0-9a-f]` and fixed separators, so the order is the same under byte comparison (MongoDB) and
 * under a locale collation (PostgreSQL behind the local server).
 *
 * Example: `20261123|41425341000000000000000000000000|001795420800000|4f1c...`
 */
export function debitOrderKey(order: DebitOrder): string {
  return [
    compactDate(order.requestedCollectionDate, 'requestedCollectionDate'),
    encodeMemberId(order.creditorAgentMemberId),
    encodeTime(order.enqueuedAt),
    normaliseUetr(order.uetr),
  ].join('|');
}

export function assertIsoDate(value: string, field: string): void {
  compactDate(value, field);
}

function compactDate(value: string, field: string): string {
  const match = isoDate.exec(value);
  if (match === null) throw new StoreError('invalid-input', `${field} must be YYYY-MM-DD, got '${value}'`);
  const [, year, month, day] = match;
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw new StoreError('invalid-input', `${field} is not a calendar date: '${value}'`);
  }
  return `${year}${month}${day}`;
}

function encodeMemberId(memberId: string): string {
  const bytes = Buffer.from(memberId, 'utf8');
  if (bytes.length === 0 || bytes.length > memberIdBytes || bytes.includes(0)) {
    throw new StoreError(
      'invalid-input',
      `creditorAgentMemberId must be 1-${memberIdBytes} bytes without NUL, got '${memberId}'`,
    );
  }
  return bytes.toString('hex').padEnd(memberIdBytes * 2, '0');
}

function encodeTime(at: Date): string {
  const millis = at.getTime();
  if (!Number.isSafeInteger(millis) || millis < 0) {
    throw new StoreError('invalid-input', 'enqueuedAt must be a valid date after 1970');
  }
  return millis.toString().padStart(timeDigits, '0');
}

function normaliseUetr(uetr: string): string {
  const value = uetr.toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) {
    throw new StoreError('invalid-input', `uetr must be a UUID, got '${uetr}'`);
  }
  return value;
}
