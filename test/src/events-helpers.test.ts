import type { ReceivedPosting } from '@rp/bank-simulator';
import {
  completedDebitJourney,
  eventsApiVersion,
  type KnownEventType,
  transactionEventTypes,
} from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { checkCompletedDebit, reachedFinalPosting } from './events-helpers.ts';

// The end-to-end test's check of one transaction's postings, on hand-made postings: it must pass a
// correct journey and name every kind of fault, or the end-to-end test proves nothing.

const uetr = '7d3c1f9e-5a8d-4c2b-9e7f-1a2b3c4d5e6f';

function stage(type: KnownEventType, stageVersion: number, at: string): ReceivedPosting[] {
  const esm = transactionEventTypes[type].esm;
  const id = `EVT${String(stageVersion).padStart(32, '0')}`;
  const base = { memberId: '250655', uetr, receivedAt: at, signatureVerified: true, headers: {}, seq: 0 };
  return [
    {
      ...base,
      eventId: id,
      posting: {
        name: `TRANSACTION_STATE_${type}`,
        apiVersion: eventsApiVersion,
        class: 'TRANSACTION_STATE',
        type,
        stageVersion,
        tranInfo: { tranUetr: uetr },
        messageInfo: { messageIdentification: id, creationDateTime: at },
        creationDateTime: at,
      },
    },
    {
      ...base,
      eventId: `ESM${String(stageVersion).padStart(32, '0')}`,
      posting: {
        apiVersion: eventsApiVersion,
        class: 'ESM_STATE',
        creationDateTime: at,
        identifiers: { uetr },
        state: esm,
      },
    },
  ] as unknown as ReceivedPosting[];
}

const at = (second: number) => `2026-11-23T10:00:${String(second).padStart(2, '0')}.000Z`;
const journey = (times = completedDebitJourney.map((_, index) => at(index))) =>
  completedDebitJourney.flatMap((type, index) => stage(type, index + 1, times[index] as string));

describe('checkCompletedDebit', () => {
  it('passes a whole journey in order and sees its end', () => {
    const postings = journey();
    expect(checkCompletedDebit(uetr, postings)).toMatchObject({ problems: [] });
    expect(reachedFinalPosting(postings)).toBe(true);
    expect(reachedFinalPosting(postings.slice(0, -1))).toBe(false);
  });

  it('names a missing stage, a swapped pair, an unsigned posting and a wrong ESM state', () => {
    const postings = journey();
    expect(checkCompletedDebit(uetr, [...postings.slice(0, 12), ...postings.slice(14)]).problems).toEqual([
      expect.stringContaining('TRANSACTION_STATE postings in arrival order'),
      expect.stringContaining('stageVersions in arrival order [1,2,3,4,5,6,8,9]'),
    ]);
    const swapped = [
      ...postings.slice(0, 2),
      ...postings.slice(4, 6),
      ...postings.slice(2, 4),
      ...postings.slice(6),
    ];
    expect(checkCompletedDebit(uetr, swapped).problems.join()).toContain(
      'stageVersions in arrival order [1,3,2',
    );
    const unsigned = postings.map((posting, index) =>
      index === 3 ? { ...posting, signatureVerified: false } : posting,
    );
    expect(checkCompletedDebit(uetr, unsigned).problems).toEqual([
      expect.stringContaining('was not signature-verified'),
    ]);
    const wrongEsm = postings.map((posting, index) =>
      index === 1
        ? { ...posting, posting: { ...posting.posting, state: transactionEventTypes.DEBIT_COMPLETED.esm } }
        : posting,
    ) as ReceivedPosting[];
    expect(checkCompletedDebit(uetr, wrongEsm).problems).toEqual([
      expect.stringContaining('ESM_STATE after DEBIT_REQUEST_RECEIVED: SENT/ACTIONED'),
    ]);
  });

  it("names a missing ESM_STATE posting, also one alike the one before, and one that is not its stage's", () => {
    // DEBIT_DELIVERED and DEBIT_RESPONSE_ACCEPTED map to the same ESM states; at one instant their
    // ESM_STATE postings are alike in every member, and each stage still has its own.
    const delivered = completedDebitJourney.indexOf('DEBIT_DELIVERED');
    const times = completedDebitJourney.map((_, index) => at(index === delivered + 1 ? delivered : index));
    const sameInstant = journey(times);
    const merged = [...sameInstant.slice(0, 2 * delivered + 3), ...sameInstant.slice(2 * delivered + 4)];
    expect(checkCompletedDebit(uetr, merged).problems).toEqual([
      expect.stringContaining('postings in arrival order'),
    ]);
    const lostFirst = [...journey().slice(0, 1), ...journey().slice(2)];
    expect(checkCompletedDebit(uetr, lostFirst).problems).toEqual([
      expect.stringContaining('postings in arrival order'),
    ]);

    // An ESM_STATE posting under another stage's id.
    const swappedIds = journey().map((posting, index) =>
      index === 1 ? { ...posting, eventId: `ESM${'f'.repeat(32)}` } : posting,
    );
    expect(checkCompletedDebit(uetr, swappedIds).problems).toEqual([
      expect.stringContaining('does not pair with its stage'),
    ]);
  });
});
