import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryStore, type LaneEntry, type StoredPosting } from './delivery-store.ts';

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
  it('stores a posting once, and finds postings by transaction and by time range in topic order', async () => {
    const at = (second: number) => new Date(Date.UTC(2026, 2, 2, 8, 0, second));
    await store.savePostings([
      posting('p2', 'u1', 12, at(2)),
      posting('p1', 'u1', 11, at(1)),
      posting('p3', 'u2', 13, at(3)),
    ]);
    await store.savePostings([posting('p1', 'u1', 99, at(9))]);
    expect((await store.getPosting('p1'))?.offset).toBe(11);
    expect((await store.postingsOfTransaction('250655', 'u1', 10)).map((p) => p.eventId)).toEqual([
      'p1',
      'p2',
    ]);
    expect(await store.postingsOfTransaction('198765', 'u1', 10)).toEqual([]);
    expect((await store.postingsInRange('250655', at(2), at(4), 10)).map((p) => p.eventId)).toEqual([
      'p2',
      'p3',
    ]);
    expect(await store.getPosting('missing')).toBeNull();
  });

  it('appends in order, pops only the head it was told, and deletes a lane only when empty and ours', async () => {
    const key = lane('u-order');
    const now = new Date();
    expect(
      await store.append(
        key,
        [entry('e1'), entry('e2')],
        { nextAttemptAt: now, notBefore: now, headFailures: 1 },
        now,
      ),
    ).toBe(true);
    expect(await store.append(key, [entry('e3')], { nextAttemptAt: now, notBefore: now }, now)).toBe(false);
    const claimed = await store.claim(key.laneId, 'me', new Date(), 60_000);
    expect(claimed?.pending.map((e) => e.eventId)).toEqual(['e1', 'e2', 'e3']);
    expect(claimed?.headFailures).toBe(1);
    expect(await store.claim(key.laneId, 'other', new Date(), 60_000)).toBeNull();
    expect(await store.completeHead(key.laneId, 'me', 'e2', new Date(), 60_000)).toBeNull();
    expect(await store.completeHead(key.laneId, 'other', 'e1', new Date(), 60_000)).toBeNull();
    const popped = await store.completeHead(key.laneId, 'me', 'e1', new Date(), 60_000);
    expect(popped).toMatchObject({ count: 2, headFailures: 0 });
    expect(await store.deleteIfEmpty(key.laneId, 'me')).toBe(false);
    await store.completeHead(key.laneId, 'me', 'e2', new Date(), 60_000);
    await store.completeHead(key.laneId, 'me', 'e3', new Date(), 60_000);
    expect(await store.deleteIfEmpty(key.laneId, 'other')).toBe(false);
    expect(await store.deleteIfEmpty(key.laneId, 'me')).toBe(true);
    expect(await store.getLane(key.laneId)).toBeNull();
  });

  it('reschedules and releases a lane so another worker can claim it', async () => {
    const key = lane('u-lease');
    const now = new Date();
    await store.append(key, [entry('e1')], { nextAttemptAt: now, notBefore: now }, now);
    await store.claim(key.laneId, 'me', new Date(), 60_000);
    const later = new Date(Date.now() + 5_000);
    expect(
      await store.reschedule(key.laneId, 'me', {
        nextAttemptAt: later,
        notBefore: now,
        headFailures: 3,
        lastError: 'HTTP 500',
      }),
    ).toBe(true);
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

  it('loses nothing when one process appends to and pops a lane at the same time', async () => {
    const key = lane('u-race');
    const now = new Date();
    await store.append(key, [entry('head')], { nextAttemptAt: now, notBefore: now }, now);
    await store.claim(key.laneId, 'me', new Date(), 60_000);
    const appends = Array.from({ length: 40 }, (_, index) =>
      store.append(key, [entry(`e${index}`)], { nextAttemptAt: now, notBefore: now }, now),
    );
    const pop = store.completeHead(key.laneId, 'me', 'head', new Date(), 60_000);
    const reschedule = store.reschedule(key.laneId, 'me', {
      nextAttemptAt: now,
      notBefore: now,
      headFailures: 1,
    });
    await Promise.all([...appends, pop, reschedule]);
    const result = await store.getLane(key.laneId);
    expect(result?.pending.map((e) => e.eventId)).toEqual(
      Array.from({ length: 40 }, (_, index) => `e${index}`),
    );
    expect(result?.count).toBe(40);
  });
});
