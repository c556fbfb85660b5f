import { randomUUID } from 'node:crypto';
import { createMetrics, systemClock } from '@rp/runtime';
import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeliveryStore,
  type Lane,
  type LaneEntry,
  type LaneKey,
  type StoredPosting,
} from './delivery-store.ts';
import { LaneIndex } from './lane-index.ts';
import { publisherMetrics } from './metrics.ts';
import { Parking } from './parking.ts';
import { defaultRetrySchedule } from './retry-schedule.ts';

let client: MongoClient;
let store: DeliveryStore;

beforeAll(async () => {
  const endpoints = await infra();
  client = new MongoClient(endpoints.mongodbUri);
  await client.connect();
  store = new DeliveryStore(client.db(uniqueName('evp-store').replace(/-/g, '_')));
  await store.ensureIndexes();
  await store.ensureIndexes();
}, 120_000);

afterAll(async () => {
  await client?.close();
});

const lane = (uetr: string, memberId = '250655') => ({
  laneId: `${memberId}:${uetr}`,
  memberId,
  uetr,
  topic: 'rp.events.v1',
  partition: 2,
});
const entry = (eventId: string): LaneEntry => ({
  eventId,
  eventName: 'TRANSACTION_STATE_X',
  queuedAt: new Date(),
});
const posting = (eventId: string, uetr: string, offset: number, producedAt: Date): StoredPosting => ({
  eventId,
  uetr,
  eventClass: 'TRANSACTION_STATE',
  eventName: 'TRANSACTION_STATE_X',
  stageVersion: offset,
  memberIds: ['250655'],
  topic: 'rp.events.v1',
  partition: 2,
  offset,
  producedAt,
  body: `{"offset":${offset}}`,
});

describe('DeliveryStore', () => {
  it('stores a posting once, and reads it back by its id', async () => {
    const at = (second: number) => new Date(Date.UTC(2026, 2, 2, 8, 0, second));
    await store.savePostings([
      posting('p2', 'u1', 12, at(2)),
      posting('p1', 'u1', 11, at(1)),
      posting('p3', 'u2', 13, at(3)),
    ]);
    await store.savePostings([posting('p1', 'u1', 99, at(9))]);
    expect(await store.getPosting('p1')).toEqual(posting('p1', 'u1', 11, at(1)));
    expect((await store.getPosting('p3'))?.uetr).toBe('u2');
    expect(await store.getPosting('missing')).toBeNull();
  });

  it('deletes the postings stored before the retention, counting from the last time each was stored', async () => {
    const day = (n: number) => new Date(Date.UTC(2026, 2, n, 8));
    await store.savePostings(
      [posting('old-1', 'u-r', 1, day(1)), posting('old-2', 'u-r', 2, day(1))],
      day(1),
    );
    await store.savePostings([posting('new-1', 'u-r', 3, day(1))], day(4));
    // A replay stores old-2 again on day 4: it is kept as long as a posting stored then.
    await store.savePostings(
      [posting('old-2', 'u-r', 2, day(1)), posting('new-2', 'u-r', 4, day(4))],
      day(4),
    );
    expect(await store.purgePostings(day(3), 1_000)).toBe(1);
    expect(await store.getPosting('old-1')).toBeNull();
    expect(await store.getPosting('old-2')).toEqual(posting('old-2', 'u-r', 2, day(1)));
    // At most `limit` a call.
    expect(await store.purgePostings(day(5), 2)).toBe(2);
    expect(await store.purgePostings(day(5), 2)).toBe(1);
    expect(await store.purgePostings(day(5), 2)).toBe(0);
  });

  it('appends in order, removes the handled heads only for the lease holder, and deletes a lane only when empty and ours', async () => {
    const key = lane('u-order');
    const now = new Date();
    const renew = { kind: 'renew', now, leaseMs: 60_000 } as const;
    expect(
      await store.append(
        key,
        [entry('e1'), entry('e2')],
        { nextAttemptAt: now, notBefore: now, headFailures: 1, lastError: 'HTTP 503' },
        now,
      ),
    ).toBe(true);
    expect(await store.append(key, [entry('e3')], { nextAttemptAt: now, notBefore: now }, now)).toBe(false);
    const claimed = await store.claim(key.laneId, 'me', new Date(), 60_000);
    if (!claimed) throw new Error('not claimed');
    expect(claimed.pending.map((e) => e.eventId)).toEqual(['e1', 'e2', 'e3']);
    expect(claimed.headFailures).toBe(1);
    expect(await store.claim(key.laneId, 'other', new Date(), 60_000)).toBeNull();
    expect(await store.settle({ ...claimed, leaseOwner: 'other' }, 'other', 1, renew)).toBeNull();

    const popped = await store.settle(claimed, 'me', 2, renew);
    expect(popped).toMatchObject({ count: 1, headFailures: 0, pending: [{ eventId: 'e3' }] });
    expect(popped).not.toHaveProperty('lastError');
    const stored = await store.getLane(key.laneId);
    expect(stored).toMatchObject({ count: 1, headFailures: 0, leaseOwner: 'me' });
    expect(stored?.pending.map((e) => e.eventId)).toEqual(['e3']);
    expect(stored).not.toHaveProperty('lastError');
    if (popped === null || popped === 'deleted') throw new Error('not settled');

    // Appended to after the worker read it: the last entry handled does not delete the lane.
    await store.append(key, [entry('e4')], { nextAttemptAt: now, notBefore: now }, now);
    const appended = await store.settle(popped, 'me', 1, renew);
    expect(appended).toMatchObject({ count: 1, pending: [{ eventId: 'e4' }] });
    if (appended === null || appended === 'deleted') throw new Error('not settled');
    expect(await store.settle(appended, 'me', 1, renew)).toBe('deleted');
    expect(await store.getLane(key.laneId)).toBeNull();
  });

  it('removes the handled heads and reschedules the new one, or releases the lane, in one write', async () => {
    const key = lane('u-settle');
    const now = new Date();
    await store.append(key, ['a', 'b', 'c', 'd'].map(entry), { nextAttemptAt: now, notBefore: now }, now);
    const claimed = await store.claim(key.laneId, 'me', now, 60_000);
    if (!claimed) throw new Error('not claimed');
    const later = new Date(now.getTime() + 5_000);
    const rescheduled = await store.settle(claimed, 'me', 1, {
      kind: 'reschedule',
      schedule: { nextAttemptAt: later, notBefore: now, headFailures: 1, lastError: 'HTTP 500' },
    });
    expect(await store.getLane(key.laneId)).toMatchObject({
      count: 3,
      headFailures: 1,
      lastError: 'HTTP 500',
      nextAttemptAt: later,
      leaseUntil: new Date(0),
      pending: [{ eventId: 'b' }, { eventId: 'c' }, { eventId: 'd' }],
    });
    expect(rescheduled).toMatchObject({ count: 3, headFailures: 1, lastError: 'HTTP 500' });

    const again = await store.claim(key.laneId, 'me', new Date(), 60_000);
    if (!again) throw new Error('not claimed');
    expect(await store.settle(again, 'me', 2, { kind: 'release', now })).toMatchObject({ count: 1 });
    expect(await store.getLane(key.laneId)).toMatchObject({
      count: 1,
      headFailures: 0,
      leaseUntil: new Date(0),
      pending: [{ eventId: 'd' }],
    });
    expect(await store.claim(key.laneId, 'other', new Date(), 60_000)).not.toBeNull();
  });

  it("reads the postings of a transaction's entries at once, missing ones left out", async () => {
    const at = new Date(Date.UTC(2026, 2, 2, 9, 0, 0));
    await store.savePostings([
      posting('m1', 'u-many', 21, at),
      posting('m2', 'u-many', 22, at),
      posting('m3', 'u-many', 23, at),
      posting('o1', 'u-other', 24, at),
    ]);
    const found = await store.getPostings('u-many', ['m2', 'gone', 'm1', 'm1', 'o1']);
    expect([...found.keys()].sort()).toEqual(['m1', 'm2']);
    expect(found.get('m2')?.offset).toBe(22);
    expect([...(await store.getPostings('u-many', ['m3'])).keys()]).toEqual(['m3']);
    expect((await store.getPostings('u-many', ['o1'])).size).toBe(0);
    expect((await store.getPostings('u-many', [])).size).toBe(0);
  });

  it('keeps the postings it stored or read lately and reads only the others, never one another process stored first', async () => {
    const database = client.db(uniqueName('evp-recent').replace(/-/g, '_'));
    const reads: [number, number][] = [];
    const remembering = new DeliveryStore(
      database,
      {},
      { recentPostings: 100, onPostingsRead: (fromMemory, fromStore) => reads.push([fromMemory, fromStore]) },
    );
    const other = new DeliveryStore(database);
    const postings = database.collection('event_postings');
    const at = new Date(Date.UTC(2026, 2, 2, 10, 0, 0));
    await other.savePostings([posting('r-first', 'u-recent', 1, at), posting('r-read', 'u-recent', 5, at)]);
    await remembering.savePostings([
      posting('r1', 'u-recent', 2, at),
      posting('r2', 'u-recent', 3, at),
      // Stored by the other process first: what is stored is its copy (offset 1), not this one.
      posting('r-first', 'u-recent', 4, at),
    ]);
    await other.savePostings([posting('r3', 'u-recent', 6, at)]);
    expect((await remembering.getPostings('u-recent', ['r-read'])).get('r-read')?.offset).toBe(5);

    // Gone from the collection: what the process stored or read is still delivered as it was stored,
    // a posting it did not insert itself is not, and a process that keeps none has none of them.
    await postings.deleteMany({ _id: { $in: ['r1', 'r-first', 'r-read'] } } as never);
    const found = await remembering.getPostings('u-recent', ['r1', 'r2', 'r3', 'r-first', 'r-read']);
    expect([...found.keys()].sort()).toEqual(['r-read', 'r1', 'r2', 'r3']);
    expect(found.get('r1')).toEqual(posting('r1', 'u-recent', 2, at));
    expect(found.get('r3')?.offset).toBe(6);
    // Counted by where they came from: the first read from the collection, the last mostly from memory.
    expect(reads).toEqual([
      [0, 1],
      [3, 1],
    ]);
    expect((await remembering.getPostings('other-uetr', ['r2'])).size).toBe(0);
    expect([...(await other.getPostings('u-recent', ['r1', 'r2', 'r3'])).keys()].sort()).toEqual([
      'r2',
      'r3',
    ]);

    // A posting purged is forgotten with it.
    await remembering.savePostings([posting('r-old', 'u-recent', 7, at)], new Date(Date.UTC(2026, 1, 1)));
    expect(await remembering.purgePostings(new Date(Date.UTC(2026, 1, 2)), 10)).toBe(1);
    expect((await remembering.getPostings('u-recent', ['r-old'])).size).toBe(0);
    await database.dropDatabase();
  });

  it('reschedules and releases a lane so another worker can claim it', async () => {
    const key = lane('u-lease');
    const now = new Date();
    await store.append(key, [entry('e1')], { nextAttemptAt: now, notBefore: now }, now);
    const claimed = await store.claim(key.laneId, 'me', new Date(), 60_000);
    if (!claimed) throw new Error('not claimed');
    const later = new Date(Date.now() + 5_000);
    expect(
      await store.settle(claimed, 'me', 0, {
        kind: 'reschedule',
        schedule: { nextAttemptAt: later, notBefore: now, headFailures: 3, lastError: 'HTTP 500' },
      }),
    ).toMatchObject({ headFailures: 3 });
    const lane2 = await store.claim(key.laneId, 'other', new Date(), 60_000);
    expect(lane2).toMatchObject({
      headFailures: 3,
      lastError: 'HTTP 500',
      leaseOwner: 'other',
      nextAttemptAt: later,
    });
    await store.release(key.laneId, 'other');
    expect(await store.claim(key.laneId, 'third', new Date(), 60_000)).not.toBeNull();
    expect((await store.lanesOf('rp.events.v1', 2)).map((l) => l.laneId)).toContain(key.laneId);
    expect((await store.lanesOf('rp.events.v1', 1)).map((l) => l.laneId)).not.toContain(key.laneId);
    expect((await store.listLanes('250655', 100)).map((l) => l.laneId)).toContain(key.laneId);
  });

  it('loses nothing when one process appends to a lane while it settles it', async () => {
    const key = lane('u-race');
    const now = new Date();
    await store.append(key, [entry('head'), entry('second')], { nextAttemptAt: now, notBefore: now }, now);
    const claimed = await store.claim(key.laneId, 'me', new Date(), 60_000);
    if (!claimed) throw new Error('not claimed');
    const appends = Array.from({ length: 40 }, (_, index) =>
      store.append(key, [entry(`e${index}`)], { nextAttemptAt: now, notBefore: now }, now),
    );
    const settle = store.settle(claimed, 'me', 2, { kind: 'renew', now, leaseMs: 60_000 });
    await Promise.all([...appends, settle]);
    expect(await settle).not.toBe('deleted');
    const result = await store.getLane(key.laneId);
    expect(result?.pending.map((e) => e.eventId)).toEqual(
      Array.from({ length: 40 }, (_, index) => `e${index}`),
    );
    expect(result?.count).toBe(40);
  });
});

const parkingTopic = `rp.events.v1.${randomUUID()}`;
const laneOf = (memberId = '250655'): LaneKey => {
  const uetr = randomUUID();
  return { laneId: `${memberId}:${uetr}`, memberId, uetr, topic: parkingTopic, partition: 1 };
};
const laneEntries = (count: number): LaneEntry[] =>
  Array.from({ length: count }, (_, index) => ({
    eventId: `EVT-${randomUUID()}-${index}`,
    eventName: 'TRANSACTION_STATE_X',
    queuedAt: new Date(),
  }));

describe('Parking on the real store', () => {
  it("tells a rescan's lanes this process lost track of (or another instance's) from those it was parking", async () => {
    let rescanDuringPark: Promise<Lane[]> | undefined;
    const index = new LaneIndex(1_000);
    const parking = new Parking({
      store: {
        // The real store; a rescan runs once a park's write is in MongoDB and before the index has it.
        append: async (...args) => {
          const created = await store.append(...args);
          if (args[0].laneId === inFlight.laneId) rescanDuringPark = parking.loadAll(parkingTopic);
          await rescanDuringPark;
          return created;
        },
        lanesOf: (...args) => store.lanesOf(...args),
      },
      index,
      schedule: defaultRetrySchedule,
      clock: systemClock,
      metrics: publisherMetrics(createMetrics({ service: 'parking-test', defaultMetrics: false })),
      wake: () => {},
    });
    const known = laneOf();
    const elsewhere = laneOf('210000');
    const inFlight = laneOf();
    await parking.park(known, laneEntries(2));
    // Written to MongoDB without this process's parking: another instance's lane, or one it forgot.
    const now = new Date();
    await store.append(elsewhere, laneEntries(3), { nextAttemptAt: now, notBefore: now }, now);

    await parking.park(inFlight, laneEntries(1));
    // The rescan learned the lane written elsewhere, and left the one being parked to its park.
    const learned = await rescanDuringPark;
    expect(learned?.map((lane) => lane.laneId)).toEqual([elsewhere.laneId]);
    expect(learned?.[0]).toMatchObject({ count: 3, memberId: '210000' });
    expect(index.get(elsewhere.laneId)?.queued).toBe(3);
    // The park went on as usual: its lane counted once, not once by the rescan and again by the park.
    expect(index.get(inFlight.laneId)?.queued).toBe(1);
    expect(index.get(known.laneId)?.queued).toBe(2);

    // Nothing is new to the next rescan.
    expect(await parking.loadAll(parkingTopic)).toEqual([]);
  });
});
