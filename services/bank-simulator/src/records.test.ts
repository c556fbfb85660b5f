import { readFileSync } from 'node:fs';
import { type EventPosting, type PaymentStatusReport, parseJsonExact, toJson, validate } from '@rp/contracts';
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
  ...withText({ ...example, stageVersion } as EventPosting),
});

/** A posting with the JSON it would have come in as. */
const withText = (posting: EventPosting) => ({ posting, text: toJson('EventPosting', posting) });

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

  it('keeps a posting as the text it came in as and reads it back as it was decoded, counted without decoding', () => {
    const records = new SimulatorRecords();
    records.addPosting(posting('a', 4));
    records.addPosting(posting('b', 2, 'b-2', '210000'));
    records.addPosting(posting('a', 5));
    const [first] = records.postings({ uetr: 'a' });
    expect(first?.posting).toEqual({ ...example, stageVersion: 4 });
    expect(first).not.toHaveProperty('text');
    expect(records.postings({ memberId: '210000' }).map((entry) => entry.posting)).toEqual([
      { ...example, stageVersion: 2 },
    ]);
    expect(records.postingCount()).toBe(3);
    expect(records.postingCount({ uetr: 'a' })).toBe(2);
    expect(records.postingCount({ uetr: 'a', memberId: '210000' })).toBe(0);
    expect(records.postingCount({ memberId: '210000' })).toBe(1);
    // What a reader does with its copy does not reach the log.
    records.postings({ uetr: 'a' }).pop();
    expect(records.postingCount({ uetr: 'a' })).toBe(2);
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

describe('SimulatorRecords messages', () => {
  const report = validate(
    'PaymentStatusReport',
    parseJsonExact(
      readFileSync(new URL('../../../avro/examples/PaymentStatusReport.acsc.json', import.meta.url), 'utf8'),
    ),
  );
  if (!report.ok) throw new Error(JSON.stringify(report.errors));
  const body = report.value as PaymentStatusReport;
  const text = toJson('PaymentStatusReport', body);
  const message = (uetr: string, messageIdentification: string, pending = false) => ({
    kind: 'inboundDirectDebitResponse' as const,
    memberId: '250655',
    uetr,
    messageIdentification,
    at: new Date(0).toISOString(),
    text,
    ...(pending ? { delivery: { attempts: 0, lastStatus: null, state: 'pending' as const } } : {}),
  });
  const identifications = (records: SimulatorRecords, filter: { uetr?: string } = {}) =>
    records.messages(filter).map((entry) => entry.messageIdentification);

  it('keeps the latest messageLogSize messages, by transaction too; a forgotten one is new again', () => {
    const records = new SimulatorRecords({ messageLogSize: 3 });
    for (const [uetr, id] of [
      ['a', 'M1'],
      ['b', 'M2'],
      ['a', 'M3'],
      ['b', 'M4'],
    ] as const) {
      expect(records.addMessage(message(uetr, id)).created).toBe(true);
    }
    expect(identifications(records)).toEqual(['M2', 'M3', 'M4']);
    expect(identifications(records, { uetr: 'a' })).toEqual(['M3']);
    expect(identifications(records, { uetr: 'b' })).toEqual(['M2', 'M4']);
    expect(records.stats().messagesKept).toBe(3);
    // A kept message arriving again is a duplicate of it; a forgotten one is taken for a new one.
    const again = records.addMessage(message('b', 'M2'));
    expect(again).toMatchObject({ created: false, message: { duplicates: 1 } });
    expect(records.addMessage(message('a', 'M1')).created).toBe(true);
    expect(identifications(records)).toEqual(['M3', 'M4', 'M1']);
  });

  it('keeps a message as its text and reads its body back as it was sent, its delivery the live one', () => {
    const records = new SimulatorRecords();
    const { message: stored } = records.addMessage(message('a', 'R1', true));
    expect(stored).not.toHaveProperty('body');
    const [read] = records.messages({ uetr: 'a' });
    expect(read?.body).toEqual(body);
    expect(read).not.toHaveProperty('text');
    records.responseSettled(stored.delivery as NonNullable<typeof stored.delivery>, 'acknowledged');
    expect(records.messages({ uetr: 'a' })[0]?.delivery?.state).toBe('done');
  });

  it('counts the reports pending whether or not they are still kept, until they settle or a reset', () => {
    const records = new SimulatorRecords({ messageLogSize: 2 });
    const first = records.addMessage(message('a', 'R1', true)).message;
    const second = records.addMessage(message('b', 'R2', true)).message;
    records.addMessage(message('c', 'R3', true));
    records.addMessage(message('d', 'R4'));
    expect(identifications(records)).toEqual(['R3', 'R4']);
    expect(records.stats().responses.pending).toBe(3);
    records.responseSettled(first.delivery as NonNullable<typeof first.delivery>, 'acknowledged');
    records.responseSettled(second.delivery as NonNullable<typeof second.delivery>, 'failed');
    expect(first.delivery?.state).toBe('done');
    expect(second.delivery?.state).toBe('failed');
    expect(records.stats().responses).toMatchObject({ pending: 1, acknowledged: 1, failed: 1 });
    records.reset();
    expect(records.stats()).toMatchObject({ messagesKept: 0, responses: { pending: 0 } });
    // A report that settles after the reset counts from there; pending never goes below nothing.
    records.responseSettled(first.delivery as NonNullable<typeof first.delivery>, 'acknowledged');
    expect(records.stats().responses).toMatchObject({ pending: 0, acknowledged: 1 });
  });

  it('forgets the oldest over a long run without keeping their slots, their transactions or their ids', () => {
    const records = new SimulatorRecords({ messageLogSize: 10 });
    for (let index = 1; index <= 5_000; index += 1) records.addMessage(message(`t${index}`, `M${index}`));
    expect(records.messages().map((entry) => entry.seq)).toEqual(
      Array.from({ length: 10 }, (_, index) => 4_991 + index),
    );
    expect(records.messages({ uetr: 't4990' })).toEqual([]);
    expect(records.addMessage(message('t1', 'M1')).created).toBe(true);
  });
});
