import { readFileSync } from 'node:fs';
import { type EventPosting, parseJsonExact, validate } from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { type ReceivedPosting, SimulatorRecords } from './records.ts';

const file = new URL('../../../avro/examples/TransactionStatePosting.debit-queued.json', import.meta.url);
const parsed = validate('EventPosting', parseJsonExact(readFileSync(file, 'utf8')));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const example = parsed.value as EventPosting;

const posting = (
  uetr: string,
  stageVersion: number,
  eventId = `${uetr}-${stageVersion}`,
  memberId = '250655',
) => ({
  memberId,
  uetr,
  eventId,
  receivedAt: new Date(0).toISOString(),
  signatureVerified: false,
  headers: {},
  posting: { ...example, stageVersion } as EventPosting,
});

const ids = (postings: readonly ReceivedPosting[]) => postings.map((entry) => entry.eventId);

describe('SimulatorRecords postings', () => {
  it('keeps the latest postingLogSize postings, each transaction’s in order, and counts every one', () => {
    const records = new SimulatorRecords({ postingLogSize: 3 });
    for (const [uetr, stage] of [
      ['a', 1],
      ['a', 2],
      ['b', 1],
      ['a', 3],
      ['b', 2],
    ] as const) {
      expect(records.addPosting(posting(uetr, stage))).toBe('stored');
    }
    expect(ids(records.postings())).toEqual(['b-1', 'a-3', 'b-2']);
    expect(ids(records.postings({ uetr: 'a' }))).toEqual(['a-3']);
    expect(ids(records.postings({ uetr: 'b' }))).toEqual(['b-1', 'b-2']);
    expect(records.postings().map((entry) => entry.seq)).toEqual([3, 4, 5]);
    const stats = records.stats();
    expect(stats.postingsKept).toBe(3);
    expect(Object.values(stats.postingsByName)).toEqual([5]);
    // A kept posting is still a duplicate; a forgotten one is not known any more.
    expect(records.addPosting(posting('a', 3))).toBe('duplicate');
    expect(records.addPosting(posting('a', 1, 'a-1'))).toBe('out-of-order');
  });

  it('forgets the oldest over a long run without keeping their slots or their transactions', () => {
    const records = new SimulatorRecords({ postingLogSize: 10 });
    for (let index = 1; index <= 5_000; index += 1) {
      records.addPosting(posting(`t${Math.ceil(index / 2)}`, 2 - (index % 2)));
    }
    const kept = records.postings();
    expect(kept.map((entry) => entry.seq)).toEqual(Array.from({ length: 10 }, (_, index) => 4_991 + index));
    expect(ids(records.postings({ uetr: 't2496' }))).toEqual(['t2496-1', 't2496-2']);
    expect(records.postings({ uetr: 't2495' })).toEqual([]);
    expect(records.stats()).toMatchObject({ postingsKept: 10, outOfOrder: 0 });
  });

  it('counts a transaction state posting below or at a stage its bank already had, per bank', () => {
    const records = new SimulatorRecords();
    expect(records.addPosting(posting('a', 5))).toBe('stored');
    expect(records.addPosting(posting('a', 7))).toBe('stored');
    expect(records.addPosting(posting('a', 6))).toBe('out-of-order');
    expect(records.addPosting(posting('a', 7, 'a-7-again'))).toBe('out-of-order');
    // A duplicate is not checked again; another bank's postings of the transaction have their own order.
    expect(records.addPosting(posting('a', 7))).toBe('duplicate');
    expect(records.addPosting(posting('a', 6, 'a-6-210000', '210000'))).toBe('stored');
    expect(records.stats().outOfOrder).toBe(2);
    // Out of order is stored all the same, in arrival order.
    expect(ids(records.postings({ uetr: 'a' }))).toEqual(['a-5', 'a-7', 'a-6', 'a-7-again', 'a-6-210000']);
    records.reset();
    expect(records.stats()).toMatchObject({ outOfOrder: 0, postingsKept: 0 });
    expect(records.addPosting(posting('a', 6))).toBe('stored');
  });
});
