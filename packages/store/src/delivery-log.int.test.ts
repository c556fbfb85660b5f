import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { type DeliveryBatchDocument, entriesOfBatch } from './delivery-batches.ts';

describe('DeliveryLogRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('delivery-log', { deliveryAttemptsKept: 2 });
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('logs attempts and the outcome per event, bounded, and lists a transaction oldest first', async () => {
    const uetr = randomUUID();
    const posting = (eventId: string, eventType: string) => ({
      eventId,
      uetr,
      memberId: '210000',
      eventType,
    });
    const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 9, 0, second));
    const log = context.store.deliveryLog;

    await log.recordAttempt(
      posting('evt-2', 'DEBIT_REQUEST_ACCEPTED'),
      { at: at(10), httpStatus: 202, latencyMs: 8 },
      'delivered',
    );
    await log.recordAttempt(
      posting('evt-1', 'DEBIT_REQUEST_RECEIVED'),
      { at: at(1), httpStatus: null, latencyMs: 5000, error: 'timeout' },
      'pending',
    );
    await log.recordAttempt(
      posting('evt-1', 'DEBIT_REQUEST_RECEIVED'),
      { at: at(3), httpStatus: 503, latencyMs: 12 },
      'pending',
    );
    await log.recordAttempt(
      posting('evt-1', 'DEBIT_REQUEST_RECEIVED'),
      { at: at(4), httpStatus: 429, latencyMs: 3 },
      'pending',
    );
    await log.recordAttempt(
      posting('evt-1', 'DEBIT_REQUEST_RECEIVED'),
      { at: at(5), httpStatus: 500, latencyMs: 4 },
      'pending',
    );
    await log.recordAttempt(
      posting('evt-1', 'DEBIT_REQUEST_RECEIVED'),
      { at: at(7), httpStatus: 202, latencyMs: 9 },
      'delivered',
    );
    await log.recordAttempt(
      posting('evt-other', 'X'),
      { at: at(2), httpStatus: 202, latencyMs: 1 },
      'delivered',
    );
    await context.raw
      .db(context.databaseName)
      .collection('event_delivery_log')
      .updateOne({ _id: 'evt-other' as never }, { $set: { uetr: randomUUID() } });

    const first = await log.get('evt-1');
    expect(first).toMatchObject({
      eventId: 'evt-1',
      uetr,
      outcome: 'delivered',
      attemptCount: 5,
      createdAt: at(1),
      updatedAt: at(7),
      completedAt: at(7),
    });
    expect(first?.attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 202]);
    const stored = await context.raw
      .db(context.databaseName)
      .collection('event_delivery_log')
      .findOne({ _id: 'evt-1' as never });
    expect(stored?.attempts.length).toBeLessThanOrEqual(4);

    const listed = await log.listByUetr(uetr);
    expect(listed.map((entry) => entry.eventId)).toEqual(['evt-1', 'evt-2']);

    expect(await log.recordOutcome('evt-1', 'expired', at(20))).toBe(true);
    expect(await log.recordOutcome('evt-missing', 'expired', at(20))).toBe(false);
    expect((await log.get('evt-1'))?.outcome).toBe('expired');
  });

  it('records many final first attempts as one batch, in one insert, read with an entry logged before', async () => {
    const uetr = randomUUID();
    const at = new Date(Date.UTC(2026, 10, 23, 9, 0, 0));
    const later = new Date(at.getTime() + 1_000);
    const log = context.store.deliveryLog;
    const posting = (index: number) => ({
      eventId: `evt-many-${index}`,
      uetr,
      memberId: '210000',
      eventType: 'DEBIT_REQUEST_RECEIVED',
    });
    await log.recordAttempt(posting(3), { at, httpStatus: 503, latencyMs: 4 }, 'pending');
    context.resetCommands();
    await log.recordFirstAttempts([
      ...Array.from({ length: 10 }, (_, index) => ({
        posting: posting(index),
        attempt: { at, httpStatus: 202, latencyMs: 7 },
        outcome: 'delivered' as const,
      })),
      // The same posting twice in one call: the second is appended after the first.
      {
        posting: posting(5),
        attempt: { at: later, httpStatus: 409, latencyMs: 2, error: 'HTTP 409' },
        outcome: 'failed',
      },
    ]);
    // One insert of one batch for all eleven; the entry logged before is not written to.
    expect(context.commandCount('insert')).toBe(1);
    expect(context.commandCount('update')).toBe(0);
    const batches = await context.raw
      .db(context.databaseName)
      .collection<DeliveryBatchDocument>('event_delivery_batches')
      .find({ uetrs: uetr })
      .toArray();
    expect(batches.map((batch) => entriesOfBatch(batch).length)).toEqual([11]);
    expect(batches[0]?.uetrs).toEqual([uetr]);
    const entries = await log.listByUetr(uetr, 20);
    expect(entries.map((entry) => entry.eventId).sort()).toEqual(
      Array.from({ length: 10 }, (_, index) => `evt-many-${index}`).sort(),
    );
    for (const entry of entries) {
      if (entry.eventId === 'evt-many-5') {
        expect(entry.outcome).toBe('failed');
        expect(entry.attemptCount).toBe(2);
        expect(entry.attempts.map((attempt) => attempt.httpStatus)).toEqual([202, 409]);
        continue;
      }
      expect(entry.outcome).toBe('delivered');
      expect(entry.completedAt).toEqual(at);
      expect(entry.attemptCount).toBe(entry.eventId === 'evt-many-3' ? 2 : 1);
      expect(entry.attempts.at(-1)).toEqual({ at, httpStatus: 202, latencyMs: 7 });
    }
  });

  it('adds nothing twice when a batch is recorded again after a write that failed part way', async () => {
    const uetr = randomUUID();
    const at = new Date(Date.UTC(2026, 10, 23, 10, 0, 0));
    const log = context.store.deliveryLog;
    const record = (index: number, attempt = { at, httpStatus: 202, latencyMs: 5 + index }) => ({
      posting: { eventId: `evt-again-${index}`, uetr, memberId: '210000', eventType: 'DEBIT_QUEUED' },
      attempt,
      outcome: 'delivered' as const,
    });
    const batch = Array.from({ length: 6 }, (_, index) => record(index));
    // The write that "failed": half of the batch made it.
    await log.recordFirstAttempts(batch.slice(0, 3));
    // The whole batch again, and a real second attempt of one posting (a redelivery, later).
    const redelivered = record(1, { at: new Date(at.getTime() + 60_000), httpStatus: 202, latencyMs: 3 });
    await log.recordFirstAttempts([...batch, redelivered]);
    const entries = await log.listByUetr(uetr, 20);
    expect(entries).toHaveLength(6);
    for (const entry of entries) {
      const index = Number(entry.eventId.split('-').at(-1));
      expect(entry.attemptCount).toBe(index === 1 ? 2 : 1);
      expect(entry.attempts.map((attempt) => attempt.latencyMs)).toEqual(index === 1 ? [6, 3] : [5 + index]);
    }
  });

  it("keeps where each posting came from and lists a bank's postings to replay, by transaction or by time", async () => {
    const uetr = randomUUID();
    const other = randomUUID();
    const memberId = `21${randomUUID().slice(0, 4)}`;
    const produced = (second: number) => new Date(Date.UTC(2026, 10, 24, 8, 0, second));
    const log = context.store.deliveryLog;
    const posting = (postingId: string, ofUetr: string, offset: number, second: number, bank = memberId) => ({
      eventId: `${postingId}:${bank}`,
      uetr: ofUetr,
      memberId: bank,
      eventType: 'TRANSACTION_STATE_DEBIT_QUEUED',
      source: {
        postingId,
        eventClass: 'TRANSACTION_STATE',
        stageVersion: offset,
        topic: 'rp.events.v1',
        partition: 3,
        offset,
        producedAt: produced(second),
      },
    });
    const attempt = { at: produced(30), httpStatus: 202, latencyMs: 4 };
    // Offsets out of time order on purpose: one transaction replays in topic order, a range in time order.
    await log.recordFirstAttempts([
      { posting: posting('p-b', uetr, 12, 2), attempt, outcome: 'delivered' },
      { posting: posting('p-a', uetr, 11, 5), attempt, outcome: 'delivered' },
      { posting: posting('p-c', other, 13, 3), attempt, outcome: 'delivered' },
      { posting: posting('p-x', uetr, 14, 4, `${memberId}9`), attempt, outcome: 'delivered' },
    ]);
    // Created by a retry's upsert, and one entry without a source (given up before any attempt).
    await log.recordAttempt(posting('p-d', uetr, 15, 6), attempt, 'delivered');
    await log.recordAttempt(
      { eventId: `p-e:${memberId}`, uetr, memberId, eventType: 'X' },
      { at: produced(31), httpStatus: null, latencyMs: 0, error: 'gone' },
      'failed',
    );
    expect((await log.get(`p-a:${memberId}`))?.source).toEqual(posting('p-a', uetr, 11, 5).source);

    const ofTransaction = await log.listForReplay(memberId, { uetr }, 10);
    expect(ofTransaction.map((entry) => entry.source?.postingId)).toEqual(['p-a', 'p-b', 'p-d']);
    expect((await log.listForReplay(memberId, { uetr }, 2)).length).toBe(2);
    const inRange = await log.listForReplay(memberId, { from: produced(2), to: produced(6) }, 10);
    expect(inRange.map((entry) => entry.source?.postingId)).toEqual(['p-b', 'p-c', 'p-a']);
    expect(
      (await log.listForReplay(memberId, { from: produced(2), to: produced(6) }, 1)).map(
        (entry) => entry.source?.postingId,
      ),
    ).toEqual(['p-b']);
    expect(await log.listForReplay(`${memberId}8`, { uetr }, 10)).toEqual([]);
  });

  it("records many attempts side by side, one posting's in order, trimming a full list", async () => {
    const uetr = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, second));
    const log = context.store.deliveryLog;
    const posting = (index: number) => ({
      eventId: `evt-parked-${index}`,
      uetr,
      memberId: '210000',
      eventType: 'DEBIT_REQUEST_RECEIVED',
    });
    // Entry 0 was attempted once; entry 1 has a full list (2 × 2 kept); entry 2 was never attempted.
    await log.recordAttempt(posting(0), { at: at(0), httpStatus: 503, latencyMs: 3 }, 'pending');
    for (let second = 0; second < 4; second += 1) {
      await log.recordAttempt(posting(1), { at: at(second), httpStatus: 500, latencyMs: 3 }, 'pending');
    }
    context.resetCommands();
    await log.recordAttempts([
      { posting: posting(0), attempt: { at: at(10), httpStatus: 202, latencyMs: 5 }, outcome: 'delivered' },
      { posting: posting(1), attempt: { at: at(11), httpStatus: 202, latencyMs: 5 }, outcome: 'delivered' },
      { posting: posting(2), attempt: { at: at(12), httpStatus: 202, latencyMs: 5 }, outcome: 'delivered' },
      // The same posting again: appended after the first, by its own write.
      {
        posting: posting(0),
        attempt: { at: at(13), httpStatus: 409, latencyMs: 1, error: 'HTTP 409' },
        outcome: 'failed',
      },
    ]);
    // One upsert each; the full list is read and rewritten.
    expect(context.commandCount('update')).toBe(5);
    expect(context.commandCount('find')).toBe(1);
    const entries = new Map((await log.listByUetr(uetr)).map((entry) => [entry.eventId, entry]));
    expect(entries.get('evt-parked-0')).toMatchObject({
      outcome: 'failed',
      attemptCount: 3,
      createdAt: at(0),
    });
    expect(entries.get('evt-parked-0')?.attempts.map((attempt) => attempt.httpStatus)).toEqual([202, 409]);
    expect(entries.get('evt-parked-1')).toMatchObject({
      outcome: 'delivered',
      attemptCount: 5,
      completedAt: at(11),
      updatedAt: at(11),
    });
    expect(entries.get('evt-parked-1')?.attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 202]);
    expect(entries.get('evt-parked-2')).toMatchObject({
      outcome: 'delivered',
      attemptCount: 1,
      createdAt: at(12),
      memberId: '210000',
      eventType: 'DEBIT_REQUEST_RECEIVED',
    });
  });

  it('refuses a batch with a posting that has no event id before writing any of it', async () => {
    const uetr = randomUUID();
    const at = new Date(Date.UTC(2026, 10, 23, 9, 0, 0));
    const log = context.store.deliveryLog;
    await expect(
      log.recordFirstAttempts([
        {
          posting: { eventId: 'evt-ok', uetr, memberId: '210000', eventType: 'DEBIT_QUEUED' },
          attempt: { at, httpStatus: 202, latencyMs: 1 },
          outcome: 'delivered',
        },
        {
          posting: { eventId: '', uetr, memberId: '210000', eventType: 'DEBIT_QUEUED' },
          attempt: { at, httpStatus: 202, latencyMs: 1 },
          outcome: 'delivered',
        },
      ]),
    ).rejects.toMatchObject({ failure: 'invalid-input' });
    expect(await log.listByUetr(uetr)).toEqual([]);
  });

  it('purges entries and batches whose delivery ended before the cut, in rounds of the limit, and keeps pending ones', async () => {
    const uetr = randomUUID();
    const at = (day: number) => new Date(Date.UTC(2026, 10, day, 9, 0, 0));
    const log = context.store.deliveryLog;
    const posting = (eventId: string) => ({ eventId, uetr, memberId: '210000', eventType: 'DEBIT_QUEUED' });
    // Thirty old postings delivered on the 1st (one batch), one still pending since then, one failed on
    // the 1st, one expired on the 2nd, and one delivered on the 10th (entries of their own).
    await log.recordFirstAttempts(
      Array.from({ length: 30 }, (_, index) => ({
        posting: posting(`old-${index}`),
        attempt: { at: at(1), httpStatus: 202, latencyMs: 1 },
        outcome: 'delivered' as const,
      })),
    );
    await log.recordAttempt(posting('pending'), { at: at(1), httpStatus: 503, latencyMs: 1 }, 'pending');
    await log.recordAttempt(posting('failed'), { at: at(1), httpStatus: 400, latencyMs: 1 }, 'failed');
    await log.recordAttempt(posting('expired'), { at: at(1), httpStatus: 503, latencyMs: 1 }, 'pending');
    expect(await log.recordOutcome('expired', 'expired', at(2))).toBe(true);
    await log.recordAttempt(posting('recent'), { at: at(10), httpStatus: 202, latencyMs: 1 }, 'delivered');

    await log.ensurePurgeIndex();
    await log.ensurePurgeIndex();
    expect(
      (await context.indexNames('event_delivery_log')).filter((index) => index === 'updatedAt_1'),
    ).toHaveLength(1);
    // Before the 2nd: the failed entry, then the batch of thirty; a round takes at most one document.
    expect(await log.purge(at(2), 1)).toEqual({ deleted: 1, full: true });
    expect(await log.purge(at(2), 1)).toEqual({ deleted: 30, full: true });
    expect(await log.purge(at(2), 1)).toEqual({ deleted: 0, full: false });
    const left = (await log.listByUetr(uetr)).map((entry) => entry.eventId).sort();
    expect(left).toEqual(['expired', 'pending', 'recent']);
    expect(
      (await context.indexNames('event_delivery_batches')).filter((index) => index === 'updatedAt_1'),
    ).toHaveLength(1);
    // The expired entry ended on the 2nd: gone with a cut after it; the pending one stays.
    expect(await log.purge(at(3), 20)).toEqual({ deleted: 1, full: false });
    expect((await log.listByUetr(uetr)).map((entry) => entry.eventId).sort()).toEqual(['pending', 'recent']);
  });
  it('splits batches by bank, by span of production time and by the bytes of their keys', async () => {
    const log = context.store.deliveryLog;
    const uetr = randomUUID();
    const produced = (second: number) => new Date(Date.UTC(2026, 10, 24, 8, 0, second));
    const record = (index: number, memberId: string, second: number) => {
      const postingId = `EVT${randomUUID().replace(/-/g, '')}`;
      return {
        posting: {
          eventId: `${postingId}:${memberId}`,
          uetr: index % 3 === 0 ? uetr : randomUUID(),
          memberId,
          eventType: 'TRANSACTION_STATE_DEBIT_QUEUED',
          source: {
            postingId,
            eventClass: 'TRANSACTION_STATE',
            topic: 'rp.events.v1',
            partition: 0,
            offset: index,
            producedAt: produced(second),
          },
        },
        attempt: { at: produced(90), httpStatus: 202, latencyMs: 2 },
        outcome: 'delivered' as const,
      };
    };
    // 130 postings to one bank in the first minute, 3 in the next, 4 to another bank; one not final.
    const records = [
      ...Array.from({ length: 130 }, (_, index) => record(index, '210000', 10)),
      ...Array.from({ length: 3 }, (_, index) => record(200 + index, '210000', 61)),
      ...Array.from({ length: 4 }, (_, index) => record(300 + index, '250655', 10)),
    ];
    const pending = { ...record(400, '210000', 10), outcome: 'pending' as const };
    context.resetCommands();
    await log.recordFirstAttempts([...records, pending]);
    expect(context.commandCount('insert')).toBe(2);
    const batches = await context.raw
      .db(context.databaseName)
      .collection<DeliveryBatchDocument>('event_delivery_batches')
      .find({})
      .toArray();
    const sizes = (memberId: string, minute: number) =>
      batches
        .filter((batch) => batch.memberId === memberId && batch.producedFrom.getUTCMinutes() === minute)
        .map((batch) => entriesOfBatch(batch).length);
    // 42-byte event ids and 36-byte UETRs: at most 48 a batch, so 130 take three.
    expect(sizes('210000', 0).sort((a, b) => a - b)).toEqual([34, 48, 48]);
    expect(sizes('210000', 1)).toEqual([3]);
    expect(sizes('250655', 0)).toEqual([4]);
    for (const batch of batches) {
      const bytes = (keys: string[]) => keys.reduce((sum, key) => sum + Buffer.byteLength(key) + 8, 0);
      expect(bytes(batch.eventIds)).toBeLessThanOrEqual(2_400);
      expect(bytes(batch.uetrs)).toBeLessThanOrEqual(2_400);
      expect(batch.eventIds).toEqual(entriesOfBatch(batch).map((entry) => entry.eventId));
    }
    // The posting not final has an entry of its own; every posting is read back by its event id.
    expect(
      await context.raw
        .db(context.databaseName)
        .collection('event_delivery_log')
        .countDocuments({ _id: pending.posting.eventId as never }),
    ).toBe(1);
    for (const record of [records[0], records[129], records[131], records[133], pending]) {
      expect((await log.get(record?.posting.eventId ?? ''))?.memberId).toBe(record?.posting.memberId);
    }
    expect((await log.listByUetr(uetr, 500)).length).toBe(Math.ceil(130 / 3) + 1 + 1 + 1);
  });

  it('reads a batched posting with the attempts logged after it, and each attempt once', async () => {
    const log = context.store.deliveryLog;
    const uetr = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 9, 0, second));
    const posting = { eventId: 'evt-replayed:210000', uetr, memberId: '210000', eventType: 'DEBIT_QUEUED' };
    const first = {
      posting,
      attempt: { at: at(1), httpStatus: 202, latencyMs: 4 },
      outcome: 'delivered' as const,
    };
    await log.recordFirstAttempts([first]);
    await log.recordFirstAttempts([first]);
    expect(await log.get(posting.eventId)).toMatchObject({
      outcome: 'delivered',
      attemptCount: 1,
      createdAt: at(1),
      completedAt: at(1),
    });
    // A replay: refused once, then delivered, each by the posting's own entry.
    await log.recordAttempt(posting, { at: at(5), httpStatus: 503, latencyMs: 3 }, 'pending');
    const retried = await log.get(posting.eventId);
    expect(retried).toMatchObject({
      outcome: 'pending',
      attemptCount: 2,
      createdAt: at(1),
      updatedAt: at(5),
    });
    expect(retried?.completedAt).toBeUndefined();
    await log.recordAttempt(posting, { at: at(9), httpStatus: 202, latencyMs: 3 }, 'delivered');
    const delivered = await log.get(posting.eventId);
    expect(delivered).toMatchObject({
      outcome: 'delivered',
      attemptCount: 3,
      completedAt: at(9),
      updatedAt: at(9),
    });
    // Two kept: the newest.
    expect(delivered?.attempts.map((attempt) => attempt.httpStatus)).toEqual([503, 202]);
    expect((await log.listByUetr(uetr)).map((entry) => entry.attemptCount)).toEqual([3]);
    expect(await log.get('evt-never:210000')).toBeNull();
  });

  it('replays a time range across many batches, the earliest postings first, up to the limit', async () => {
    const log = context.store.deliveryLog;
    const memberId = `21${randomUUID().slice(0, 4)}`;
    const produced = (second: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, 0) + second * 1_000);
    const record = (offset: number, second: number) => ({
      posting: {
        eventId: `p-${offset}:${memberId}`,
        uetr: randomUUID(),
        memberId,
        eventType: 'TRANSACTION_STATE_DEBIT_QUEUED',
        source: {
          postingId: `p-${offset}`,
          eventClass: 'TRANSACTION_STATE',
          topic: 'rp.events.v1',
          partition: offset % 4,
          offset,
          producedAt: produced(second),
        },
      },
      attempt: { at: produced(600), httpStatus: 202, latencyMs: 2 },
      outcome: 'delivered' as const,
    });
    // Written in three calls, out of time order: batches that overlap in time, across minutes.
    await log.recordFirstAttempts(Array.from({ length: 60 }, (_, index) => record(index, 50 + index * 2)));
    await log.recordFirstAttempts(
      Array.from({ length: 60 }, (_, index) => record(100 + index, 51 + index * 2)),
    );
    await log.recordFirstAttempts([record(200, 10), record(201, 400)]);
    // A posting retried and then delivered, produced in the range: an entry of its own.
    await log.recordAttempt(
      record(300, 99).posting,
      { at: produced(700), httpStatus: 202, latencyMs: 1 },
      'delivered',
    );
    const expected = [
      ...Array.from({ length: 60 }, (_, index) => ({ offset: index, second: 50 + index * 2 })),
      ...Array.from({ length: 60 }, (_, index) => ({ offset: 100 + index, second: 51 + index * 2 })),
      { offset: 300, second: 99 },
    ]
      .filter(({ second }) => second >= 55 && second < 150)
      .sort((a, b) => a.second - b.second)
      .map(({ offset }) => `p-${offset}`);
    const all = await log.listForReplay(memberId, { from: produced(55), to: produced(150) }, 1_000);
    expect(all.map((entry) => entry.source?.postingId)).toEqual(expected);
    const some = await log.listForReplay(memberId, { from: produced(55), to: produced(150) }, 25);
    expect(some.map((entry) => entry.source?.postingId)).toEqual(expected.slice(0, 25));
  });
});
