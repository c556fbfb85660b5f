import { randomUUID } from 'node:crypto';
import { connectStore, type EventDeliveryRecord, type Store, type StoreCommandEvent } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirstAttemptLog } from './first-attempts.ts';

let store: Store;
let closed: Store;
let commands: string[] = [];
let writes: StoreCommandEvent[] = [];

beforeAll(async () => {
  const endpoints = await infra();
  const database = uniqueName('evp-first-attempts').replace(/-/g, '_');
  store = await connectStore({
    uri: endpoints.mongodbUri,
    database,
    appName: 'first-attempts-test',
    onCommand: (event) => {
      commands.push(event.commandName);
      writes.push(event);
    },
  });
  await store.ensureIndexes();
  // A store whose client is closed: every write to it fails, as one to an unreachable server does.
  closed = await connectStore({ uri: endpoints.mongodbUri, database, appName: 'first-attempts-closed' });
  await closed.close();
}, 120_000);

afterAll(async () => {
  await store?.close();
});

const uetr = randomUUID();
const record = (index: number): EventDeliveryRecord => ({
  posting: { eventId: `EVT-${uetr}-${index}:210000`, uetr, memberId: '210000', eventType: 'X' },
  attempt: { at: new Date(Date.UTC(2026, 10, 26, 9, 0, index)), httpStatus: 202, latencyMs: 3 },
  outcome: 'delivered',
});

describe('the delivery log written behind', () => {
  it('writes what several batches handed over in one insert, and makes room by writing', async () => {
    const reported: number[] = [];
    const written: number[] = [];
    const log = new FirstAttemptLog({
      deliveryLog: store.deliveryLog,
      maxWaiting: 5,
      onWaiting: (waiting) => reported.push(waiting),
      onWritten: (records) => written.push(records),
    });
    log.add([record(0), record(1)]);
    const unnamed = record(9);
    expect(log.add([record(2), { ...unnamed, posting: { ...unnamed.posting, uetr: '' } }])).toHaveLength(1);
    commands = [];
    const controller = new AbortController();
    const heartbeat = async () => {};
    await log.whenRoom({ signal: controller.signal, heartbeat, onFailure: () => {} });
    expect(commands).toEqual([]);
    expect(log.size).toBe(3);
    writes = [];
    await log.flush();
    expect(commands.filter((name) => name === 'insert')).toHaveLength(1);
    // The command metrics count what the insert carried: the three postings' first attempts, one batch.
    expect(writes.filter((event) => event.commandName === 'insert')).toEqual([
      expect.objectContaining({ collection: 'event_delivery_batches', statements: 1, ok: true }),
    ]);
    expect(written).toEqual([3]);
    expect(log.size).toBe(0);
    expect((await store.deliveryLog.listByUetr(uetr)).map((entry) => entry.eventId)).toEqual(
      [0, 1, 2].map((index) => record(index).posting.eventId),
    );
    log.add([3, 4, 5, 6, 7].map(record));
    await log.whenRoom({ signal: controller.signal, heartbeat, onFailure: () => {} });
    expect(log.size).toBe(0);
    expect(await store.deliveryLog.listByUetr(uetr)).toHaveLength(8);
    // What the rp_events_delivery_log_waiting gauge showed: 2, 3, written, 5, written.
    expect(reported).toEqual([2, 3, 0, 5, 0]);
    expect(written).toEqual([3, 5]);
  });

  it('keeps records whose write failed for the next write, and stops waiting for room when aborted', async () => {
    const log = new FirstAttemptLog({ deliveryLog: closed.deliveryLog, maxWaiting: 2 });
    log.add([record(10), record(11)]);
    await expect(log.flush()).rejects.toThrow();
    expect(log.size).toBe(2);
    log.add([record(12)]);
    await expect(log.flush()).rejects.toThrow();
    expect(log.size).toBe(3);
    const controller = new AbortController();
    const failures: unknown[] = [];
    // The group hears from the consumer while it waits: the heartbeat goes on through the failed writes.
    let beats = 0;
    const waiting = log.whenRoom({
      signal: controller.signal,
      heartbeat: async () => {
        beats += 1;
      },
      heartbeatMs: 20,
      retryMs: 50,
      onFailure: (error) => {
        failures.push(error);
        if (failures.length === 3) controller.abort();
      },
    });
    await expect(waiting).rejects.toThrow();
    expect(failures).toHaveLength(3);
    expect(beats).toBeGreaterThan(0);
    expect(log.size).toBe(3);
  });
});
