import { randomUUID } from 'node:crypto';
import { createMetrics, systemClock } from '@rp/runtime';
import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryStore, type Lane, type LaneEntry, type LaneKey } from './delivery-store.ts';
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
  store = new DeliveryStore(client.db(uniqueName('evp-parking').replace(/-/g, '_')));
  await store.ensureIndexes();
}, 120_000);

afterAll(async () => {
  await client?.close();
});

const topic = `rp.events.v1.${randomUUID()}`;
const laneOf = (memberId = '250655'): LaneKey => {
  const uetr = randomUUID();
  return { laneId: `${memberId}:${uetr}`, memberId, uetr, topic, partition: 1 };
};
const entries = (count: number): LaneEntry[] =>
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
          if (args[0].laneId === inFlight.laneId) rescanDuringPark = parking.loadAll(topic);
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
    await parking.park(known, entries(2));
    // Written to MongoDB without this process's parking: another instance's lane, or one it forgot.
    const now = new Date();
    await store.append(elsewhere, entries(3), { nextAttemptAt: now, notBefore: now }, now);

    await parking.park(inFlight, entries(1));
    // The rescan learned the lane written elsewhere, and left the one being parked to its park.
    const learned = await rescanDuringPark;
    expect(learned?.map((lane) => lane.laneId)).toEqual([elsewhere.laneId]);
    expect(learned?.[0]).toMatchObject({ count: 3, memberId: '210000' });
    expect(index.get(elsewhere.laneId)?.queued).toBe(3);
    // The park went on as usual: its lane counted once, not once by the rescan and again by the park.
    expect(index.get(inFlight.laneId)?.queued).toBe(1);
    expect(index.get(known.laneId)?.queued).toBe(2);

    // Nothing is new to the next rescan.
    expect(await parking.loadAll(topic)).toEqual([]);
  });
});
