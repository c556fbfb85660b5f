import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { type DebitQueueItem, isReadyToQueue, type QueuedDebit } from './debit-queue.ts';
import { mapBounded } from './limits.ts';

const windowDate = '2026-11-24';

function item(overrides: Partial<DebitQueueItem> = {}): DebitQueueItem {
  const uetr = overrides.uetr ?? randomUUID();
  return {
    uetr,
    windowDate,
    requestedCollectionDate: '2026-11-24',
    creditorAgentMemberId: '250655',
    origin: 'on-us',
    enqueuedAt: new Date('2026-11-23T10:00:00.000Z'),
    messageJson: JSON.stringify({ uetr, amount: { value: '100.00', currency: 'ZAR' } }),
    ...overrides,
  };
}

/** The documented order: collection date, creditor agent, enqueue time, UETR. */
function documentedOrder(a: DebitQueueItem, b: DebitQueueItem): number {
  return (
    a.requestedCollectionDate.localeCompare(b.requestedCollectionDate, 'en') ||
    Buffer.compare(Buffer.from(a.creditorAgentMemberId), Buffer.from(b.creditorAgentMemberId)) ||
    a.enqueuedAt.getTime() - b.enqueuedAt.getTime() ||
    (a.uetr < b.uetr ? -1 : a.uetr > b.uetr ? 1 : 0)
  );
}

async function drainAll(context: TestStore, batchSize: number): Promise<QueuedDebit[][]> {
  const batches: QueuedDebit[][] = [];
  for await (const batch of context.store.debitQueue.drain(windowDate, { batchSize })) batches.push(batch);
  return batches;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let index = copy.length - 1; index > 0; index -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

describe('DebitQueueRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('debit-queue');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('drains in the documented order whatever order the debits were queued in', async () => {
    const sameTime = new Date('2026-11-23T10:00:00.000Z');
    const items = [
      ...['2026-11-24', '2026-11-23', '2026-11-25'].flatMap((requestedCollectionDate) =>
        ['470010', '250655', 'ABSAZAJJ', '2'].flatMap((creditorAgentMemberId, creditor) =>
          [3, 1, 2].map((minute) =>
            item({
              requestedCollectionDate,
              creditorAgentMemberId,
              enqueuedAt: new Date(Date.UTC(2026, 10, 23, 9, minute, creditor)),
            }),
          ),
        ),
      ),
      // Equal in everything but the UETR: the UETR breaks the tie.
      ...Array.from({ length: 4 }, () => item({ enqueuedAt: sameTime })),
    ];

    for (const seed of [1, 7, 42]) {
      // A released debit leaves a tombstone: each round queues the same debits under new UETRs.
      const round = items.map((each) => ({ ...each, uetr: randomUUID() }));
      const expected = [...round].sort(documentedOrder).map((each) => each.uetr);
      for (const each of shuffled(round, seed)) await context.store.debitQueue.enqueue(each);
      const drained = (await drainAll(context, 10)).flat();
      expect(drained.map((each) => each.uetr)).toEqual(expected);
      expect(await context.store.debitQueue.markDispatched(drained.map((each) => each.uetr))).toBe(
        round.length,
      );
      expect(await context.store.debitQueue.depth(windowDate)).toBe(0);
    }
  });

  it('queues a debit once, however often it is enqueued', async () => {
    const debit = item();
    expect((await context.store.debitQueue.enqueue(debit)).outcome).toBe('enqueued');
    const again = await context.store.debitQueue.enqueue({
      ...debit,
      enqueuedAt: new Date('2026-11-23T11:00:00Z'),
    });
    expect(again.outcome).toBe('already-queued');
    expect(await context.store.debitQueue.depth(windowDate)).toBe(1);
    expect((await context.store.debitQueue.get(debit.uetr))?.enqueuedAt).toEqual(debit.enqueuedAt);
  });

  it('queues the debits of one moment in one command, each told its own outcome even when one moved on', async () => {
    const { debitQueue } = context.store;
    const moment = Array.from({ length: 8 }, () => item());
    context.resetCommands();
    const outcomes = await Promise.all(moment.map((debit) => debitQueue.enqueue(debit)));
    expect(outcomes.map((result) => result.outcome)).toEqual(Array(8).fill('enqueued'));
    expect(context.commands.get('update')).toBe(1);

    // One debit of the next moment is queued already, one released: the others are queued all the same.
    const next = Array.from({ length: 6 }, () => item());
    await debitQueue.markDispatched([(moment[0] as DebitQueueItem).uetr]);
    const again = await Promise.all(
      [...next.slice(0, 3), moment[0] as DebitQueueItem, moment[1] as DebitQueueItem, ...next.slice(3)].map(
        (debit) => debitQueue.enqueue({ ...debit, enqueuedAt: new Date('2026-11-23T12:00:00Z') }),
      ),
    );
    expect(again.map((result) => result.outcome)).toEqual([
      ...Array(3).fill('enqueued'),
      'already-queued',
      'already-queued',
      ...Array(3).fill('enqueued'),
    ]);
    expect(await debitQueue.depth(windowDate)).toBe(7 + 6);
    expect((await debitQueue.entry((moment[0] as DebitQueueItem).uetr))?.status).toBe('dispatched');
    // The one queued before kept its place.
    expect((await debitQueue.get((moment[1] as DebitQueueItem).uetr))?.enqueuedAt).toEqual(
      (moment[1] as DebitQueueItem).enqueuedAt,
    );
  });

  it('queues debits never written by one insert, as the upsert would, and the ones there after all by the upserts', async () => {
    const { debitQueue } = context.store;
    const halves = { acceptedAt: at(1), statusReportAcknowledgedAt: at(2), statusReportId: 'RPV1' };
    const moment = Array.from({ length: 8 }, () => item());
    const upserted = item();
    context.resetCommands();
    const outcomes = await Promise.all(
      moment.map((debit) => debitQueue.enqueue(debit, at(3), halves, { unwritten: true })),
    );
    expect(outcomes.map((result) => result.outcome)).toEqual(Array(8).fill('enqueued'));
    expect(context.commandCount('insert')).toBe(1);
    expect(context.commandCount('update')).toBe(0);
    // The same document as the upsert's.
    await debitQueue.enqueue(upserted, at(3), halves);
    const expected = { ...(await debitQueue.entry(upserted.uetr)), uetr: '' };
    for (const debit of moment) {
      expect(await debitQueue.entry(debit.uetr)).toEqual({
        ...expected,
        uetr: debit.uetr,
        messageJson: debit.messageJson,
      });
      expect(await debitQueue.get(debit.uetr)).toEqual({ ...debit, orderKey: expect.any(String) });
    }
    expect(expected).toMatchObject({ status: 'queued', windowDate, ...halves, updatedAt: at(3) });

    // Said to be unwritten, but one is queued, one released and one awaits its other half: each is told
    // its own outcome, and the others are queued all the same.
    const next = Array.from({ length: 4 }, () => item());
    const [queued, released] = moment as [DebitQueueItem, DebitQueueItem];
    const awaiting = item();
    await debitQueue.markDispatched([released.uetr]);
    await debitQueue.recordAccepted(awaiting.uetr, awaiting.messageJson, at(0));
    const again = await Promise.all(
      [next[0], queued, released, awaiting, ...next.slice(1)].map((debit) =>
        debitQueue.enqueue(debit as DebitQueueItem, at(4), halves, { unwritten: true }),
      ),
    );
    expect(again.map((result) => result.outcome)).toEqual([
      'enqueued',
      'already-queued',
      'already-queued',
      'enqueued',
      ...Array(3).fill('enqueued'),
    ]);
    expect((await debitQueue.entry(released.uetr))?.status).toBe('dispatched');
    expect(await debitQueue.entry(queued.uetr)).toMatchObject({ status: 'queued', updatedAt: at(3) });
    expect(await debitQueue.entry(awaiting.uetr)).toMatchObject({ status: 'queued', acceptedAt: at(0) });
    for (const debit of next) {
      expect(await debitQueue.entry(debit.uetr)).toMatchObject({ status: 'queued', updatedAt: at(4) });
    }
  });

  it('streams 5,000 debits in order in bounded batches, and resumes after a partial drain', async () => {
    const total = 5_000;
    const items = Array.from({ length: total }, (_, index) =>
      item({
        creditorAgentMemberId: ['210000', '250655', '470010'][index % 3] as string,
        enqueuedAt: new Date(Date.UTC(2026, 10, 23, 8, 0, 0, index * 7)),
      }),
    );
    await mapBounded(items, 16, (each) => context.store.debitQueue.enqueue(each));
    expect(await context.store.debitQueue.depth(windowDate)).toBe(total);
    expect(await context.store.debitQueue.depth('2026-11-25')).toBe(0);
    const expected = [...items].sort(documentedOrder).map((each) => each.uetr);

    // A drain that stops after 1,000 (a crash, or the window closing) dispatches exactly those.
    context.resetCommands();
    const batchSize = 250;
    let taken = 0;
    for await (const batch of context.store.debitQueue.drain(windowDate, { batchSize })) {
      expect(batch.length).toBeLessThanOrEqual(batchSize);
      await context.store.debitQueue.markDispatched(batch.map((each) => each.uetr));
      taken += batch.length;
      if (taken >= 1_000) break;
    }
    expect(taken).toBe(1_000);
    expect(await context.store.debitQueue.depth(windowDate)).toBe(total - 1_000);

    // The next drain starts at the first debit still queued and streams the rest from one cursor.
    context.resetCommands();
    const batches = await drainAll(context, batchSize);
    expect(batches.every((batch) => batch.length <= batchSize)).toBe(true);
    expect(batches.flat().map((each) => each.uetr)).toEqual(expected.slice(1_000));
    expect(context.commandCount('find')).toBe(1);
    expect(context.commandCount('getMore')).toBeGreaterThanOrEqual(
      Math.ceil((total - 1_000) / batchSize) - 1,
    );
  });

  it('keeps windows apart and hands back the stored message', async () => {
    const today = item({ windowDate: '2026-11-24' });
    const tomorrow = item({ windowDate: '2026-11-25' });
    await context.store.debitQueue.enqueue(today);
    await context.store.debitQueue.enqueue(tomorrow);
    const drained = (await drainAll(context, 10)).flat();
    expect(drained).toHaveLength(1);
    expect(drained[0]).toMatchObject({ uetr: today.uetr, messageJson: today.messageJson, origin: 'on-us' });
    expect(await context.store.debitQueue.withdraw([tomorrow.uetr, tomorrow.uetr])).toBe(1);
    expect(await context.store.debitQueue.depth('2026-11-25')).toBe(0);
    expect(await context.store.debitQueue.depth()).toBe(1);
  });

  it('joins the two halves in either order, and queues the debit in the same document', async () => {
    const queue = context.store.debitQueue;
    const first = item();
    const accepted = await queue.recordAccepted(first.uetr, first.messageJson, at(0));
    expect(accepted).toMatchObject({ status: 'awaiting', acceptedAt: at(0) });
    expect(isReadyToQueue(accepted)).toBe(false);
    const both = await queue.recordAcknowledged(first.uetr, 'RPV1', at(1));
    expect(isReadyToQueue(both)).toBe(true);
    expect(both).toMatchObject({ statusReportId: 'RPV1', statusReportAcknowledgedAt: at(1) });

    // The acknowledgement first: the accepted debit completes the pair, and keeps the earliest sight.
    const second = item();
    expect(isReadyToQueue(await queue.recordAcknowledged(second.uetr, 'RPV2', at(2)))).toBe(false);
    expect(await queue.countAwaiting()).toBe(2);
    const pair = await queue.recordAccepted(second.uetr, second.messageJson, at(3));
    expect(isReadyToQueue(pair)).toBe(true);
    expect((await queue.recordAccepted(second.uetr, second.messageJson, at(4))).acceptedAt).toEqual(at(3));

    // Queued: the awaiting entry becomes the queue's, once.
    context.resetCommands();
    expect((await queue.enqueue({ ...first, enqueuedAt: at(0) }, at(5))).outcome).toBe('enqueued');
    expect(context.commandCount('update')).toBe(1);
    expect((await queue.enqueue({ ...first, enqueuedAt: at(0) }, at(6))).outcome).toBe('already-queued');
    expect(await queue.entry(first.uetr)).toMatchObject({ status: 'queued', windowDate, acceptedAt: at(0) });
    expect(await queue.countAwaiting()).toBe(1);
    expect(await queue.depth()).toBe(1);

    // Released: a tombstone that the halves, delivered again, do not bring back.
    expect(await queue.markDispatched([first.uetr], at(7))).toBe(1);
    expect(await queue.markDispatched([first.uetr], at(8))).toBe(0);
    expect(await queue.get(first.uetr)).toBeNull();
    const again = await queue.recordAccepted(first.uetr, first.messageJson, at(9));
    expect(again.status).toBe('dispatched');
    expect(isReadyToQueue(again)).toBe(false);
    // Left as it was: the tombstone does not take back the message it dropped.
    expect(again.messageJson).toBeUndefined();
    expect(await queue.entry(first.uetr)).toMatchObject({ status: 'dispatched', updatedAt: at(7) });
    expect(await queue.entry(first.uetr)).not.toHaveProperty('messageJson');
    await queue.withdraw([second.uetr], at(11));
    expect(await queue.recordAccepted(second.uetr, second.messageJson, at(12))).not.toHaveProperty(
      'messageJson',
    );
    expect(await queue.entry(second.uetr)).toMatchObject({ status: 'withdrawn', updatedAt: at(11) });

    // Two first sights of one debit at once: one inserts, the other finds it there and writes it again.
    const twice = item();
    const sights = await Promise.all([
      queue.recordAccepted(twice.uetr, twice.messageJson, at(13)),
      queue.recordAccepted(twice.uetr, twice.messageJson, at(14)),
    ]);
    expect(sights.map((entry) => entry.status)).toEqual(['awaiting', 'awaiting']);
    expect(await queue.entry(twice.uetr)).toMatchObject({ status: 'awaiting', acceptedAt: at(13) });
    expect((await queue.enqueue({ ...first, enqueuedAt: at(0) }, at(10))).outcome).toBe('already-queued');
    expect(await queue.depth(windowDate)).toBe(0);
  });

  it('records the debits released at once in one command: their tombstones with their intake, never over one that moved on', async () => {
    const queue = context.store.debitQueue;
    const [unseen, awaiting, queued, released, withdrawn] = [item(), item(), item(), item(), item()];
    await queue.recordAccepted(awaiting.uetr, awaiting.messageJson, at(0));
    await queue.enqueue(queued, at(1), { acceptedAt: at(1) });
    await queue.enqueue(released, at(1), { acceptedAt: at(1) });
    await queue.markDispatched([released.uetr], at(2));
    await queue.withdraw([withdrawn.uetr], at(2));

    context.resetCommands();
    const intake = { acceptedAt: at(3), statusReportAcknowledgedAt: at(4), statusReportId: 'RPV9' };
    await queue.recordReleased(
      [unseen, awaiting].map((debit) => ({ uetr: debit.uetr, intake })),
      at(5),
    );
    expect(context.commandCount('update')).toBe(1);
    // Two in the bulk moved on, before the one that did not: it is written all the same.
    await queue.recordReleased(
      [released, withdrawn, queued].map((debit) => ({ uetr: debit.uetr, intake })),
      at(5),
    );
    // Never seen before: the tombstone is the first the queue knows of it, the halves in it.
    expect(await queue.entry(unseen.uetr)).toEqual({
      uetr: unseen.uetr,
      status: 'dispatched',
      acceptedAt: at(3),
      statusReportAcknowledgedAt: at(4),
      statusReportId: 'RPV9',
      updatedAt: at(5),
    });
    // Its accepted half written before: the first sight is kept.
    expect(await queue.entry(awaiting.uetr)).toMatchObject({ status: 'dispatched', acceptedAt: at(0) });
    expect(await queue.entry(queued.uetr)).toMatchObject({ status: 'dispatched', acceptedAt: at(1) });
    expect((await queue.entry(queued.uetr))?.windowDate).toBeUndefined();
    expect(await queue.depth(windowDate)).toBe(0);
    // Moved on before: left as they were.
    expect(await queue.entry(released.uetr)).toMatchObject({ status: 'dispatched', updatedAt: at(2) });
    expect(await queue.entry(withdrawn.uetr)).toMatchObject({ status: 'withdrawn', updatedAt: at(2) });
    // Repeated: nothing more, and a half delivered again does not bring a debit back.
    await queue.recordReleased([{ uetr: unseen.uetr, intake }], at(6));
    expect((await queue.entry(unseen.uetr))?.updatedAt).toEqual(at(5));
    expect((await queue.recordAcknowledged(unseen.uetr, 'RPV9', at(7))).status).toBe('dispatched');
  });

  it('inserts the tombstones of debits never written, the same as the upserts, and falls back where one was there', async () => {
    const queue = context.store.debitQueue;
    const intake = { acceptedAt: at(3), statusReportAcknowledgedAt: at(4), statusReportId: 'RPV9' };
    const fresh = Array.from({ length: 40 }, () => item());
    const upserted = item();
    context.resetCommands();
    await queue.recordReleased(
      fresh.map((debit) => ({ uetr: debit.uetr, intake, unwritten: true })),
      at(5),
    );
    expect(context.commandCount('insert')).toBe(1);
    expect(context.commandCount('update')).toBe(0);
    await queue.recordReleased([{ uetr: upserted.uetr, intake }], at(5));
    // The insert leaves the same tombstone as the upsert.
    const tombstone = await queue.entry(upserted.uetr);
    for (const debit of fresh) {
      expect(await queue.entry(debit.uetr)).toEqual({ ...tombstone, uetr: debit.uetr });
    }
    expect(tombstone).toEqual({ uetr: upserted.uetr, status: 'dispatched', ...intake, updatedAt: at(5) });

    // Said to be unwritten, but there: an accepted half, a withdrawn debit, a tombstone from before.
    const [awaiting, withdrawn, ...others] = Array.from({ length: 30 }, () => item());
    await queue.recordAccepted(awaiting?.uetr ?? '', awaiting?.messageJson ?? '', at(1));
    await queue.withdraw([withdrawn?.uetr ?? ''], at(2));
    const again = fresh[0] as DebitQueueItem;
    await queue.recordReleased(
      [awaiting, withdrawn, again, ...others].map((debit) => ({
        uetr: (debit as DebitQueueItem).uetr,
        intake,
        unwritten: true,
      })),
      at(6),
    );
    expect(await queue.entry(awaiting?.uetr ?? '')).toMatchObject({
      status: 'dispatched',
      acceptedAt: at(1),
      statusReportId: 'RPV9',
      updatedAt: at(6),
    });
    expect((await queue.entry(awaiting?.uetr ?? ''))?.messageJson).toBeUndefined();
    expect(await queue.entry(withdrawn?.uetr ?? '')).toMatchObject({ status: 'withdrawn', updatedAt: at(2) });
    expect(await queue.entry(again.uetr)).toMatchObject({ status: 'dispatched', updatedAt: at(5) });
    for (const debit of others) {
      expect(await queue.entry(debit.uetr)).toMatchObject({ status: 'dispatched', updatedAt: at(6) });
    }
  });

  it('records a release of several bulks, a few in flight, each one command, and one that met a debit moved on debit by debit', async () => {
    const queue = context.store.debitQueue;
    const intake = { acceptedAt: at(3) };
    // 60 debits: bulks of 25, 25 and 10, sent together.
    const debits = Array.from({ length: 60 }, () => item());
    context.resetCommands();
    await queue.recordReleased(
      debits.map((debit) => ({ uetr: debit.uetr, intake })),
      at(5),
    );
    expect(context.commandCount('update')).toBe(3);
    for (const debit of debits) {
      expect(await queue.entry(debit.uetr)).toMatchObject({ status: 'dispatched', updatedAt: at(5) });
    }

    // One withdrawn in the second bulk: that bulk is done again debit by debit, the others as they were.
    const more = Array.from({ length: 60 }, () => item());
    const moved = more[30] as (typeof more)[number];
    await queue.withdraw([moved.uetr], at(4));
    await queue.recordReleased(
      more.map((debit) => ({ uetr: debit.uetr, intake })),
      at(6),
    );
    for (const debit of more) {
      expect(await queue.entry(debit.uetr)).toMatchObject(
        debit === moved
          ? { status: 'withdrawn', updatedAt: at(4) }
          : { status: 'dispatched', updatedAt: at(6) },
      );
    }
  });

  it('inserts accepted halves in bulk, and does a command that met a debit already there debit by debit', async () => {
    const queue = context.store.debitQueue;
    // 300 halves: inserts of 250 and 50, and nothing to hand back.
    const debits = Array.from({ length: 300 }, () => item());
    context.resetCommands();
    const written = await queue.recordAcceptedHalves(debits.map((debit) => half(debit, 1)));
    expect(written.size).toBe(0);
    expect(context.commandCount('insert')).toBe(2);
    expect(context.commandCount('findAndModify')).toBe(0);
    for (const debit of debits) {
      const entry = await queue.entry(debit.uetr);
      expect(entry).toMatchObject({ status: 'awaiting', acceptedAt: at(1), updatedAt: at(1) });
      expect(isReadyToQueue(entry as NonNullable<typeof entry>)).toBe(false);
    }

    // In the second command, one acknowledged already, one released and one written before: the insert names
    // them, and they alone are written on their own and handed back, the acknowledged debit ready, the
    // first sight kept.
    const more = Array.from({ length: 300 }, () => item());
    const [acknowledged, released] = [more[260], more[270]] as [DebitQueueItem, DebitQueueItem];
    const before = debits[0] as DebitQueueItem;
    await queue.recordAcknowledged(acknowledged.uetr, 'RPV1', at(2));
    await queue.recordReleased([{ uetr: released.uetr, intake: { acceptedAt: at(2) } }], at(2));
    const handedBack = await queue.recordAcceptedHalves([...more, before].map((debit) => half(debit, 3)));
    expect([...handedBack.keys()].sort()).toEqual([acknowledged.uetr, released.uetr, before.uetr].sort());
    const pair = handedBack.get(acknowledged.uetr);
    expect(pair && isReadyToQueue(pair)).toBe(true);
    expect(pair).toMatchObject({
      acceptedAt: at(3),
      statusReportAcknowledgedAt: at(2),
      messageJson: acknowledged.messageJson,
    });
    expect(handedBack.get(released.uetr)?.status).toBe('dispatched');
    expect((await queue.entry(released.uetr))?.status).toBe('dispatched');
    expect(handedBack.get(before.uetr)).toMatchObject({ status: 'awaiting', acceptedAt: at(1) });
    for (const debit of more) {
      if (debit === acknowledged || debit === released) continue;
      expect(await queue.entry(debit.uetr)).toMatchObject({ status: 'awaiting', acceptedAt: at(3) });
    }
  });

  it('keeps a debit from a clearing house apart from the acknowledgements, and withdraws what was never seen', async () => {
    const queue = context.store.debitQueue;
    const inbound = item({ origin: 'inbound' });
    expect(
      isReadyToQueue(
        await queue.recordAccepted(inbound.uetr, inbound.messageJson, at(0), { fromScheme: true }),
      ),
    ).toBe(true);

    // Reconciled before anything arrived: what arrives later is ignored.
    const unseen = item();
    expect(await queue.withdraw([unseen.uetr, inbound.uetr], at(1))).toBe(0);
    const late = await queue.recordAcknowledged(unseen.uetr, 'RPV3', at(2));
    expect(late.status).toBe('withdrawn');
    expect(isReadyToQueue(await queue.recordAccepted(unseen.uetr, unseen.messageJson, at(3)))).toBe(false);
    expect((await queue.enqueue(inbound, at(4))).outcome).toBe('already-queued');
    expect(await queue.entry(inbound.uetr)).toMatchObject({ status: 'withdrawn' });
    expect((await queue.entry(inbound.uetr))?.messageJson).toBeUndefined();
  });

  it('purges tombstones and lone halves after their time, never a queued debit', async () => {
    const queue = context.store.debitQueue;
    const [queued, dispatched, lone] = [item(), item(), item()];
    await queue.enqueue(queued, at(0));
    await queue.enqueue(dispatched, at(0));
    await queue.markDispatched([dispatched.uetr], at(1));
    await queue.recordAcknowledged(lone.uetr, 'RPV4', at(1));
    const recent = item();
    await queue.withdraw([recent.uetr], at(5));

    expect(await queue.purge(at(3))).toBe(2);
    expect(await queue.entry(dispatched.uetr)).toBeNull();
    expect(await queue.entry(lone.uetr)).toBeNull();
    expect(await queue.entry(recent.uetr)).toMatchObject({ status: 'withdrawn' });
    expect(await queue.get(queued.uetr)).toMatchObject({ uetr: queued.uetr, windowDate });
  });
});

/** Minutes after 10:00 on 2026-11-23. */
function at(minutes: number): Date {
  return new Date(Date.UTC(2026, 10, 23, 10, minutes));
}

/** The accepted half of a debit, first seen `minutes` in. */
function half(debit: DebitQueueItem, minutes: number): { uetr: string; messageJson: string; at: Date } {
  return { uetr: debit.uetr, messageJson: debit.messageJson, at: at(minutes) };
}
