import type { ExchangedMessage, ReceivedPosting } from '@rp/bank-simulator';
import { describe, expect, it } from 'vitest';
import { booksOf, completedPosting, journeys, type TransactionKind } from './faults.ts';

// The fault suite's books, on hand-made postings and messages: they must pass a clean journey of each
// kind and name each problem, or the fault suite's zeros prove nothing.

const uetr = '0f6a3c2e-8d41-4b7a-9c55-2e1f0a9b8c7d';

function postings(
  types: readonly string[],
  ids: (type: string, index: number) => string = (type) => `EVT-${type}`,
) {
  return types.map(
    (type, index): ReceivedPosting => ({
      seq: index,
      memberId: '250655',
      uetr,
      eventId: ids(type, index),
      receivedAt: new Date(Date.UTC(2026, 10, 25, 8, 0, index)).toISOString(),
      signatureVerified: true,
      headers: {},
      posting: {
        name: `TRANSACTION_STATE_${type}`,
        class: 'TRANSACTION_STATE',
        type,
      } as ReceivedPosting['posting'],
    }),
  );
}

function message(kind: string, messageIdentification: string, duplicates = 0): ExchangedMessage {
  return {
    seq: 0,
    kind,
    memberId: '250655',
    uetr,
    messageIdentification,
    at: '2026-11-25T08:00:00.000Z',
    duplicates,
    body: {},
  } as unknown as ExchangedMessage;
}

const kinds: TransactionKind[] = ['debit', 'credit'];

describe('the fault suite books', () => {
  it.each(kinds)('passes a whole %s journey, delivered once', (kind) => {
    const books = booksOf(uetr, postings(journeys[kind]), [message('delivered', 'MSG1')], kind);
    expect(books).toEqual({
      uetr,
      kind,
      completed: true,
      duplicatedEffects: [],
      outOfOrder: false,
      redeliveries: 0,
      reached: journeys[kind].at(-1),
      messages: ['delivered'],
    });
  });

  it('names each kind by its own last stage', () => {
    expect(completedPosting('debit')).toBe('TRANSACTION_STATE_DEBIT_COMPLETED');
    expect(completedPosting('credit')).toBe('TRANSACTION_STATE_CREDIT_AUTH_RESPONSE_ACCEPTED');
    // A credit is not complete at a debit's last stage, nor a debit at a credit's.
    expect(booksOf(uetr, postings(journeys.debit), [], 'credit').completed).toBe(false);
    expect(booksOf(uetr, postings(journeys.credit), [], 'debit').completed).toBe(false);
  });

  it('counts a credit stopped short of its final answer as not complete (lost if the round ends so)', () => {
    const books = booksOf(uetr, postings(journeys.credit.slice(0, 3)), [], 'credit');
    expect(books.completed).toBe(false);
    expect(books.outOfOrder).toBe(false);
    // Where it stopped, for the report.
    expect(books.reached).toBe(journeys.credit[2]);
  });

  it('finds a credit posted out of its journey order', () => {
    const [received, accepted, pending, delivered, answered] = journeys.credit as string[];
    const shuffled = [received, accepted, delivered, pending, answered] as string[];
    expect(booksOf(uetr, postings(shuffled), [], 'credit').outOfOrder).toBe(true);
  });

  it('allows a posting redelivered under its own event id, not the same stage under two', () => {
    const again = [...journeys.credit, journeys.credit[2] as string];
    expect(booksOf(uetr, postings(again), [], 'credit').duplicatedEffects).toEqual([]);
    const twice = booksOf(
      uetr,
      postings(again, (type, index) => `EVT-${type}-${index}`),
      [],
      'credit',
    );
    expect(twice.duplicatedEffects).toEqual(['CREDIT_AUTH_DELIVERY_PENDING posted under 2 event ids']);
  });

  it('allows a message the bank recognises (its id again), not one message sent under two ids', () => {
    const kind = 'inboundCreditTransferAuthorization';
    const redelivered = booksOf(uetr, postings(journeys.credit), [message(kind, 'MSG1', 2)], 'credit');
    expect(redelivered).toMatchObject({ duplicatedEffects: [], redeliveries: 2 });
    const twice = booksOf(
      uetr,
      postings(journeys.credit),
      [message(kind, 'MSG1'), message(kind, 'MSG2')],
      'credit',
    );
    expect(twice.duplicatedEffects).toEqual([`${kind} sent under 2 message ids`]);
  });
});
